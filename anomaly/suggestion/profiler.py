"""Single-column profiling in at most three passes, whatever the number of columns (seed §4.2).

1. one shared aggregation: size, completeness, HLL distinct count of every column, and type
   detection (`TypeSet`: which types occur) of every string column;
2. one shared aggregation over the numeric columns (typed, or text that parsed as numbers):
   minimum, maximum, mean, standard deviation, approximate quartiles (KLL);
3. one aggregation of (column, value) counts over all low-cardinality columns at once.

Passes 2 and 3 are skipped when no column needs them. Each pass is one Spark aggregation, so the
number of Spark jobs does not grow with the number of columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from anomaly.analyzers import (
    ApproxCountDistinct,
    ApproxQuantiles,
    Completeness,
    Maximum,
    Mean,
    Minimum,
    Size,
    StandardDeviation,
)
from anomaly.errors import ConfigurationError
from anomaly.runner import AnalysisRunner
from anomaly.suggestion.profile import ColumnProfile, detected_type, schema_type
from anomaly.suggestion.sql import quoted
from anomaly.suggestion.type_set import TypeSet

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from anomaly.context import AnalyzerContext

LOW_CARDINALITY = 100
"""Columns with at most this many (approximately) distinct values get a full value histogram."""
QUARTILES = (0.25, 0.5, 0.75)


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
    profiles = _first_pass(df, names, kinds)
    profiles = _numeric_pass(df, profiles)
    wanted = [p.column for p in profiles.values() if 0 < p.approx_distinct <= low_cardinality]
    return _frequency_pass(df, profiles, wanted)


def _first_pass(
    df: DataFrame, names: Sequence[str], kinds: Mapping[str, str]
) -> dict[str, ColumnProfile]:
    text = [c for c in names if kinds[c] == "string"]
    analyzers: list[Any] = [Size()]
    analyzers += [Completeness(c) for c in names]
    analyzers += [ApproxCountDistinct(c) for c in names]
    analyzers += [TypeSet(c) for c in text]
    context = AnalysisRunner().on_data(df).add_analyzers(analyzers).run()
    rows = int(_value(context, Size()) or 0)
    profiles = {}
    for column in names:
        seen: tuple[str, ...] = ()
        if column in text:
            seen = tuple(_value(context, TypeSet(column)) or ())
            kind = detected_type(seen)
        else:
            kind = schema_type(kinds[column])
        completeness = _value(context, Completeness(column)) or 0.0
        profiles[column] = ColumnProfile(
            column,
            kinds[column],
            kind,
            rows,
            round(completeness * rows),
            float(_value(context, ApproxCountDistinct(column)) or 0.0),
            seen,
        )
    return profiles


def _numeric_pass(df: DataFrame, profiles: dict[str, ColumnProfile]) -> dict[str, ColumnProfile]:
    from pyspark.sql import functions as F

    numeric = [p.column for p in profiles.values() if p.is_numeric and p.non_null]
    if not numeric:
        return profiles
    # Text columns whose values all parse as numbers are profiled as doubles.
    cast = {c: F.col(quoted(c)).try_cast("double") for c in numeric if profiles[c].inferred}
    data = df.withColumns(cast) if cast else df
    analyzers: list[Any] = []
    for c in numeric:
        analyzers += [Minimum(c), Maximum(c), Mean(c), StandardDeviation(c)]
        analyzers.append(ApproxQuantiles(c, QUARTILES))
    context = AnalysisRunner().on_data(data).add_analyzers(analyzers).run()
    result = dict(profiles)
    for c in numeric:
        quartiles = _value(context, ApproxQuantiles(c, QUARTILES))
        result[c] = replace(
            profiles[c],
            minimum=_value(context, Minimum(c)),
            maximum=_value(context, Maximum(c)),
            mean=_value(context, Mean(c)),
            stddev=_value(context, StandardDeviation(c)),
            quartiles=tuple(quartiles[repr(q)] for q in QUARTILES) if quartiles else None,
        )
    return result


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


def _value(context: AnalyzerContext, analyzer: Any) -> Any:
    """The metric value, or None when it failed (e.g. an all-null column has no minimum)."""
    metric = context[analyzer]
    return metric.value if metric.succeeded else None
