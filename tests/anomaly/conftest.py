"""Generated data, pure-Python reference metrics and comparison helpers for the engine's tests.

The reference implementations here are written from the documented semantics of each analyzer
(Spark SQL null/NaN rules, Deequ's definitions) with numpy and the standard library; they share no
code with the engine, so an engine bug shows up as a disagreement.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pytest

from anomaly.analyzers import (
    Analyzer,
    ApproxCountDistinct,
    ApproxQuantile,
    ApproxQuantiles,
    Completeness,
    Compliance,
    Correlation,
    CountDistinct,
    DataType,
    Distinctness,
    Entropy,
    Histogram,
    Maximum,
    Mean,
    Minimum,
    MutualInformation,
    PatternMatch,
    ScanShareableAnalyzer,
    Size,
    StandardDeviation,
    Sum,
    Uniqueness,
    UniqueValueRatio,
)
from anomaly.metrics import Metric

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from anomaly import AnalyzerContext

Row = dict[str, Any]
T = TypeVar("T")

# ---------------------------------------------------------------------------------------------
# Generated data: nulls, NaN (in x only in group "b", in k in every group), an all-null group "e",
# a null group value, duplicate value tuples, numeric-looking and empty strings, doubles Spark
# prints in scientific notation.
# ---------------------------------------------------------------------------------------------

SCHEMA = (
    "id int, g string, i int, x double, y double, k double, s string, t string, f boolean, u int, "
    "d timestamp, h float"
)
COLUMNS = [part.split()[0] for part in SCHEMA.split(", ")]
S_VALUES = ["1", " -2 ", "3.5", ".5", "1e3", "true", "FALSE", "abc", "", "x@y.z", "a1", None]
K_VALUES = [0.5, 2.0, 1e7, 1.5e-4, math.nan, None]


def local(*fields: int) -> datetime:
    """The naive local datetime (as PySpark reads and returns them) of a UTC wall clock time."""
    return datetime(*fields, tzinfo=UTC).astimezone().replace(tzinfo=None)  # type: ignore[misc]


# Timestamps: the session time zone is UTC, so Spark prints these UTC wall clock times.
D_VALUES = [
    local(2024, 1, 1, 12),
    local(2024, 3, 31, 23, 59, 59, 120000),
    local(2024, 6, 30, 0, 0, 0, 123456),
    None,
]
H_VALUES = [0.1, 2.5, 1e7, None]  # a float (32-bit) column
# How Spark casts these values to text (Java's Double/Float.toString; timestamps without trailing
# zeros), for Histogram keys.
SPARK_TEXT: dict[Any, str] = {
    0.5: "0.5",
    2.0: "2.0",
    1e7: "1.0E7",
    1.5e-4: "1.5E-4",
    0.1: "0.1",
    2.5: "2.5",
    D_VALUES[0]: "2024-01-01 12:00:00",
    D_VALUES[1]: "2024-03-31 23:59:59.12",
    D_VALUES[2]: "2024-06-30 00:00:00.123456",
}


def make_rows(n: int = 240, seed: int = 7) -> list[Row]:
    """`n` reproducible rows of `SCHEMA`."""
    rng = np.random.default_rng(seed)

    def maybe(value: Any, p_null: float = 0.1) -> Any:
        return None if rng.random() < p_null else value

    rows: list[Row] = []
    for idx in range(n):
        g = ["a", "b", "c", None][int(rng.choice(4, p=[0.4, 0.3, 0.2, 0.1]))]
        if idx < 6:
            g = "e"
        x = maybe(round(float(rng.normal(10, 3)), 1))
        if g == "b" and x is not None and (idx % 10 == 3):
            x = math.nan
        clean = x if x is not None and not math.isnan(x) else float(rng.normal(10, 3))
        y = maybe(round(2 * clean + float(rng.normal(0, 1)), 3))
        s = S_VALUES[int(rng.integers(len(S_VALUES)))]
        t = maybe(["p", "q", "r"][len(s or "") % 3 if rng.random() < 0.7 else int(rng.integers(3))])
        row: Row = {
            "id": idx,
            "g": g,
            "i": maybe(int(rng.integers(0, 50))),
            "x": x,
            "y": y,
            "k": K_VALUES[int(rng.integers(len(K_VALUES)))],
            "s": s,
            "t": t,
            "f": [True, False, None][int(rng.integers(3))],
            "u": idx // 2 if idx < 60 else idx,
            "d": D_VALUES[int(rng.integers(len(D_VALUES)))],
            "h": H_VALUES[int(rng.integers(len(H_VALUES)))],
        }
        if g == "e":
            row.update(i=None, x=None, y=None, k=None)
        rows.append(row)
    return rows


ROWS = make_rows()


def frame(spark: SparkSession, rows: Sequence[Row]) -> DataFrame:
    """A DataFrame of `rows` with `SCHEMA`."""
    return spark.createDataFrame([tuple(r[c] for c in COLUMNS) for r in rows], SCHEMA)


@pytest.fixture(scope="session")
def rows_df(spark: SparkSession) -> DataFrame:
    """`ROWS` as a DataFrame."""
    return frame(spark, ROWS)


@pytest.fixture(scope="session")
def empty_df(spark: SparkSession) -> DataFrame:
    """No rows, same schema."""
    return frame(spark, [])


RunAnalyzers = Callable[..., "AnalyzerContext"]


@pytest.fixture(scope="session")
def run_analyzers(spark: SparkSession) -> RunAnalyzers:
    """``run_analyzers(df, analyzers, grouped=False, keep=False)``: the run's context, memoised.

    Spark passes are the expensive part of these tests: a run is done once per session and shared
    by every test (and module) that asks for the same data, analyzers, grouping and path.
    ``keep=True`` is the ``keep_states()`` path; ``grouped`` groups by ``g`` (True) or by the
    columns given as a tuple.
    """
    from anomaly import AnalysisRunner

    done: dict[tuple[int, tuple[Analyzer[Any], ...], tuple[str, ...], bool], AnalyzerContext] = {}
    frames: list[DataFrame] = []  # keeps every DataFrame alive, so its id is not reused

    def run(
        df: DataFrame,
        analyzers: Sequence[Analyzer[Any]],
        grouped: bool | tuple[str, ...] = False,
        keep: bool = False,
    ) -> AnalyzerContext:
        columns = grouped if isinstance(grouped, tuple) else ("g",) if grouped else ()
        key = (id(df), tuple(analyzers), columns, keep)
        if key not in done:
            frames.append(df)
            runner = AnalysisRunner(spark).on_data(df).add_analyzers(analyzers).keep_states(keep)
            done[key] = runner.group_by(*columns).run()
        return done[key]

    return run


# SQL filters and predicates used by the analyzers below, with their Spark SQL semantics in Python
# (a comparison with null is null, hence false in a filter; NaN is larger than every number).
WHERE = "i > 20"
SQL_IN_PYTHON: dict[str, Callable[[Row], bool]] = {
    "i > 20": lambda r: r["i"] is not None and r["i"] > 20,
    "t = 'p'": lambda r: r["t"] == "p",
    "x > 10": lambda r: r["x"] is not None and (math.isnan(r["x"]) or r["x"] > 10),
    "i < 25": lambda r: r["i"] is not None and r["i"] < 25,
}

# One entry per analyzer configuration the reference tests cover; every analyzer class appears,
# with and without `where`, on columns with nulls, NaN and duplicates.
ANALYZERS: list[Analyzer[Any]] = [
    Size(),
    Size(where=WHERE),
    Completeness("x"),
    Completeness("f"),
    Completeness("s", where=WHERE),
    Compliance("x above 10", "x > 10"),
    Compliance("small i", "i < 25", where="t = 'p'"),
    PatternMatch("s", r"^\d+$"),
    PatternMatch("s", "@", where=WHERE),
    Mean("x"),
    Mean("i"),
    Mean("y", where=WHERE),
    Sum("i"),
    Sum("y", where=WHERE),
    Minimum("x"),
    Minimum("i", where=WHERE),
    Maximum("x"),
    Maximum("y"),
    StandardDeviation("y"),
    StandardDeviation("x", where=WHERE),
    ApproxCountDistinct("u"),
    ApproxCountDistinct("s"),
    ApproxCountDistinct("x", where=WHERE),
    ApproxQuantile("y", 0.5),
    ApproxQuantile("i", 0.9, where=WHERE),
    ApproxQuantiles("x", (0.99, 0.1, 0.5)),
    Correlation("i", "y"),
    Correlation("x", "y"),
    Correlation("y", "x", where=WHERE),
    DataType("s"),
    DataType("s", where=WHERE),  # shares the type projection of DataType("s")
    DataType("i"),
    DataType("f"),
    DataType("x", where=WHERE),
    # Frequency analyzers, in few frequency sets (one Spark pass each): (s), (k, t), (u),
    # (s) where, (k, t) where, and one keep-nulls set per histogram.
    CountDistinct("s"),
    Distinctness("s"),
    UniqueValueRatio("s"),
    Entropy("s"),
    CountDistinct(("k", "t")),
    Uniqueness(("k", "t")),
    MutualInformation("k", "t"),
    Uniqueness("u"),
    UniqueValueRatio("u"),
    CountDistinct("s", where=WHERE),
    Distinctness("s", where=WHERE),
    Uniqueness("s", where=WHERE),
    Entropy("s", where=WHERE),
    MutualInformation("k", "t", where=WHERE),
    UniqueValueRatio(("k", "t"), where=WHERE),
    Histogram("k"),
    Histogram("k", max_bins=3),  # the same pass as Histogram("k")
    Histogram("f", where=WHERE),
]

# One configuration per analyzer class, without `where`: few frequency sets, so few Spark passes.
ONE_PER_CLASS: list[Analyzer[Any]] = list(
    {type(a): a for a in reversed(ANALYZERS) if a.where is None}.values()
)[::-1]
# Every analyzer class once, plus `where` variants that cost no extra pass (shared scan) or one.
ECONOMICAL: list[Analyzer[Any]] = [
    *ONE_PER_CLASS,
    *(a for a in ANALYZERS if a.where and isinstance(a, ScanShareableAnalyzer)),
    *(
        a
        for a in ANALYZERS
        if a.where == WHERE and a.columns == ("s",) and not isinstance(a, ScanShareableAnalyzer)
    ),
]


# ---------------------------------------------------------------------------------------------
# Expected values
# ---------------------------------------------------------------------------------------------


class Failure:
    """The expectation that a metric fails (with a message naming the analyzer)."""

    def __repr__(self) -> str:
        return "FAIL"


FAIL = Failure()


@dataclass(frozen=True)
class Distinct:
    """An exact distinct count that a HyperLogLog estimate must be within `rel` of."""

    exact: int
    rel: float = 0.05

    def accepts(self, value: float) -> bool:
        return abs(value - self.exact) <= max(self.rel * self.exact, 0.5)


@dataclass(frozen=True)
class Quantile:
    """A KLL estimate of the `q` quantile of `values`: one of the values, rank within `eps` of q."""

    values: tuple[float, ...]
    q: float
    eps: float = 0.03

    def __repr__(self) -> str:
        return f"Quantile(q={self.q}, n={len(self.values)}, eps={self.eps})"

    def accepts(self, value: float) -> bool:
        data = np.asarray(self.values)
        below, at_most = float(np.mean(data < value)), float(np.mean(data <= value))
        return value in self.values and below - self.eps <= self.q <= at_most + self.eps


Expected = Failure | float | Distinct | Quantile | Mapping[str, "float | Quantile"]


def same_float(actual: float, expected: float, rel: float = 1e-9, abs_tol: float = 1e-12) -> bool:
    """Equal within float tolerance; NaN equals NaN."""
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    return math.isclose(actual, expected, rel_tol=rel, abs_tol=abs_tol)


def assert_metric(metric: Metric, expected: Expected, context: str = "") -> None:
    """`metric` matches `expected` (value, approximate value, mapping or failure)."""
    where = f"{metric.metric_id} {dict(metric.group)} {context}".strip()
    if isinstance(expected, Failure):
        assert not metric.succeeded, f"{where}: expected a failure, got {metric.value!r}"
        assert metric.error and metric.metric_id in metric.error, (where, metric.error)
        assert_clean_message(metric.error)
        return
    assert metric.succeeded, f"{where}: failed with {metric.error}"
    value = metric.value
    if isinstance(expected, Mapping):
        assert isinstance(value, Mapping), (where, value)
        assert sorted(value) == sorted(expected), (where, sorted(value), sorted(expected))
        for key, wanted in expected.items():
            got = float(value[key])
            ok = wanted.accepts(got) if isinstance(wanted, Quantile) else same_float(got, wanted)
            assert ok, f"{where}[{key}]: {got!r} != {wanted!r}"
        return
    assert isinstance(value, float), (where, value)
    if isinstance(expected, Distinct | Quantile):
        assert expected.accepts(value), f"{where}: {value!r} outside {expected!r}"
    else:
        assert same_float(value, expected), f"{where}: {value!r} != {expected!r}"


def same_metric(actual: Metric, expected: Metric) -> bool:
    """Equal metrics, NaN values equal to NaN (`Metric.__eq__` says NaN != NaN)."""
    mine, theirs = list(actual.records()), list(expected.records())
    if [(r.metric_id, r.error, dict(r.group)) for r in mine] != [
        (r.metric_id, r.error, dict(r.group)) for r in theirs
    ]:
        return False
    return all(
        (a.value is None and b.value is None)
        or (a.value is not None and b.value is not None and same_float(a.value, b.value))
        for a, b in zip(mine, theirs, strict=True)
    )


JVM_TRACE = re.compile(r"at org\.apache|py4j|Py4J|An error occurred while calling|\bo\d+\.\w+\(")


def assert_clean_message(message: str | None) -> None:
    """A user-facing message: present, one line, no Java stack trace or Py4J plumbing."""
    assert message, "empty message"
    assert "\n" not in message, f"multi-line message: {message!r}"
    assert not JVM_TRACE.search(message), f"JVM/Py4J text in message: {message!r}"


# ---------------------------------------------------------------------------------------------
# Reference implementations, one per analyzer class
# ---------------------------------------------------------------------------------------------


class _NaN:
    """Stands for NaN as a dictionary key (Spark groups all NaNs together; NaN != NaN in Python)."""

    def __repr__(self) -> str:
        return "NaN"


NAN_KEY = _NaN()


def key(value: Any) -> Any:
    """`value` as a grouping key: every NaN is the same key."""
    return NAN_KEY if isinstance(value, float) and math.isnan(value) else value


def scoped(analyzer: Analyzer[Any], rows: Iterable[Row]) -> list[Row]:
    """The rows the analyzer's `where` keeps."""
    keep = SQL_IN_PYTHON[analyzer.where] if analyzer.where else None
    return [r for r in rows if keep is None or keep(r)]


