"""Single-column profiling in at most three passes, whatever the number of columns.

As in Schelter et al., PVLDB 2018, §4.2:

1. one aggregation: size, completeness, HLL distinct count of every column, and type
   detection (`TypeSet`'s code: which types occur) of every string column;
2. one aggregation over the numeric columns (typed, or text that parsed as numbers):
   minimum, maximum, mean, standard deviation, approximate quartiles (KLL);
3. one aggregation of (column, value) counts over all low-cardinality columns at once.

Passes 2 and 3 are skipped when no column needs them. Each pass is one Spark aggregation over
(column, value) rows grouped by column, so neither the number of Spark jobs nor the size of the
generated code grows with the number of columns: one row of a few aggregates per column grew
past what the JVM compiles, and cost ~4x per value at 200 columns what it did at 50.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from anomaly.analyzers.sketch_state import HllState, KllState
from anomaly.errors import ConfigurationError
from anomaly.spark import WIDE_CONF, runtime_conf
from anomaly.suggestion.profile import ColumnProfile, detected_type, schema_type
from anomaly.suggestion.sql import quoted
from anomaly.suggestion.type_set import TypeSetState, type_code

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, Row


LOW_CARDINALITY = 100
"""Columns with at most this many (approximately) distinct values get a full value histogram."""
QUARTILES = (0.25, 0.5, 0.75)
HLL_LG_K = 12
"""Sketch size of the distinct counts, `ApproxCountDistinct` 's default (1.6% error)."""


def profile_columns(
    df: DataFrame,
    columns: Sequence[str] | None = None,
    low_cardinality: int = LOW_CARDINALITY,
) -> dict[str, ColumnProfile]:
    """Profiles of `columns` (default: all) of `df`, in at most three Spark passes."""
    names = list(columns) if columns is not None else list(df.columns)
    unknown = [c for c in names if c not in df.columns]
    if unknown:
        raise ConfigurationError(
            f"columns {unknown} do not exist; available columns: {list(df.columns)}"
        )
    if low_cardinality < 1:
        raise ConfigurationError(f"low_cardinality must be at least 1, got {low_cardinality}")
    kinds = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    with runtime_conf(df.sparkSession, WIDE_CONF):
        profiles = _first_pass(df, names, kinds)
        profiles = _numeric_pass(df, profiles)
        wanted = [p.column for p in profiles.values() if 0 < p.approx_distinct <= low_cardinality]
        return _frequency_pass(df, profiles, wanted)


def _first_pass(
    df: DataFrame, names: Sequence[str], kinds: Mapping[str, str]
) -> dict[str, ColumnProfile]:
    """Rows, non-null and approximate distinct counts, and types seen, of every column."""
    from pyspark.sql import functions as F

    if not names:
        return {}
    text = [i for i, c in enumerate(names) if kinds[c] == "string"]
    # Typed columns are counted and sketched by their text: the same estimate, to sketch error.
    rows = _per_column(
        df,
        names,
        "CAST({} AS STRING)",
        lambda c, value: [
            F.count(F.lit(1)),
            F.count(value),
            # as ApproxCountDistinct sketches text: a prefix so that "" counts as a value
            F.hll_sketch_agg(F.concat(F.lit("\u0001"), value), HLL_LG_K),
            F.bit_or(F.when(c.isin(text), type_code(value))),
        ],
    )
    stats = {names[r[0]]: r[1:] for r in rows}
    size = int(rows[0][1]) if rows else 0
    profiles = {}
    for i, column in enumerate(names):
        _, non_null, sketch, mask = stats.get(column, (0, 0, None, 0))
        seen: tuple[str, ...] = ()
        if i in text:
            seen = TypeSetState(int(mask or 0)).types()
            kind = detected_type(seen)
        else:
            kind = schema_type(kinds[column])
        state = HllState(bytes(sketch), HLL_LG_K) if sketch is not None else HllState(None)
        distinct = float(round(state.estimate()))
        profiles[column] = ColumnProfile(
            column, kinds[column], kind, size, int(non_null), distinct, seen
        )
    return profiles


def _numeric_pass(df: DataFrame, profiles: dict[str, ColumnProfile]) -> dict[str, ColumnProfile]:
    """Minimum, maximum, mean, population standard deviation and quartiles of the numeric
    columns (typed, or text whose values all parse as numbers), as the analyzers of the same
    names compute them, from one aggregation over (column, value) rows like `_first_pass`."""
    from pyspark.sql import functions as F

    numeric = [p.column for p in profiles.values() if p.is_numeric and p.non_null]
    if not numeric:
        return profiles
    rows = _per_column(
        df,
        numeric,
        "TRY_CAST({} AS DOUBLE)",
        lambda _, value: [
            F.min(value),
            F.max(value),
            F.avg(value),
            F.stddev_pop(value),
            F.kll_sketch_agg_double(F.when(~F.isnan(value), value)),  # as ApproxQuantiles
        ],
    )
    result = dict(profiles)
    for row in rows:
        column = numeric[row[0]]
        sketch = KllState(bytes(row[5])) if row[5] is not None else KllState(None)
        result[column] = replace(
            profiles[column],
            minimum=row[1],
            maximum=row[2],
            mean=row[3],
            stddev=row[4],
            quartiles=_quartiles(sketch) if sketch.count else None,
        )
    return result


def _per_column(
    df: DataFrame,
    columns: Sequence[str],
    cast: str,
    aggregates: Callable[[Column, Column], list[Column]],
) -> list[Row]:
    """``aggregates(c, v)`` of every column, as rows ``(index in columns, *values)``: one
    aggregation over (column index ``c``, value ``v``) rows grouped by ``c``, each value
    ``cast`` (a SQL template) to the type the aggregates take."""
    from pyspark.sql import functions as F

    pairs = ", ".join(f"{i}, {cast.format(quoted(name))}" for i, name in enumerate(columns))
    stacked = df.select(F.expr(f"stack({len(columns)}, {pairs}) AS (c, v)"))
    return stacked.groupBy("c").agg(*aggregates(F.col("c"), F.col("v"))).collect()


def _quartiles(sketch: KllState) -> tuple[float, float, float]:
    low, median, high = (sketch.quantile(q) for q in QUARTILES)
    return low, median, high


def _frequency_pass(
    df: DataFrame, profiles: dict[str, ColumnProfile], columns: Sequence[str]
) -> dict[str, ColumnProfile]:
    """Value counts of every column in `columns` from one aggregation over (column, value) pairs."""
    from pyspark.sql import functions as F

    if not columns:
        return profiles
    pairs = F.explode(
        F.array(
            *[
                F.struct(F.lit(i).alias("c"), F.col(quoted(c)).cast("string").alias("v"))
                for i, c in enumerate(columns)
            ]
        )
    )
    counted = (
        df.select(pairs.alias("p"))
        .where(F.col("p.v").isNotNull())
        .groupBy("p.c", "p.v")
        .count()
        .collect()
    )
    histograms: dict[str, dict[str, int]] = {c: {} for c in columns}
    for row in counted:
        histograms[columns[row["c"]]][row["v"]] = int(row["count"])
    result = dict(profiles)
    for column, histogram in histograms.items():
        ordered = dict(sorted(histogram.items(), key=lambda kv: (-kv[1], kv[0])))
        result[column] = replace(profiles[column], histogram=ordered)
    return result
