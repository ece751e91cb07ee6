"""A DuckDB repository file on a failing disk (issue 31, findings 13, 14 and 23): cut mid-way,
on a full disk, on a read-only mount, and beside a killed compaction's copy. Every failure is a
documented error naming the file and what to do; nothing acknowledged is lost.

The full disk and the read-only mount are real: a small ``tmpfs`` and a read-only bind mount
(root can write through ``chmod`` but not through a read-only mount). Without the right to
mount, those tests are skipped.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from repository import (
    CorruptRepositoryError,
    MetricRecord,
    MetricsRepository,
    RepositoryFullError,
    RepositoryIOError,
    RepositoryLockedError,
)
from tests.repository.conftest import ROOT, UNDO_V6, key, raw_sql, size

pytestmark = pytest.mark.faults


def _means(n: int, value: float) -> list[MetricRecord]:
    return [MetricRecord("Column", f"c{i}", "Mean", f"Mean(c{i})", value + i) for i in range(n)]


@contextlib.contextmanager
def _mounted(target: Path, *how: list[str]) -> Iterator[Path]:
    """Run the ``mount`` commands ``how`` (the last argument of each is ``target``); unmount
    after; skip the test where this process may not mount."""
    target.mkdir(exist_ok=True)
    done = 0
    try:
        for command in how:
            result = subprocess.run(["mount", *command, str(target)], capture_output=True)
            if result.returncode != 0:
                pytest.skip(f"cannot mount here ({result.stderr.decode().strip()})")
            done += 1
        yield target
    finally:
        for _ in range(done and 1):
            subprocess.run(["umount", "-l", str(target)], capture_output=True)


def test_a_file_cut_mid_way_is_a_corrupt_repository_error_naming_it(tmp_path: Path) -> None:
    whole = tmp_path / "whole.duckdb"  # written once, cut at each fraction into a file of its own
    with MetricsRepository(whole) as repo:
        for day in range(60):
            repo.save(key(day), _means(50, day))
    data = whole.read_bytes()
    for kept in (0.5, 0.2, 0.01):
        cut = tmp_path / f"cut-{kept}.duckdb"
        cut.write_bytes(data[: int(len(data) * kept)])
        with pytest.raises(CorruptRepositoryError) as raised:
            MetricsRepository(cut).load().to_pandas()
        message = str(raised.value)
        assert str(cut) in message and "Restore it from a backup" in message, (kept, message)


def _fill(disk: Path, leave: int) -> Path:
    """A file filling ``disk`` up to ``leave`` free bytes (shrink it to free space)."""
    filler = disk / "filler"
    with filler.open("wb") as out, contextlib.suppress(OSError):
        while True:  # until ENOSPC
            out.write(b"\xff" * 65536)
            out.flush()
    filler.chmod(0o600)
    with filler.open("r+b") as out:
        out.truncate(max(0, filler.stat().st_size - leave))
    return filler


def test_a_full_disk_fails_a_save_with_a_full_error_and_keeps_every_acknowledged_run(
    tmp_path: Path,
) -> None:
    with _mounted(tmp_path / "disk", ["-t", "tmpfs", "-o", "size=16m", "tmpfs"]) as disk:
        path = disk / "metrics.duckdb"
        repo = MetricsRepository(path)
        repo.save(key(0), _means(50, 0))
        filler = _fill(disk, leave=512 * 1024)
        acknowledged = 1
        with pytest.raises(RepositoryFullError) as raised:
            for day in range(1, 5000):
                repo.save(key(day), _means(50, day))
                acknowledged += 1
        message = str(raised.value)
        assert str(path) in message and "Free space" in message
        assert isinstance(raised.value, OSError)
        assert len(repo.history("Mean(c1)")) == acknowledged
        assert len(MetricsRepository(path).history("Mean(c1)")) == acknowledged
        filler.unlink()  # space freed: it works again
        repo.save(key(acknowledged), _means(50, acknowledged))
        assert len(MetricsRepository(path).history("Mean(c1)")) == acknowledged + 1


def test_a_read_only_mount_can_be_read_and_a_write_says_why_not(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    with MetricsRepository(source / "metrics.duckdb") as repo:
        repo.save(key(0), [size(7.0)])
    with _mounted(tmp_path / "ro", ["--bind", str(source)], ["-o", "remount,bind,ro"]) as ro:
        with pytest.raises(OSError, match="Read-only file system"):
            (ro / "probe").write_text("root cannot write here")
        repo = MetricsRepository(ro / "metrics.duckdb")
        assert repo.history("Size(*)").tolist() == [7.0]
        assert repo.load().to_pandas()["value"].tolist() == [7.0]
        with pytest.raises(RepositoryIOError) as raised:
            repo.save(key(1), [size(8.0)])
        assert str(ro / "metrics.duckdb") in str(raised.value)
        assert "copy the repository somewhere writable" in str(raised.value)


def test_a_read_only_mount_without_a_lock_file_can_be_read(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    with MetricsRepository(source / "metrics.duckdb") as repo:
        repo.save(key(0), [size(7.0)])
    (source / "metrics.duckdb.lock").unlink()  # e.g. copied without it
    with _mounted(tmp_path / "ro", ["--bind", str(source)], ["-o", "remount,bind,ro"]) as ro:
        assert MetricsRepository(ro / "metrics.duckdb").history("Size(*)").tolist() == [7.0]


def test_an_older_repository_on_a_read_only_mount_says_it_needs_migrating(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    with MetricsRepository(source / "metrics.duckdb") as repo:
        repo.save(key(0), [size(7.0)])
    raw_sql(source / "metrics.duckdb", *UNDO_V6, "DELETE FROM schema_version WHERE version >= 6")
    migrate = r"must be migrated .* once where it can be written"
    with (
        _mounted(tmp_path / "ro", ["--bind", str(source)], ["-o", "remount,bind,ro"]) as ro,
        pytest.raises(RepositoryIOError, match=migrate),
    ):
        MetricsRepository(ro / "metrics.duckdb")
    assert MetricsRepository(source / "metrics.duckdb").history("Size(*)").tolist() == [7.0]


# Compacts the repository; the test kills it once the compaction's copy appears.
COMPACTOR = """
import sys
from repository import MetricsRepository
MetricsRepository(sys.argv[1]).compact()
"""


def test_a_killed_compactions_copy_is_removed_at_the_next_open(repo_path: Path) -> None:
    # 30,000 points in 30 runs (150 runs of 200 took five times as long to write, and the
    # copy's size, which gives the kill its time, is the same).
    with MetricsRepository(repo_path) as repo:
        for day in range(30):
            repo.save(key(day), _means(1000, day))
    copies = lambda: list(repo_path.parent.glob(f"{repo_path.name}.compact-*"))  # noqa: E731
    for _ in range(5):  # the kill must land while the copy exists
        process = subprocess.Popen([sys.executable, "-c", COMPACTOR, str(repo_path)], cwd=ROOT)
        deadline = time.monotonic() + 60
        while not copies() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.001)
        process.kill()
        process.wait()
        if copies():
            break
    assert copies(), "the compactor finished before it could be killed"
    repo = MetricsRepository(repo_path)
    assert not copies()
    assert len(repo.history("Mean(c1)")) == 30


def test_a_running_compactions_copy_is_left_alone(repo_path: Path) -> None:
    MetricsRepository(repo_path).save(key(0), [size(1.0)])
    copy = Path(f"{repo_path}.compact-0123")
    copy.write_bytes(b"a copy being written")
    # Another process holds the repository exclusively, as a compaction does while it copies.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from repository.backends.duckdb.locking import FileLock; "
            f"FileLock({str(repo_path)!r}).acquire(exclusive=True, deadline=time.monotonic() "
            "+ 9, timeout=9); print('held', flush=True); sys.stdin.read()",
        ],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(RepositoryLockedError):
            MetricsRepository(repo_path, lock_timeout=0.2)
        assert copy.exists()
    finally:
        holder.kill()
        holder.wait()
    MetricsRepository(repo_path)
    assert not copy.exists()
