"""Rows kept until their windows close: Parquet directories per side and micro-batch.

Streaming accuracy cannot merge states batch by batch: a source row unmatched in one batch may
be matched by a target row of a later one. So the rows of open windows are kept, one directory
per side and batch (``<side>/batch-<id>-upto-<newest window>``): a replayed batch deletes and
rewrites its own directories, so no row is kept twice, and a directory is deleted once every
window its rows can count for has closed. Paths go through Hadoop's FileSystem, so any path
Spark writes (local, HDFS, object stores) works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType


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

    def directories(self, side: str) -> dict[str, tuple[int, int]]:
        """Directory path -> (batch id, newest window) of one side."""
        fs, root = self._fs(f"{self.path}/{side}")
        if not fs.exists(root):
            return {}
        found = {}
        for status in fs.listStatus(root):
            name = status.getPath().getName()
            parts = name.split("-upto-")
            if name.startswith("batch-") and len(parts) == 2:
                found[f"{self.path}/{side}/{name}"] = (int(parts[0][6:]), int(parts[1]))
        return found

    def write(self, df: DataFrame, side: str, batch_id: int, newest: int | None) -> None:
        """Replace the rows `batch_id` keeps of `side` (none when `newest` is None)."""
        for path, (batch, _) in self.directories(side).items():
            if batch == batch_id:  # an earlier attempt of this batch
                self._delete(path)
        if newest is not None:
            df.write.mode("overwrite").parquet(f"{self.path}/{side}/batch-{batch_id}-upto-{newest}")

    def read(self, side: str, schema: StructType) -> DataFrame:
        """Every kept row of `side` (an empty frame of `schema` when there is none)."""
        paths = sorted(self.directories(side))
        if not paths:
            return self.spark.createDataFrame([], schema)
        return self.spark.read.schema(schema).parquet(*paths)

    def drop(self, side: str, done: Callable[[int], bool]) -> int:
        """Delete the directories of `side` whose newest window is `done`; returns how many."""
        doomed = [path for path, (_, newest) in self.directories(side).items() if done(newest)]
        for path in doomed:
            self._delete(path)
        return len(doomed)

    def _delete(self, path: str) -> None:
        fs, hadoop_path = self._fs(path)
        fs.delete(hadoop_path, True)
