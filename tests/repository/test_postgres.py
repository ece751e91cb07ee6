"""What only the PostgreSQL backend has: URLs, credentials, a server that can be away, pooled
connections, the write lock and readers that never wait (the rest is the shared contract)."""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time
import traceback
from collections.abc import Iterator
from urllib.parse import quote

import psycopg
import pytest

from repository import (
    MetricsRepository,
    RepositoryAuthenticationError,
    RepositoryError,
    RepositoryLockedError,
    RepositoryOpenError,
    RepositoryUnavailableError,
    RepositoryURLError,
    ResultKey,
    UnstorableValueError,
)
from repository.backends import describe
from repository.backends.postgres.backend import WRITE_LOCK
from repository.backends.postgres.cluster import TemporaryCluster
from tests.repository.conftest import key, postgres_location, size

SECRET = "Secret-Pass-4711"  # a wrong password, sought in every error and log record


def _no_secret(error: BaseException, records: list[logging.LogRecord], secret: str) -> None:
    """The password is nowhere: not in the error, its causes, its traceback or any log record."""
    texts = ["".join(traceback.format_exception(error)), repr(error)]
    texts += [record.getMessage() for record in records]
    texts += [str(record.args) for record in records]
    assert not [text for text in texts if secret in text]


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> Iterator[list[logging.LogRecord]]:
    with caplog.at_level(logging.DEBUG):
        yield caplog.records


def _url(cluster: TemporaryCluster, password: str, database: str = "repositories") -> str:
    return f"postgresql://anomaly:{quote(password)}@127.0.0.1:{cluster.port}/{database}"


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda c: _url(c, SECRET), RepositoryAuthenticationError, "password authentication"),
        (
            lambda c: f"postgresql://anomaly:{SECRET}@127.0.0.1:1/repositories",
            RepositoryUnavailableError,
            "cannot reach the PostgreSQL server .*Connection refused",
        ),
        (  # psycopg 3.3 resolves names itself and words a DNS failure its own way
            lambda c: f"postgresql://anomaly:{SECRET}@nonexistent.invalid:5432/repositories",
            RepositoryUnavailableError,
            "cannot reach the PostgreSQL server .*nonexistent.invalid",
        ),
        (
            lambda c: _url(c, c.password, "nowhere"),
            RepositoryOpenError,
            'database "nowhere" does not exist. Create the database',
        ),
        (
            lambda c: f"postgresql://anomaly:{SECRET}@127.0.0.1:port/repositories",
            RepositoryURLError,
            "not a usable PostgreSQL URL: it does not parse",
        ),
        (
            lambda c: f"postgresql://anomaly:{SECRET}%ZZ@127.0.0.1:{c.port}/repositories",
            RepositoryURLError,
            "percent-encoded",
        ),
        (
            lambda c: _url(c, SECRET) + "?sslmod=require",
            RepositoryURLError,
            "invalid URI query parameter",
        ),
        (
            lambda c: f"mysql://anomaly:{SECRET}@127.0.0.1/metrics",
            RepositoryURLError,
            "'mysql' is not a supported store",
        ),
    ],
)
def test_bad_urls_credentials_and_servers_give_clear_errors_without_the_password(
    postgres: TemporaryCluster,
    logs: list[logging.LogRecord],
    monkeypatch: pytest.MonkeyPatch,
    make: object,
    error: type[Exception],
    message: str,
) -> None:
    monkeypatch.delenv("PGPASSWORD")
    url = make(postgres)  # type: ignore[operator]
    with pytest.raises(error, match=message) as raised:
        MetricsRepository(url)
    assert "***" in str(raised.value)  # the URL is named, masked
    _no_secret(raised.value, logs, SECRET)
    _no_secret(raised.value, logs, postgres.password)
    assert isinstance(raised.value, RepositoryOpenError)