def numbers(rows: Iterable[Row], column: str) -> np.ndarray:
    """The non-null values of `column` as floats (NaN kept)."""
    return np.array([float(r[column]) for r in rows if r[column] is not None], dtype=float)


def frequencies(rows: Iterable[Row], columns: Sequence[str], keep_nulls: bool) -> Counter[Any]:
    """Value-tuple counts; rows where every column is null are dropped unless `keep_nulls`."""
    counts: Counter[Any] = Counter()
    for r in rows:
        values = tuple(key(r[c]) for c in columns)
        if keep_nulls or any(v is not None for v in values):
            counts[values] += 1
    return counts


def fraction(hits: Iterable[bool], rows: Sequence[Row]) -> Expected:
    return FAIL if not rows else sum(map(bool, hits)) / len(rows)


def ref_size(a: Size, rows: list[Row]) -> Expected:
    return float(len(rows))


def ref_completeness(a: Completeness, rows: list[Row]) -> Expected:
    return fraction((r[a.column] is not None for r in rows), rows)


def ref_compliance(a: Compliance, rows: list[Row]) -> Expected:
    return fraction(map(SQL_IN_PYTHON[a.predicate], rows), rows)


def ref_pattern_match(a: PatternMatch, rows: list[Row]) -> Expected:
    hits = (r[a.column] is not None and re.search(a.pattern, r[a.column]) for r in rows)
    return fraction(hits, rows)


