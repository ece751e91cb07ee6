"""Every metric equals a numpy/pandas reference, on both execution paths, grouped and ungrouped.

Paths: ``spark`` (the default: frequency metrics summarised in Spark) and ``states``
(``keep_states()``: frequency tables collected as Arrow, metrics computed from the states).
The data has nulls, NaN, an all-null group, a null group value and `where` filters; empty input
is covered too. Sketch metrics are checked within their documented error.

A Spark run is the expensive part, so there is one test per run, checking the whole analyzer table
(`check_all` reports every analyzer that disagrees, not only the first); under pytest-xdist each
run then happens on one worker only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from pyspark.sql import DataFrame, SparkSession

from anomaly import AnalyzerContext
from anomaly.analyzers import (
    Analyzer,
    ApproxCountDistinct,
    ApproxQuantile,
    ApproxQuantiles,
    CountDistinct,
    Histogram,
    Mean,
    Size,
)
from repository.records import MetricRecord
from tests.anomaly.conftest import (
    ANALYZERS,
    NAN_KEY,
    ONE_PER_CLASS,
    ROWS,
    Distinct,
    Quantile,
    RunAnalyzers,
    assert_metric,
    check_all,
    groups_of,
    reference,
    same_metric,
)

PATHS = ("spark", "states")
GROUPS = groups_of(ROWS)


def test_generated_data_has_the_edge_cases() -> None:
    """The properties the tests rely on (so no check above is vacuous)."""
    nan_x = {r["g"] for r in ROWS if r["x"] is not None and math.isnan(r["x"])}
    assert nan_x == {"b"}
    assert all(r[c] is None for r in GROUPS[("e",)] for c in ("i", "x", "y", "k"))
    assert (None,) in GROUPS and all(len(rows) > 5 for rows in GROUPS.values())
    for column in ("i", "x", "y", "k", "s", "t", "f", "d", "h"):
        assert any(r[column] is None for r in ROWS if r["g"] != "e"), column
    assert {"", " -2 ", "true"} <= {r["s"] for r in ROWS}
    assert {1e7, 1.5e-4} <= {r["k"] for r in ROWS} and any(r["k"] != r["k"] for r in ROWS)
    assert 0 < sum(1 for r in ROWS if r["i"] is not None and r["i"] > 20) < len(ROWS)


def check_states(context: AnalyzerContext, path: str) -> None:
    """``keep_states()`` returns the state of every metric (whose metric it is); else none."""
    if path == "spark":
        assert context.states == {}
        return
    assert set(context.states) == set(context.metrics)

    def check(key: tuple[Analyzer[Any], tuple[Any, ...]]) -> None:
        analyzer, _ = key
        state, metric = context.states[key], context.metrics[key]
        assert type(state) is type(analyzer.empty_state())
        assert same_metric(analyzer.metric(state, metric.group), metric)

    check_all(list(context.states), check, lambda key: f"state of {key[0]} {key[1]}")


def check_groups(context: AnalyzerContext, analyzer: Analyzer[Any], path: str) -> None:
    """Every group of the data has the metric of its rows (and no other group is reported)."""
    assert set(context.for_analyzer(analyzer)) == set(GROUPS)
    for key, rows in GROUPS.items():
        metric = context.metric(analyzer, key)
        assert dict(metric.group) == {"g": key[0]}
        assert_metric(metric, reference(analyzer, rows), path)


@pytest.mark.parametrize("path", PATHS)
def test_ungrouped_metrics_equal_reference(
    run_analyzers: RunAnalyzers, rows_df: DataFrame, path: str
) -> None:
    context = run_analyzers(rows_df, ANALYZERS, False, path == "states")
    check_all(ANALYZERS, lambda a: assert_metric(context[a], reference(a, ROWS), path))
    assert context.groups == [()] and len(context) == len(ANALYZERS)
    check_states(context, path)
    # Histogram keys (hence metric ids) are Spark's text of the value: "1.0E7", "NaN", "true".
    histogram = context[Histogram("k")].value
    assert isinstance(histogram, dict)
    assert {"abs.NaN", "abs.1.0E7", "abs.1.5E-4", "abs.NullValue"} <= set(histogram)
    assert {"abs.true", "abs.false"} <= set(context[Histogram("f", where="i > 20")].value or {})


@pytest.mark.parametrize("path", PATHS)
def test_grouped_metrics_equal_reference(
    run_analyzers: RunAnalyzers, rows_df: DataFrame, path: str
) -> None:
    context = run_analyzers(rows_df, ANALYZERS, True, path == "states")
    check_all(ANALYZERS, lambda a: check_groups(context, a, path))
    assert sorted(context.groups, key=str) == sorted(GROUPS, key=str)  # null group included
    assert len(context) == len(ANALYZERS) * len(GROUPS)
    check_states(context, path)
    frame = context.to_pandas()
    assert list(frame.columns) == [
        "entity",
        "instance",
        "name",
        "value",
        "metric_id",
        "error",
        "g",
    ]
    assert len(frame) == len(list(context))
    assert all(isinstance(record, MetricRecord) for record in context)
    sizes = frame[frame["metric_id"] == "Size(*)"].replace({np.nan: None}).set_index("g")["value"]
    assert sizes.to_dict() == {k[0]: float(len(rows)) for k, rows in GROUPS.items()}


@pytest.mark.parametrize("path", PATHS)
def test_empty_input_metrics_equal_reference(
    run_analyzers: RunAnalyzers, empty_df: DataFrame, path: str
) -> None:
    context = run_analyzers(empty_df, ONE_PER_CLASS, False, path == "states")
    check_all(ONE_PER_CLASS, lambda a: assert_metric(context[a], reference(a, []), path))


def test_grouped_empty_input_has_no_groups_but_keeps_failures(
    run_analyzers: RunAnalyzers, empty_df: DataFrame
) -> None:
    context = run_analyzers(empty_df, [Size(), Mean("x"), CountDistinct("s"), Mean("nope")], True)
    assert context.groups == [()]
    assert [m.metric_id for m in context.metrics.values()] == ["Mean(nope)"]
    assert "'nope' does not exist" in (context.metric(Mean("nope")).error or "")


@pytest.mark.parametrize("path", PATHS)
def test_histogram_keys_of_other_types(
    run_analyzers: RunAnalyzers, rows_df: DataFrame, path: str
) -> None:
    """Timestamps and 32-bit floats are named as Spark prints them, on both paths."""
    analyzers: list[Analyzer[Any]] = [Histogram("d"), Histogram("h")]
    context = run_analyzers(rows_df, analyzers, False, path == "states")
    check_all(analyzers, lambda a: assert_metric(context[a], reference(a, ROWS), path))


# Group keys of other types: a double with NaN and null, a timestamp with a bool (and nulls).
KEYED: list[Analyzer[Any]] = [Size(), Mean("x"), CountDistinct("s"), Histogram("t")]


def reference_key(key: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(NAN_KEY if isinstance(v, float) and math.isnan(v) else v for v in key)


@pytest.mark.parametrize(
    ("columns", "path"),
    [(("k",), "spark"), (("k",), "states"), (("d", "f"), "states")],
    ids=["k-spark", "k-states", "d,f-states"],
)
def test_group_keys_of_any_type(
    run_analyzers: RunAnalyzers, rows_df: DataFrame, columns: tuple[str, ...], path: str
) -> None:
    """One group per distinct key, NaN included (NaN != NaN), with the same keys on both passes."""
    context = run_analyzers(rows_df, KEYED, columns, path == "states")
    expected = groups_of(ROWS, *columns)
    assert sorted(map(reference_key, context.groups), key=str) == sorted(expected, key=str)
    assert len(context) == len(KEYED) * len(expected)

    def check(analyzer: Analyzer[Any]) -> None:
        for group in context.groups:
            metric = context.metric(analyzer, group)
            assert_metric(metric, reference(analyzer, expected[reference_key(group)]), path)

    check_all(KEYED, check)
    if columns == ("k",):  # the caller's own NaN finds the NaN group
        assert context.metric(Size(), (float("nan"),)).value == len(expected[(NAN_KEY,)])


# ---------------------------------------------------------------------------------------------
# Sketches on data large enough to leave their exact modes: HLL lg_k=12 (rse ~1.6%, allow 5%),
# KLL k=200 (normalised rank error ~1.65%, allow 0.03).
# ---------------------------------------------------------------------------------------------

N = 30_000
IDS = np.arange(N)
V = (IDS * 7919) % 10_007  # every residue of the prime 10007: 10007 distinct values
W = np.sqrt(IDS) * (IDS % 5)  # skewed, many duplicates (zeros)
G = (IDS % 3).astype(str)
SKETCHES: list[Analyzer[Any]] = [
    ApproxCountDistinct("v"),
    ApproxCountDistinct("w"),
    ApproxCountDistinct("v", where="id < 20000"),
    ApproxQuantile("v", 0.5, where="id >= 1000"),
    ApproxQuantiles("w", (0.01, 0.25, 0.5, 0.75, 0.99)),
    Size(),
]


def sketch_reference(analyzer: Analyzer[Any], mask: np.ndarray) -> Any:
    if analyzer.where == "id < 20000":
        mask = mask & (IDS < 20_000)
    elif analyzer.where == "id >= 1000":
        mask = mask & (IDS >= 1_000)
    column = {"v": V, "w": W}.get(analyzer.columns[0] if analyzer.columns else "", V)[mask]
    if isinstance(analyzer, ApproxCountDistinct):
        return Distinct(len(np.unique(column)))
    if isinstance(analyzer, ApproxQuantile):
        return Quantile(tuple(map(float, column)), analyzer.quantile)
    if isinstance(analyzer, ApproxQuantiles):
        values = tuple(map(float, column))
        return {repr(q): Quantile(values, q) for q in analyzer.quantiles}
    return float(mask.sum())


@pytest.mark.parametrize("grouped", [False, True], ids=["ungrouped", "grouped"])
def test_sketches_within_documented_error(
    spark: SparkSession, run_analyzers: RunAnalyzers, grouped: bool
) -> None:
    df = spark.range(N).selectExpr(
        "id", "(id * 7919) % 10007 AS v", "sqrt(id) * (id % 5) AS w", "cast(id % 3 AS string) AS g"
    )
    context = run_analyzers(df, SKETCHES, grouped)
    if grouped:

        def check(analyzer: Analyzer[Any]) -> None:
            for group in ("0", "1", "2"):
                metric = context.metric(analyzer, (group,))
                assert_metric(metric, sketch_reference(analyzer, group == G))

        check_all(SKETCHES, check)
    else:
        check_all(SKETCHES, lambda a: assert_metric(context[a], sketch_reference(a, IDS >= 0)))


def test_sketch_checks_reject_wrong_estimates() -> None:
    """The checks above are tight enough to catch an off-by-a-few-percent estimate."""
    values = tuple(map(float, range(1000)))
    assert Quantile(values, 0.5).accepts(500.0)
    assert not Quantile(values, 0.5).accepts(540.0)
    assert not Quantile(values, 0.5).accepts(500.5)  # not a value of the data
    assert Distinct(1000).accepts(1040.0) and not Distinct(1000).accepts(1060.0)
