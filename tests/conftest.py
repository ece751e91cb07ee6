"""Session-scoped fixtures shared by every test package: one throwaway PostgreSQL server per
test process, for the tests that run on both repository backends. (The one local Spark, `spark`,
is in the top-level conftest.py: the documentation's examples share it.)

``repo_location`` is parametrised over ``BACKENDS``: a test using it is a contract both backends
must meet. ``postgres_location`` gives a test (or a wider-scoped fixture) a schema of its own.

Every Spark a test starts in another process (``anomaly serve``, a scan, a script) runs its JVM
as the session's does (`conftest.session_conf`): C1 only, serial collector, the class archive.
The top-level conftest.py sets them in the environment spark-submit reads, so that children
inherit them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import JVM
from repository.backends.postgres.cluster import TEST_SETTINGS, TemporaryCluster, find_bindir

BACKENDS = ("duckdb", "postgresql")


def child_jvm_env() -> dict[str, str]:
    """What a test that gives a child process an environment of its own adds to it, so that the
    child's JVMs run as every other test JVM does: this run's JVM options, which
    `conftest.pytest_configure` sets after this module is imported, so read when called."""
    return {
        name: os.environ.get(name, JVM) for name in ("SPARK_SUBMIT_OPTS", "SPARK_LAUNCHER_OPTS")
    }


@pytest.fixture(scope="session")
def postgres() -> Iterator[TemporaryCluster]:
    """A PostgreSQL server for this test process (each xdist worker starts its own)."""
    bindir = find_bindir()
    if bindir is None:
        pytest.skip(
            "PostgreSQL server binaries not found in /usr/lib/postgresql/<version>/bin: install "
            "Debian's postgresql package to run the PostgreSQL backend tests"
        )
    with TemporaryCluster(bindir, TEST_SETTINGS) as cluster:
        cluster.create_database("repositories")
        before = os.environ.get("PGPASSWORD")
        os.environ["PGPASSWORD"] = cluster.password  # as users should: never in the URL
        try:
            yield cluster
        finally:
            if before is None:
                os.environ.pop("PGPASSWORD", None)
            else:
                os.environ["PGPASSWORD"] = before


def postgres_location(cluster: TemporaryCluster) -> str:
    """The URL of a new, empty schema: a repository of its own."""
    schema = f"repo_{uuid.uuid4().hex[:12]}"
    cluster.execute(f"CREATE SCHEMA {schema}", "repositories")
    return cluster.url("repositories", schema)


@pytest.fixture(params=BACKENDS)
def repo_location(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """Where a new repository goes: a DuckDB file, or a PostgreSQL schema."""
    if request.param == "duckdb":
        return tmp_path / "metrics.duckdb"
    return postgres_location(request.getfixturevalue("postgres"))