def ref_mean(a: Mean, rows: list[Row]) -> Expected:
    v = numbers(rows, a.column)
    return FAIL if v.size == 0 else float(np.mean(v))


def ref_sum(a: Sum, rows: list[Row]) -> Expected:
    v = numbers(rows, a.column)
    return FAIL if v.size == 0 else float(np.sum(v))


def ref_minimum(a: Minimum, rows: list[Row]) -> Expected:
    v = numbers(rows, a.column)
    numbers_only = v[~np.isnan(v)]
    if v.size == 0:
        return FAIL
    return float(numbers_only.min()) if numbers_only.size else math.nan  # NaN sorts last


def ref_maximum(a: Maximum, rows: list[Row]) -> Expected:
    v = numbers(rows, a.column)
    if v.size == 0:
        return FAIL
    return math.nan if np.isnan(v).any() else float(v.max())


def ref_standard_deviation(a: StandardDeviation, rows: list[Row]) -> Expected:
    v = numbers(rows, a.column)
    return FAIL if v.size == 0 else float(np.std(v))  # population, ddof=0


def ref_approx_count_distinct(a: ApproxCountDistinct, rows: list[Row]) -> Expected:
    return Distinct(len({key(r[a.column]) for r in rows if r[a.column] is not None}))


def _ranked(rows: list[Row], column: str) -> tuple[float, ...] | None:
    v = numbers(rows, column)
    v = v[~np.isnan(v)]
    return tuple(map(float, v)) if v.size else None


