"""The stacked scan: every slot analyzer of a run from one Spark aggregation.

Up to `WIDE_SLOTS` slots are aggregated side by side in one row. Beyond, each row of the data
becomes one row per `CHUNK` slots (Spark's ``stack``), and one aggregation grouped by chunk (and
the run's groups) computes the same aggregates for every slot position. Neither the Spark job
count nor the generated code grows with the number of columns: one wide aggregation over 200
columns' aggregates outgrew what the JVM compiles and cost several times more per value than at
50 (``bench/monitors.py`` measures both). Beyond `PASS_SLOTS` slots, the slots are split into
passes of at most that many, one aggregation each: the plan and the driver's memory stay bounded
(10,000 columns in one aggregation ran the JVM out of memory after 6 minutes), and each pass
reads only its own columns. An ungrouped input Spark estimates as small (`SMALL_INPUT`) is
stacked at any width: a wide row's code is generated again in every task, which costs more than
stacking its few rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anomaly.analyzers.columns import col
from anomaly.analyzers.sketch_state import KLL_K
from anomaly.analyzers.slot import TOP_VALUES, Slot, SlotAnalyzer, SlotValues
from anomaly.engine.shared_scan import Outcome, group_column
from anomaly.errors import job_error_message
from anomaly.metrics import group_key
from anomaly.spark import WIDE_CONF, is_connect, raise_if_unavailable, runtime_conf

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

WIDE_SLOTS = 64
"""Up to this many slots are aggregated as one wide row, unstacked: the generated code still
fits, and the rows are not multiplied."""
PASS_SLOTS = 200
"""Slots per aggregation: one pass over 400 columns took 124 s where passes of 100 took 68 s
(800: 163 s and 104 s; both on a loaded 2-core machine): the plan grows faster than linearly."""
CHUNK = 1
"""Slots per stacked row beyond `WIDE_SLOTS`: in ``bench/monitors.py``'s trials at 200 columns,
one slot per row beat 10, 25 and 50 (2x), and one wide row (4x)."""
SMALL_INPUT = 8 << 20
"""Ungrouped inputs Spark estimates under this many bytes are stacked at any width (`wide_limit`).
At 30 columns (loaded 2-core machine, one run each): 360 KB (1,500 rows) stacked 1.7-1.9 s,
wide 5.9-12.6 s; 7 MB (50,000 rows) 12.2 s both; 63 MB (500,000 rows) stacked 90 s, wide 86 s.
A day of the monitors demo (1,500 rows of a 4.8 MB file), days side by side: 2.2-3.7 -> 0.8-1.4 s
(six days: 17.6 -> 6.5 s, 2.7x, ``bench/small_input_layout.py``; 30.0 -> 6.6 s at load 10); the
whole demo 78 -> 61-70 s, the same metrics (the KLL quantiles vary from run to run, as before).
Grouped, stacking multiplies the keys by the slots (the demo's backfill: 46 days x 30 slots): past
128 keys Spark's object hash aggregate falls back to sorting, and stacked took 12.3 s, wide 7.3."""
HLL_LG_K = 12
"""Sketch size of the distinct counts, as `ApproxCountDistinct` (1.6% error)."""
TRACKED = 1000
"""Items the top-values sketch tracks: counts are exact while a slot has fewer distinct texts."""
CHUNK_COLUMN = "__chunk"
TYPES = {"key": "bigint", "number": "double", "text": "string", "flag": "int"}


@dataclass(frozen=True)
class _Layout:
    """Which analyzer sits at which (chunk, position), and the inputs each position carries."""

    members: list[list[tuple[SlotAnalyzer[Any], Slot]]]
    inputs: list[tuple[str, ...]]

    @classmethod
    def of(cls, slotted: list[tuple[SlotAnalyzer[Any], Slot]], chunk: int, wide: int) -> _Layout:
        # Slots with the same inputs side by side: positions carry few inputs nobody reads.
        ordered = sorted(slotted, key=lambda pair: pair[1].inputs)
        width = max(len(ordered) if len(ordered) <= wide else chunk, 1)
        members = [ordered[i : i + width] for i in range(0, len(ordered), width)] or [[]]
        inputs = [
            tuple(n for n in TYPES if any(n in c[j][1].inputs for c in members if j < len(c)))
            for j in range(width)
        ]
        return cls(members, inputs)

    def values(self, k: int) -> list[Column]:
        """Chunk `k`'s inputs in position order (typed nulls where no analyzer reads one)."""
        from pyspark.sql import functions as F

        values = []
        for j, names in enumerate(self.inputs):
            slot = self.members[k][j][1] if j < len(self.members[k]) else Slot()
            for name in names:
                value = _input(slot, name)
                values.append((F.lit(None) if value is None else value).cast(TYPES[name]))
        return values

    def names(self) -> list[str]:
        return [f"__{name}{j}" for j, names in enumerate(self.inputs) for name in names]


def stacked_scan(
    df: DataFrame,
    analyzers: Sequence[SlotAnalyzer[Any]],
    groups: Sequence[str],
    chunk: int = CHUNK,
    wide: int | None = None,
    per_pass: int = PASS_SLOTS,
) -> Outcome:
    """States of all `analyzers` from one aggregation per `per_pass` of them (one row of up to
    `wide` slots, default `wide_limit`, else `chunk` slots per stacked row); when a job fails,
    the failing analyzers are found by halving (their errors become failed metrics). A JVM that
    ran out of memory or died raises `SparkUnavailableError` at once: halving would only wait on
    it."""
    if wide is None:
        wide = wide_limit(df, groups)
    if len(analyzers) > per_pass:
        outcome: Outcome = {}
        for start in range(0, len(analyzers), per_pass):
            part = analyzers[start : start + per_pass]
            outcome.update(stacked_scan(df, part, groups, chunk, wide, per_pass))
        return outcome
    if not analyzers:
        return {}
    try:
        return _aggregate(df, analyzers, groups, chunk, wide)
    except Exception as error:  # a runtime error in one slot must not sink every metric
        raise_if_unavailable(error, f"computing {len(analyzers)} column slots in one pass")
        if len(analyzers) == 1:
            return {(analyzers[0], ()): job_error_message(error)}
    middle = len(analyzers) // 2
    return {
        **stacked_scan(df, analyzers[:middle], groups, chunk, wide, per_pass),
        **stacked_scan(df, analyzers[middle:], groups, chunk, wide, per_pass),
    }


def wide_limit(df: DataFrame, groups: Sequence[str] = ()) -> int:
    """`WIDE_SLOTS`, or 0 (every slot stacked) for an input Spark estimates under `SMALL_INPUT`
    when it has no `groups`.

    The estimate is the optimizer's, known before any job (the files' size for a file source,
    before filters); a Spark Connect client cannot see it and keeps `WIDE_SLOTS`.
    """
    if groups or is_connect(df.sparkSession):
        return WIDE_SLOTS
    try:
        stats = df._jdf.queryExecution().optimizedPlan().stats()
        estimate = int(stats.sizeInBytes())  # a Scala BigInt, an int in Python
    except Exception as error:  # a JVM gone is said at once; any other problem, by the job
        raise_if_unavailable(error, "estimating the input's size")
        return WIDE_SLOTS
    return 0 if estimate < SMALL_INPUT else WIDE_SLOTS


def _aggregate(
    df: DataFrame,
    analyzers: Sequence[SlotAnalyzer[Any]],
    groups: Sequence[str],
    chunk: int,
    wide: int,
) -> Outcome:
    from pyspark.sql import functions as F

    schema = df.schema
    slots = [(a, a.slot(schema)) for a in analyzers]
    layout = _Layout.of([(a, s) for a, s in slots if s is not None and s.inputs], chunk, wide)
    keys = [col(schema, g).alias(group_column(i)) for i, g in enumerate(groups)]
    names = layout.names()
    stacked = len(layout.members) > 1
    if stacked:
        chunks = range(len(layout.members))
        rows = [value for k in chunks for value in (F.lit(k), *layout.values(k))]
        generator = F.stack(F.lit(len(chunks)), *rows).alias(CHUNK_COLUMN, *names)
        data = df.select(*keys, generator)
    else:
        data = df.select(*keys, *[v.alias(n) for v, n in zip(layout.values(0), names, strict=True)])
    sql = ["count(1)"]
    for j, inputs in enumerate(layout.inputs):
        sql += _aggregates(j, inputs)
    aggregates = [F.expr(a) for a in sql]
    by = [F.col(group_column(i)) for i in range(len(groups))]
    by += [F.col(CHUNK_COLUMN)] if stacked else []
    # Stacked rows carry few fields but the scan many: keep its code generation (`WIDE_CONF`).
    # One wide row's projection compiled into one method is too large for the JIT: ~1.4x the
    # time of Spark's default, which projects it with generated code split into small methods.
    conf = WIDE_CONF if stacked else {}
    with runtime_conf(df.sparkSession, conf):
        result = data.groupBy(*by).agg(*aggregates).collect()
    outcome: Outcome = {}
    width = len(groups)
    for row in result:
        group, k = group_key(row[:width]), int(row[width]) if stacked else 0
        values = row[width + int(stacked) :]
        rows_count, offset = int(values[0] or 0), 1
        for j, inputs in enumerate(layout.inputs):
            size = sum(AGGREGATES[name] for name in inputs)
            if j < len(layout.members[k]):
                analyzer = layout.members[k][j][0]
                parts = _slot_values(rows_count, inputs, values[offset : offset + size])
                outcome[(analyzer, group)] = analyzer.state_from_slot(parts, schema)
            offset += size
        if k == 0:
            counted = SlotValues(rows_count)
            for analyzer, slot in slots:
                if slot is None or not slot.inputs:
                    outcome[(analyzer, group)] = analyzer.state_from_slot(counted, schema)
    return outcome


AGGREGATES = {"key": 2, "number": 8, "text": 1, "flag": 1}
"""How many aggregates each input of a slot position has (in `_aggregates` order)."""


def _input(slot: Slot, name: str) -> Column | None:
    from pyspark.sql import functions as F

    value: Column | None = getattr(slot, name)
    if value is None:
        return None
    if name == "key":  # hashed: a 64-bit hash is as distinct as the value, and of one type
        return F.when(value.isNotNull(), F.xxhash64(value))
    if name == "flag":
        return F.when(value, F.lit(1))
    return value


def _aggregates(j: int, inputs: tuple[str, ...]) -> list[str]:
    """Position `j`'s aggregates as SQL: parsed in the JVM, one py4j round trip each, where
    building them from ``functions`` took 3-4 (3,100 of a 30-column scan's 8,500)."""
    found: list[str] = []
    if "key" in inputs:
        key = f"`__key{j}`"
        found += [f"count({key})", f"hll_sketch_agg({key}, {HLL_LG_K})"]
    if "number" in inputs:
        number = f"`__number{j}`"
        found += [
            f"count({number})",
            f"min({number})",
            f"max({number})",
            f"sum({number})",
            f"var_pop({number})",
            f"kll_sketch_agg_double({number}, {KLL_K})",
            f"count(CASE WHEN {number} = 0 THEN 1 END)",
            f"count(CASE WHEN {number} < 0 THEN 1 END)",
        ]
    if "text" in inputs:
        # One more than reported, plus one for null (an item too): more means too many.
        found.append(f"approx_top_k(`__text{j}`, {TOP_VALUES + 2}, {TRACKED})")
    if "flag" in inputs:
        found.append(f"count(`__flag{j}`)")
    return found


def _slot_values(rows: int, inputs: tuple[str, ...], values: Sequence[Any]) -> SlotValues:
    fields: dict[str, Any] = {"rows": rows}
    offset = 0
    if "key" in inputs:
        present, sketch = values[offset : offset + 2]
        fields.update(present=int(present or 0), distinct=_bytes(sketch))
        offset += 2
    if "number" in inputs:
        count, low, high, total, variance, sketch, zeros, negatives = values[offset : offset + 8]
        fields.update(
            numbers=int(count or 0),
            minimum=_float(low),
            maximum=_float(high),
            total=float(total or 0.0),
            variance=_float(variance),
            quantiles=_bytes(sketch),
            zeros=int(zeros or 0),
            negatives=int(negatives or 0),
        )
        offset += 8
    if "text" in inputs:
        found = values[offset] or ()
        items = [(str(i["item"]), int(i["count"])) for i in found if i["item"] is not None]
        fields["top"] = tuple(items) if len(items) <= TOP_VALUES else None
        offset += 1
    if "flag" in inputs:
        fields["flagged"] = int(values[offset] or 0)
    return SlotValues(**fields)


def _bytes(value: Any) -> bytes | None:
    return None if value is None else bytes(value)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)
