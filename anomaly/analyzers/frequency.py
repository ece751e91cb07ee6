"""Frequency states (value -> count tables) and the base of analyzers computed from them.

The runner computes one frequency table per (columns, where, nulls) set and derives every metric of
that set from it: in Spark with one shared aggregation, or in Python from merged states.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pyarrow as pa

from anomaly.analyzers.base import Analyzer
from anomaly.analyzers.state import State, check_same_kind
from anomaly.metrics import MetricValue

if TYPE_CHECKING:
    from pyspark.sql import Column

COUNT = "_cnt"


def value_column(i: int) -> str:
    """Positional name of the i-th value column in a frequency table."""
    return f"_c{i}"


@dataclass(frozen=True, eq=False)
class FrequencyState(State):
    """Counts per distinct value tuple: an Arrow table with ``_c0.._cN`` and ``_cnt``.

    Merging is an outer join on the values with summed counts. ``None`` is the identity.

    Examples
    --------
    >>> a = FrequencyState(pa.table({"_c0": ["x", "y"], "_cnt": [2, 1]}))
    >>> b = FrequencyState(pa.table({"_c0": ["y", "z"], "_cnt": [3, 1]}))
    >>> sorted(a.merge(b).table.to_pylist(), key=lambda r: r["_c0"])
    [{'_c0': 'x', '_cnt': 2}, {'_c0': 'y', '_cnt': 4}, {'_c0': 'z', '_cnt': 1}]
    """

    kind: ClassVar[str] = "frequencies"
    table: pa.Table | None

    @classmethod
    def identity(cls) -> FrequencyState:
        return cls(None)

    def merge(self, other: FrequencyState) -> FrequencyState:
        check_same_kind(self, other)
        if other.table is None or other.table.num_rows == 0:
            return self
        if self.table is None or self.table.num_rows == 0:
            return other
        both = pa.concat_tables([self.table, other.table], promote_options="permissive")
        keys = [c for c in both.column_names if c != COUNT]
        merged = both.group_by(keys, use_threads=False).aggregate([(COUNT, "sum")])
        return FrequencyState(merged.rename_columns([*keys, COUNT]).select([*keys, COUNT]))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FrequencyState):
            return NotImplemented
        return self.sorted_rows() == other.sorted_rows()

    def __hash__(self) -> int:
        return hash(tuple(map(str, self.sorted_rows())))

    def sorted_rows(self) -> list[tuple[Any, ...]]:
        """The (values..., count) rows in a canonical order, for comparisons."""
        if self.table is None:
            return []
        # Every NaN becomes the one `math.nan` object: containers compare items by identity first,
        # so NaN keys compare equal (as Spark groups them) although NaN != NaN.
        rows = [tuple(_same_nan(v) for v in r.values()) for r in self.table.to_pylist()]
        return sorted(rows, key=lambda r: tuple((v is None, str(v)) for v in r))

    def counts(self) -> np.ndarray:
        """The count column as int64 (empty for the identity)."""
        if self.table is None:
            return np.zeros(0, dtype=np.int64)
        return self.table.column(COUNT).to_numpy().astype(np.int64)

    def payload(self) -> bytes:
        sink = io.BytesIO()
        empty = pa.table({COUNT: pa.array([], pa.int64())})
        table = self.table if self.table is not None else empty
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        return sink.getvalue()

    @classmethod
    def from_payload(cls, data: bytes) -> FrequencyState:
        table = pa.ipc.open_stream(data).read_all()
        return cls(table if table.num_columns > 1 else None)


def _same_nan(value: Any) -> Any:
    return math.nan if isinstance(value, float) and math.isnan(value) else value


@dataclass(frozen=True)
class FrequencySummary:
    """What most frequency metrics need: distinct values, rows, singletons, sum(c * ln c)."""

    distinct: int
    rows: int
    singletons: int
    c_log_c: float

    @staticmethod
    def aggregations() -> list[Column]:
        """The Spark aggregates over a frequency table, in field order."""
        from pyspark.sql import functions as F

        cnt = F.col(COUNT)
        return [
            F.count(F.lit(1)),
            F.sum(cnt),
            F.sum(F.when(cnt == 1, 1).otherwise(0)),
            F.sum(cnt * F.log(cnt)),
        ]

    @classmethod
    def from_row(cls, values: Sequence[Any]) -> FrequencySummary:
        distinct, rows, singletons, c_log_c = values[:4]
        return cls(int(distinct or 0), int(rows or 0), int(singletons or 0), float(c_log_c or 0))

    @classmethod
    def from_state(cls, state: FrequencyState) -> FrequencySummary:
        counts = state.counts()
        return cls(
            int(counts.size),
            int(counts.sum()),
            int((counts == 1).sum()),
            float((counts * np.log(np.maximum(counts, 1))).sum()),
        )


class FrequencyAnalyzer(Analyzer[FrequencyState]):
    """An analyzer computed from the frequencies of its columns' value tuples.

    Rows where every column is null are left out (as Deequ), unless `keep_nulls`.
    """

    keep_nulls: ClassVar[bool] = False

    def empty_state(self) -> FrequencyState:
        return FrequencyState.identity()

    def window_columns(self, groups: Sequence[str]) -> dict[str, Column]:
        """Extra per-row columns (windows) the Spark summary needs; none by default."""
        return {}

    def aggregations(self) -> list[Column]:
        """Spark aggregates over the frequency table beyond `FrequencySummary`; none by default."""
        return []

    def metric_from_summary(self, summary: FrequencySummary, extra: Sequence[Any]) -> MetricValue:
        """The metric from the shared summary and this analyzer's own aggregates."""
        raise NotImplementedError

    def extra_from_state(self, state: FrequencyState) -> Sequence[Any]:
        """The Python equivalent of `aggregations` on a state's table."""
        return ()

    def compute_metric(self, state: FrequencyState) -> MetricValue:
        return self.metric_from_summary(
            FrequencySummary.from_state(state), self.extra_from_state(state)
        )

    def checked_rows(self, summary: FrequencySummary) -> int:
        """The row count, failing when there is nothing to measure."""
        if summary.rows == 0:
            raise self.nothing_to_measure("non-null values")
        return summary.rows


def entropy(summary: FrequencySummary) -> float:
    """Shannon entropy (nats) from the summary: ln N - sum(c ln c) / N."""
    return math.log(summary.rows) - summary.c_log_c / summary.rows