def ref_approx_quantile(a: ApproxQuantile, rows: list[Row]) -> Expected:
    values = _ranked(rows, a.column)
    return FAIL if values is None else Quantile(values, a.quantile)


def ref_approx_quantiles(a: ApproxQuantiles, rows: list[Row]) -> Expected:
    values = _ranked(rows, a.column)
    return FAIL if values is None else {repr(q): Quantile(values, q) for q in a.quantiles}


def ref_correlation(a: Correlation, rows: list[Row]) -> Expected:
    pairs = [(r[a.first], r[a.second]) for r in rows if None not in (r[a.first], r[a.second])]
    if not pairs:
        return FAIL
    x, y = np.array(pairs, dtype=float).T
    if np.isnan(x).any() or np.isnan(y).any():
        return math.nan
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return FAIL
    return float(np.corrcoef(x, y)[0, 1])


def _inferred_type(value: Any) -> str:
    if value is None:
        return "Unknown"
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, int):
        return "Integral"
    if isinstance(value, float):
        return "Fractional"
    text = value.strip()
    if re.fullmatch(r"[+-]?[0-9]+", text):
        return "Integral"
    try:
        float(text)
    except ValueError:
        return "Boolean" if text.lower() in ("true", "false") else "String"
    return "Fractional"


def ref_data_type(a: DataType, rows: list[Row]) -> Expected:
    if not rows:
        return FAIL
    counts = Counter(_inferred_type(r[a.column]) for r in rows)
    expected: dict[str, float] = {}
    for name in ("Unknown", "Fractional", "Integral", "Boolean", "String"):
        expected[f"abs.{name}"] = float(counts[name])
        expected[f"ratio.{name}"] = counts[name] / len(rows)
    return expected


