"""What every test path shares: one local Spark per test process, and the documentation's pages.

`spark` lives here, above tests/ and docs/, so that the test suite, the packages' doctests and
the code blocks of README.md and docs/*.md all use the same session (one JVM per process).
README.md and docs/*.md are collected as tests by Sybil; tests/test_docs.py says why and how.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

from tests import fast_lane
from tests.class_archive import archive_options
from tests.test_docs import collect_page, doc_folder, doc_page, doc_page_of

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = [
    "doc_folder",
    "doc_page",
    "pytest_collect_file",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_report_header",
    "spark",
]

settings.register_profile(
    "suite", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))
"""A law holds or not whatever the machine's load: the suite runs two workers beside child JVMs
on 2 cores, where Hypothesis' timing checks (a 200 ms deadline per example, slow generation)
failed laws that held. Every other setting is Hypothesis' default, and ``print_blob`` prints
the line that reproduces a failure."""


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkSession]:
    """One local Spark for the whole session; only tests that ask for it start a JVM.

    The JVM starts in a folder of its own: what Spark writes relative to its working directory
    (spark-warehouse, streaming checkpoints given as relative paths) stays out of the checkout.
    """
    from anomaly.spark import build_session

    before = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("spark"))
    try:
        session = build_session(master="local[2]", conf=session_conf())
    finally:
        os.chdir(before)
    yield session
    session.stop()


def session_conf() -> dict[str, str]:
    """Settings for a test session: small data, many short jobs, one JVM per worker.

    The JVM runs its C1 compiler only (C2 optimises loops the tests never run long enough to
    repay it) with the serial collector: on 56 Spark tests run side by side with the default
    JVM, 187 -> 113 CPU s (JVM, its Python workers and pytest), the same results. Generated code
    off saves another fifth but changes results (``spark.catalog.listTables()`` and run-time
    errors fail differently without it), so it stays on.
    """
    from anomaly.spark import DEFAULT_CONF

    return {
        "spark.sql.shuffle.partitions": "2",
        "spark.driver.extraJavaOptions": f"{DEFAULT_CONF['spark.driver.extraJavaOptions']} {JVM}",
    }


JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
"""The test JVMs' options (`session_conf`); a test's subprocess JVM gets them through the
environment (`pytest_configure`)."""
ARCHIVE_HEADER = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    """Every JVM the tests start, in this process or a child, runs with `JVM` and maps the class
    archive (tests/class_archive.py), through the environment spark-submit reads.

    ``SPARK_SUBMIT_OPTS`` goes to Spark's JVM, ``SPARK_LAUNCHER_OPTS`` to the small JVM that
    builds its command line: a one-shot ``anomaly scan`` 22-23 -> 16 CPU s with `JVM`. xdist's
    workers inherit the controller's environment, so only the controller writes the archive.
    """
    if hasattr(config, "workerinput"):
        return
    archive, header = archive_options(JVM)
    config.stash[ARCHIVE_HEADER] = header
    os.environ.setdefault("SPARK_SUBMIT_OPTS", f"{JVM} {archive}".strip())  # a developer's own
    os.environ.setdefault("SPARK_LAUNCHER_OPTS", JVM)  # options win


def pytest_report_header(config: pytest.Config) -> str | None:
    """Whether this run's JVMs share the class archive, and whether it was written now."""
    return config.stash.get(ARCHIVE_HEADER, None)


pytest_collect_file = collect_page


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects on the marks added here
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark tests ``slow``, ``spark`` and ``fast`` (tests/fast_lane.py says which), group them
    for pytest-xdist, and start the longest first.

    Fault injection (frozen servers, full disks, kills) waits out timeouts by design: it is
    slow too. The fast lane (``-m fast``, README) is chosen in tests/fast_lane.py.
    """
    lane = "fast" in (config.getoption("markexpr", "") or "")
    collected: list[fast_lane.Collected] = []
    for item in items:
        if item.get_closest_marker("faults") and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
        uses_spark = "spark" in getattr(item, "fixturenames", ())
        if uses_spark:
            item.add_marker(pytest.mark.spark)
        fast = fast_lane.selected(item.nodeid, uses_spark, item.get_closest_marker("slow"))
        if fast:
            item.add_marker(pytest.mark.fast)
        if not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(_group(item, lane and fast and uses_spark)))
        collected.append(fast_lane.Collected(item.nodeid, uses_spark, fast))
    config.stash[fast_lane.COLLECTED] = collected
    items[:] = _longest_first(items)


def _group(item: pytest.Item, smoke: bool) -> str:
    """The tests one xdist worker runs together, in collection order, with `item`.

    A page's blocks share its namespace. The fast lane's Spark tests share one JVM (in the full
    run both workers start one anyway). Every other test goes with its module: a module-scoped
    fixture is then built once, not once per worker and again each time a worker came back to
    the module (on the full run 100 of 2,013 s of tests were such repeated set-ups).
    """
    if smoke:
        return "spark smoke"
    return doc_page_of(item) or item.nodeid.split("::")[0]


def _longest_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """`items`, each group's together, groups with a ``slow`` test first, then the pages'.

    pytest-xdist hands groups out in this order (``--no-loadscope-reorder`` in pyproject.toml:
    its default puts groups of many tests first, minute-long single tests last): a worker asks
    for more as it runs dry, so no worker starts a minute-long test while the other is done.
    """
    rank: dict[str, int] = {}
    for item in items:
        group = _group_of(item)
        kind = 0 if item.get_closest_marker("slow") else 1 if doc_page_of(item) else 2
        rank[group] = min(rank.get(group, kind), kind)
    order = {group: n for n, group in enumerate(rank)}  # first seen, first handed out
    return sorted(items, key=lambda item: (rank[g := _group_of(item)], order[g]))


def _group_of(item: pytest.Item) -> str:
    marker = item.get_closest_marker("xdist_group")
    return str(marker.args[0]) if marker and marker.args else item.nodeid
