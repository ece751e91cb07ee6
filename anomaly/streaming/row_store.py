"""Rows kept until their windows close: one Parquet directory per micro-batch.

Streaming accuracy cannot merge states batch by batch: a source row unmatched in one batch may
be matched by a target row of a later one. So the rows of open windows are kept, one directory
per batch (``batch-<id>-source-<newest window>-target-<newest window>``, ``none`` for a side
without rows): a replayed batch deletes and rewrites its own directory, so no row is kept
twice, and a directory is deleted once every window its rows can count for has closed. Paths
go through Hadoop's FileSystem, so any path Spark writes (local, HDFS, object stores) works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType


Newest = dict[str, int | None]
"""Side (``source``, ``target``) -> the newest window a directory's rows of that side count for."""


class RowStore:
    """Parquet directories under `path`, written and read with `spark`."""

    def __init__(self, spark: SparkSession, path: str) -> None:
        self.spark = spark
        self.path = path.rstrip("/")

    def _fs(self, path: str) -> tuple[Any, Any]:
        spark: Any = self.spark  # the JVM gateway of a classic session
        hadoop_path = spark._jvm.org.apache.hadoop.fs.Path(path)
        conf = spark._jsc.hadoopConfiguration()
        return hadoop_path.getFileSystem(conf), hadoop_path

    def directories(self) -> dict[str, tuple[int, Newest]]:
        """Directory path -> (batch id, newest window per side)."""
        fs, root = self._fs(self.path)
        if not fs.exists(root):
            return {}
        found = {}
        for status in fs.listStatus(root):
            name = status.getPath().getName()
            parts = name.split("-")
            if len(parts) == 6 and parts[0] == "batch" and parts[2:5:2] == ["source", "target"]:
                newest = {"source": _number(parts[3]), "target": _number(parts[5])}
                found[f"{self.path}/{name}"] = (int(parts[1]), newest)
        return found

    def write(self, df: DataFrame, batch_id: int, newest: Newest) -> None:
        """Replace the rows `batch_id` keeps (none when no side has a newest window)."""
        for path, (batch, _) in self.directories().items():
            if batch == batch_id:  # an earlier attempt of this batch
                self._delete(path)
        if any(v is not None for v in newest.values()):
            name = f"batch-{batch_id}-source-{_text(newest['source'])}-target-"
            df.write.mode("overwrite").parquet(f"{self.path}/{name}{_text(newest['target'])}")

    def read(self, schema: StructType) -> DataFrame | None:
        """Every kept row (of `schema`), or None when nothing is kept."""
        paths = sorted(self.directories())
        return self.spark.read.schema(schema).parquet(*paths) if paths else None

    def drop(self, done: Callable[[int], bool]) -> int:
        """Delete the directories whose newest windows of both sides are `done`."""
        doomed = [
            path
            for path, (_, newest) in self.directories().items()
            if all(v is None or done(v) for v in newest.values())
        ]
        for path in doomed:
            self._delete(path)
        return len(doomed)

    def _delete(self, path: str) -> None:
        fs, hadoop_path = self._fs(path)
        fs.delete(hadoop_path, True)


def _text(window: int | None) -> str:
    # A '-' inside a name would split it: negative windows (before 1970) are written as 'm...'.
    return "none" if window is None else str(window).replace("-", "m")


def _number(text: str) -> int | None:
    return None if text == "none" else int(text.replace("m", "-"))