def ref_count_distinct(a: CountDistinct, rows: list[Row]) -> Expected:
    return float(len(frequencies(rows, a.columns, keep_nulls=False)))


def ref_distinctness(a: Distinctness, rows: list[Row]) -> Expected:
    counts = frequencies(rows, a.columns, keep_nulls=False)
    return FAIL if not counts else len(counts) / counts.total()


def ref_uniqueness(a: Uniqueness, rows: list[Row]) -> Expected:
    counts = frequencies(rows, a.columns, keep_nulls=False)
    return FAIL if not counts else sum(c == 1 for c in counts.values()) / counts.total()


def ref_unique_value_ratio(a: UniqueValueRatio, rows: list[Row]) -> Expected:
    counts = frequencies(rows, a.columns, keep_nulls=False)
    return FAIL if not counts else sum(c == 1 for c in counts.values()) / len(counts)


def ref_entropy(a: Entropy, rows: list[Row]) -> Expected:
    counts = frequencies(rows, a.columns, keep_nulls=False)
    if not counts:
        return FAIL
    p = np.array(list(counts.values()), dtype=float) / counts.total()
    return float(-(p * np.log(p)).sum())


def ref_mutual_information(a: MutualInformation, rows: list[Row]) -> Expected:
    joint = frequencies(rows, a.columns, keep_nulls=False)
    if not joint:
        return FAIL
    n = joint.total()
    first: Counter[Any] = Counter()
    second: Counter[Any] = Counter()
    for (va, vb), c in joint.items():
        first[va] += c
        second[vb] += c
    return float(
        sum(
            c / n * math.log((c / n) / (first[va] / n * second[vb] / n))
            for (va, vb), c in joint.items()
        )
    )