def test_a_missing_password_says_where_to_give_it(
    postgres: TemporaryCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PGPASSWORD")
    with pytest.raises(RepositoryAuthenticationError, match=r"no password supplied.*PGPASSWORD"):
        MetricsRepository(postgres.url("repositories"))


def test_a_password_in_the_url_works_and_is_never_shown(
    postgres: TemporaryCluster, logs: list[logging.LogRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PGPASSWORD")
    url = _url(postgres, postgres.password)
    with MetricsRepository(url) as repo:
        repo.save(key(0), [size(1.0)])
        assert repo.history("Size(*)").tolist() == [1.0]
        shown = [repr(repo), repo.path, describe(url)]
        repo.delete_runs(before=key(0).timestamp)
    assert all(postgres.password not in text and "anomaly:***@" in text for text in shown)
    assert not [r for r in logs if postgres.password in r.getMessage() + str(r.args)]


def test_a_search_path_without_a_schema_is_refused(postgres: TemporaryCluster) -> None:
    with pytest.raises(RepositoryOpenError, match="names no existing schema"):
        MetricsRepository(postgres.url("repositories", "no_such_schema"))


def _hold_write_lock(url: str) -> psycopg.Connection[tuple[object, ...]]:
    """A connection holding the repository's write lock (as a writer mid-save does)."""
    connection = psycopg.connect(url)  # a transaction starts with the first statement
    connection.execute(f"SELECT {WRITE_LOCK}".encode())
    return connection


def test_a_writer_waits_for_another_writer_at_most_lock_timeout_and_readers_never_wait(
    postgres: TemporaryCluster,
) -> None:
    url = postgres_location(postgres)
    repo = MetricsRepository(url, lock_timeout=0.3)
    repo.save(key(0), [size(1.0)])
    holder = _hold_write_lock(url)
    try:
        started = time.monotonic()
        with pytest.raises(RepositoryLockedError, match=r"write lock for 0\.3 s \(lock_timeout\)"):
            repo.save(key(1), [size(2.0)])
        assert time.monotonic() - started < 3
        began = time.monotonic()
        assert repo.history("Size(*)").tolist() == [1.0]  # reading needs no lock
        assert time.monotonic() - began < 1
    finally:
        holder.commit()
        holder.close()
    repo.save(key(1), [size(2.0)])
    assert repo.history("Size(*)").tolist() == [1.0, 2.0]


def test_writers_never_wait_for_readers_and_readers_keep_their_snapshot(
    postgres: TemporaryCluster,
) -> None:
    url = postgres_location(postgres)
    repo = MetricsRepository(url, lock_timeout=2)
    repo.save(key(0), [size(1.0)])
    with psycopg.connect(url) as reader:
        reader.execute(b"BEGIN ISOLATION LEVEL REPEATABLE READ")
        seen = reader.execute(b"SELECT count(*) FROM points").fetchall()
        started = time.monotonic()
        for n in range(1, 6):  # replaces, deletes and inserts under the reader's feet
            repo.save(key(n), [size(float(n))])
        repo.save(key(0), [size(10.0)])
        repo.delete_runs(before=key(1).timestamp)
        assert time.monotonic() - started < 5
        assert reader.execute(b"SELECT count(*) FROM points").fetchall() == seen
        with repo.sql() as cur:  # a read of this thread does not stop its writes either
            assert cur.execute("SELECT count(*) FROM points").fetchall() == [(4,)]
            repo.save(key(9), [size(9.0)])
    assert repo.history("Size(*)").tolist() == [2.0, 3.0, 4.0, 5.0, 9.0]


def test_threads_share_the_pool_and_lose_nothing(postgres: TemporaryCluster) -> None:
    repo = MetricsRepository(postgres_location(postgres))
    errors: list[BaseException] = []

    def work(thread: int) -> None:
        try:
            for i in range(20):
                repo.save(ResultKey(i, {"thread": str(thread)}), [size(float(i))])
                assert len(repo.history("Size(*)", tags={"thread": str(thread)})) == i + 1
        except BaseException as error:  # surfaced below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(12)]  # > pool size
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(repo.load().get()) == 12 * 20


def _save_in_child(repo: MetricsRepository) -> None:
    repo.save(ResultKey(5, {"from": "child"}), [size(5.0)])


def test_a_forked_child_opens_its_own_connections(postgres: TemporaryCluster) -> None:
    repo = MetricsRepository(postgres_location(postgres))
    repo.save(ResultKey(1, {"from": "parent"}), [size(1.0)])  # the pool is open now
    child = multiprocessing.get_context("fork").Process(target=_save_in_child, args=(repo,))
    child.start()
    child.join(timeout=60)
    assert child.exitcode == 0
    # The parent's connections were not used (or closed) by the child: they still work.
    assert repo.history("Size(*)", tags={}).tolist() == [1.0, 5.0]


def test_text_postgresql_cannot_hold_is_refused_and_nothing_is_written(
    postgres: TemporaryCluster,
) -> None:
    repo = MetricsRepository(postgres_location(postgres))
    with pytest.raises(UnstorableValueError, match="NUL") as raised:
        repo.save(ResultKey(0, {"dataset": "a\x00b"}), [size(1.0)])
    assert isinstance(raised.value, ValueError)
    with pytest.raises(UnstorableValueError, match="NUL"):
        repo.save(key(0), [size(1.0, country="a\x00b"), size(2.0)])
    assert repo.load().get() == [] and repo.datasets() == []


def test_text_columns_sort_by_code_point_whatever_the_locale(postgres: TemporaryCluster) -> None:
    url = postgres_location(postgres)
    MetricsRepository(url)
    with psycopg.connect(url) as connection:
        collations = connection.execute(
            b"SELECT DISTINCT collation_name FROM information_schema.columns "
            b"WHERE table_schema = current_schema() AND data_type = 'text' "
            b"AND table_name IN (SELECT table_name FROM information_schema.tables "
            b"WHERE table_type = 'BASE TABLE' AND table_schema = current_schema())"
        ).fetchall()
    assert collations == [("C",)]


@pytest.mark.slow
def test_a_server_that_goes_away_gives_a_clear_error_without_the_password(
    logs: list[logging.LogRecord],
) -> None:
    with TemporaryCluster() as cluster:
        cluster.create_database("metrics")
        url = cluster.url_with_password("metrics")
        repo = MetricsRepository(url, lock_timeout=1)
        repo.save(key(0), [size(1.0)])
        cluster.stop()
        for _ in range(2):  # the pooled connection is broken; then no new one can be made
            with pytest.raises(RepositoryUnavailableError, match="PostgreSQL server") as raised:
                repo.history("Size(*)")
            assert isinstance(raised.value, RepositoryError)
            _no_secret(raised.value, logs, cluster.password)
        repo.close()
