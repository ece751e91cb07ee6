"""Faults of the PostgreSQL backend found by the security and fault audit (issue 31): passwords
that are not percent-encoded, and a server that freezes mid-operation."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import threading
import time
import traceback
from collections.abc import Iterator

import pytest

from repository import (
    MetricsRepository,
    RepositoryOpenError,
    RepositoryUnavailableError,
    RepositoryURLError,
)
from repository.backends import describe
from repository.backends.postgres.cluster import TEST_SETTINGS, TemporaryCluster, find_bindir
from tests.repository.conftest import key, postgres_location, size

pytestmark = pytest.mark.faults

# Each piece of the password is distinctive: none of them may appear anywhere.
PIECES = ("Qx7Kz", "Wv8Lm", "Yt9Rp", "Hn6Bd")


@pytest.mark.parametrize("separator", ["#", "/", "?", "@", "#/?", ":"])
@pytest.mark.parametrize(
    "shape",
    [
        "postgresql://ana:{password}@db.example:5432/metrics",
        "postgresql://ana:{password}@db.example:5432/metrics?sslmode=require",
        "postgres://ana:{password}@db.example/metrics?application_name=ana@work",
        "postgresql://ana:{password}@db.example",
    ],
)
def test_a_password_with_url_delimiters_is_never_shown(separator: str, shape: str) -> None:
    password = separator.join(PIECES)
    url = shape.format(password=password)
    shown = describe(url)
    assert "ana:***@" in shown
    with pytest.raises(RepositoryOpenError) as raised:  # no network here: the host is unknown
        MetricsRepository(url, lock_timeout=1)
    text = "".join(traceback.format_exception(raised.value)) + shown
    assert not [piece for piece in PIECES if piece in text]
    if separator != ":":  # a ":" after the first one is part of the password, as libpq reads it
        assert isinstance(raised.value, RepositoryURLError)
        assert re.search("must be percent-encoded", str(raised.value))


@contextlib.contextmanager
def _frozen(cluster: TemporaryCluster, longest: float = 90.0) -> Iterator[None]:
    """The whole server stopped (``SIGSTOP`` to the postmaster and all its processes), as a hung
    host would be; thawed after the block, or after ``longest`` seconds whatever happens (so
    that a test of code that would wait forever fails instead of hanging)."""
    pids = cluster.pids()

    def signal_all(number: signal.Signals) -> None:
        for pid in pids:
            os.kill(pid, number)

    thaw = threading.Timer(longest, signal_all, [signal.SIGCONT])
    signal_all(signal.SIGSTOP)
    thaw.start()
    try:
        yield
    finally:
        thaw.cancel()
        signal_all(signal.SIGCONT)


@pytest.fixture
def own_cluster() -> Iterator[TemporaryCluster]:
    """A server of this test's own, to freeze without disturbing the other tests' server."""
    if find_bindir() is None:
        pytest.skip("PostgreSQL server binaries not found in /usr/lib/postgresql/<version>/bin")
    with TemporaryCluster(settings=TEST_SETTINGS) as cluster:
        cluster.create_database("metrics")
        yield cluster


def test_a_frozen_server_fails_a_save_within_client_timeout_and_loses_nothing(
    own_cluster: TemporaryCluster,
) -> None:
    url = own_cluster.url_with_password("metrics") + "?statement_timeout=1&client_timeout=3"
    repo = MetricsRepository(url, lock_timeout=1)
    for day in range(3):
        repo.save(key(day), [size(float(day))])
    assert repo.history("Size(*)").tolist() == [0.0, 1.0, 2.0]  # a pooled connection is idle
    with _frozen(own_cluster):
        started = time.monotonic()
        no_answer = r"for 3 s \(client_timeout\)"
        with pytest.raises(RepositoryUnavailableError, match=no_answer) as raised:
            repo.save(key(3), [size(3.0)])
        waited = time.monotonic() - started
        with pytest.raises(RepositoryUnavailableError):  # and so does a read
            repo.history("Size(*)")
    assert waited < 30, f"the save waited {waited:.1f} s for a frozen server"  # not 90 s
    assert own_cluster.password not in str(raised.value) and "***" in str(raised.value)
    assert isinstance(raised.value, ConnectionError)
    # Thawed: every acknowledged run is there, the failed one is not, and saving works again.
    assert repo.history("Size(*)").tolist() == [0.0, 1.0, 2.0]
    repo.save(key(3), [size(3.0)])
    assert MetricsRepository(url).history("Size(*)").tolist() == [0.0, 1.0, 2.0, 3.0]
    repo.close()


def test_a_statement_running_longer_than_statement_timeout_is_cancelled(
    postgres: TemporaryCluster,
) -> None:
    url = postgres_location(postgres) + "&statement_timeout=0.5"
    repo = MetricsRepository(url)
    cancelled = r"longer than 0.5 s \(statement_timeout"
    with pytest.raises(RepositoryUnavailableError, match=cancelled), repo.sql() as cur:
        cur.execute("SELECT pg_sleep(5)")
    repo.save(key(0), [size(1.0)])  # the connection is still usable
    assert repo.history("Size(*)").tolist() == [1.0]
    repo.close()


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("client_timeout=soon", "client_timeout must be a number of seconds >= 0"),
        ("statement_timeout=-1", "statement_timeout must be a number of seconds >= 0"),
        ("statement_timeout=inf", "statement_timeout must be a number of seconds >= 0"),
    ],
)
def test_bad_timeouts_in_the_url_are_refused(query: str, message: str) -> None:
    with pytest.raises(RepositoryURLError, match=message):
        MetricsRepository(f"postgresql://ana@db.example/metrics?{query}")