def histogram_text(value: Any) -> str:
    """How the Histogram names a value (Spark's cast to string)."""
    if value is None:
        return "NullValue"
    if value is NAN_KEY:
        return "NaN"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float | datetime):
        return SPARK_TEXT[value]
    return str(value)


def ref_histogram(a: Histogram, rows: list[Row]) -> Expected:
    counts = frequencies(rows, a.columns, keep_nulls=True)
    if not counts:
        return FAIL
    n = counts.total()
    pairs = sorted(
        ((histogram_text(v), c) for (v,), c in counts.items()), key=lambda p: (-p[1], p[0])
    )
    expected: dict[str, float] = {"bins": float(len(counts))}
    for text, c in pairs[: a.max_bins]:
        expected[f"abs.{text}"] = float(c)
        expected[f"ratio.{text}"] = c / n
    return expected


REFERENCES: dict[type[Any], Callable[[Any, list[Row]], Expected]] = {
    Size: ref_size,
    Completeness: ref_completeness,
    Compliance: ref_compliance,
    PatternMatch: ref_pattern_match,
    Mean: ref_mean,
    Sum: ref_sum,
    Minimum: ref_minimum,
    Maximum: ref_maximum,
    StandardDeviation: ref_standard_deviation,
    ApproxCountDistinct: ref_approx_count_distinct,
    ApproxQuantile: ref_approx_quantile,
    ApproxQuantiles: ref_approx_quantiles,
    Correlation: ref_correlation,
    DataType: ref_data_type,
    CountDistinct: ref_count_distinct,
    Distinctness: ref_distinctness,
    Uniqueness: ref_uniqueness,
    UniqueValueRatio: ref_unique_value_ratio,
    Entropy: ref_entropy,
    MutualInformation: ref_mutual_information,
    Histogram: ref_histogram,
}


def reference(analyzer: Analyzer[Any], rows: Iterable[Row]) -> Expected:
    """The expected metric of `analyzer` on `rows` (its `where` applied here)."""
    return REFERENCES[type(analyzer)](analyzer, scoped(analyzer, rows))


def groups_of(rows: Iterable[Row], *columns: str) -> dict[tuple[Any, ...], list[Row]]:
    """Rows per group key (of ``g`` unless `columns` are given); NaN values are `NAN_KEY`."""
    grouped: dict[tuple[Any, ...], list[Row]] = {}
    for r in rows:
        grouped.setdefault(tuple(key(r[c]) for c in columns or ("g",)), []).append(r)
    return grouped


def check_all(
    cases: Iterable[T], check: Callable[[T], None], label: Callable[[T], str] = str
) -> None:
    """Run `check` on every case of a table; fail once, listing every case that failed.

    One test per Spark run checks a whole table of analyzers this way: the run is paid once (once
    per xdist worker that runs the test), and a failure still names each analyzer that is wrong.
    """
    cases = list(cases)
    failures: list[str] = []
    for case in cases:
        try:
            check(case)
        except AssertionError as error:
            failures.append(f"- {label(case)}: {error}".replace("\n", "\n    "))
    assert not failures, f"{len(failures)} of {len(cases)} cases failed:\n" + "\n".join(failures)
