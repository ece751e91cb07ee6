"""The live UI's snapshot, built once and shared by concurrent requests.

A DuckDB file's snapshot is rebuilt when the file changed (inode, size, modification time). A
PostgreSQL repository has no file to watch: its snapshot is rebuilt at most every ``refresh``
seconds. Either way one thread rebuilds while the others keep answering with the snapshot they
had (each request waited behind one lock for a rebuild of its own before: page loads took a median
58 s under 200 concurrent requests on PostgreSQL); only the first build is waited for.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from typing import Any

from anomaly.report.snapshot import collect_snapshot
from repository import MetricsRepository
from repository.backends import is_url

POSTGRES_REFRESH = 5.0
"""Seconds a PostgreSQL repository's snapshot is served before it is rebuilt."""


class SnapshotCache:
    """The report snapshot of a repository, rebuilt only when it may have changed.

    Parameters
    ----------
    repo, tags, title
        What `collect_snapshot` is given.
    refresh
        Seconds a snapshot of a repository without a file is kept (``None``: `POSTGRES_REFRESH`
        on PostgreSQL, 0, rebuilt every time, in memory).

    Examples
    --------
    >>> repo = MetricsRepository(":memory:")
    >>> cache = SnapshotCache(repo)
    >>> cache.get()["series"], cache.builds
    ([], 1)
    """

    def __init__(
        self,
        repo: MetricsRepository,
        tags: Mapping[str, str] | None = None,
        title: str | None = None,
        refresh: float | None = None,
    ) -> None:
        self.repo, self.tags, self.title = repo, dict(tags or {}), title
        default = POSTGRES_REFRESH if is_url(repo.path) else 0.0
        self.refresh = default if refresh is None else refresh
        self.builds = 0
        """How many snapshots were built."""
        self._state = threading.Condition()
        self._building = False
        self._key: tuple[int, ...] | None = None
        self._built_at = 0.0
        self._snapshot: dict[str, Any] | None = None

    def get(self) -> dict[str, Any]:
        """The snapshot: the current one, or one being replaced while another thread rebuilds
        it; built here when it is stale and no other thread builds it."""
        key = self._file_key()
        with self._state:
            while True:
                if self._snapshot is not None and self._fresh(key):
                    return self._snapshot
                if not self._building:
                    self._building = True
                    break
                if self._snapshot is not None:
                    return self._snapshot  # another thread rebuilds it: no waiting
                self._state.wait()
        snapshot: dict[str, Any] | None = None
        try:
            snapshot = collect_snapshot(self.repo, tags=self.tags, title=self.title)
            return snapshot
        finally:
            with self._state:
                self._building = False
                if snapshot is not None:
                    self._snapshot, self._key = snapshot, key
                    self._built_at = time.monotonic()
                    self.builds += 1
                self._state.notify_all()

    def _fresh(self, key: tuple[int, ...] | None) -> bool:
        if key is not None:
            return key == self._key
        return time.monotonic() - self._built_at < self.refresh

    def _file_key(self) -> tuple[int, ...] | None:
        if self.repo.path == ":memory:" or is_url(self.repo.path):
            return None
        try:
            info = os.stat(self.repo.path)
        except OSError:
            return None
        return (info.st_ino, info.st_size, info.st_mtime_ns)
