"""The analyzer contract, for every analyzer class, and the AnalyzerContext contract.

Analyzers: a stable metric id (equal instances, other processes), Deequ's entity/instance/name,
`empty_state` is the merge identity, the metric of the empty state is a defined value or a clear
failure, working doctests. AnalyzerContext: `to_pandas` columns, iteration as repository
`MetricRecord` s, multi-valued metrics flattened into one record per key ``<id>[<key>]``.
"""

from __future__ import annotations

import dataclasses
import doctest
import inspect
import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import anomaly.analyzers
from anomaly import AnalyzerContext
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
    DataTypeState,
    Distinctness,
    Entropy,
    FrequencyState,
    Histogram,
    Maximum,
    Mean,
    MeanState,
    Minimum,
    MutualInformation,
    PatternMatch,
    RecordCompleteness,
    Size,
    StandardDeviation,
    State,
    Sum,
    Timeliness,
    Uniqueness,
    UniqueValueRatio,
)
from anomaly.analyzers.state import CountState
from anomaly.metrics import Metric
from repository.records import MetricRecord
from tests.anomaly.conftest import assert_clean_message, same_metric
from tests.anomaly.test_states import KINDS, Kind, sample

WHERE = "country = 'DE'"
MULTI_VALUED = (ApproxQuantiles, DataType, Histogram, Timeliness)


@dataclass(frozen=True)
class Contract:
    """What one analyzer class promises, on a sample configuration."""

    make: Callable[[str | None], Analyzer[Any]]  # the sample, with the given `where`
    entity: str
    instance: str
    metric_id: str
    empty: float | None  # the metric of the empty state; None: a failure
    variant: Analyzer[Any]  # another parameter (not `where`): another metric

    @property
    def cls(self) -> type[Analyzer[Any]]:
        return type(self.make(None))

    def __str__(self) -> str:
        return self.cls.__name__


CONTRACTS = [
    Contract(lambda w: Size(where=w), "Dataset", "*", "Size(*)", 0.0, Size(where="x > 0")),
    Contract(
        lambda w: Completeness("price", where=w),
        "Column",
        "price",
        "Completeness(price)",
        None,
        Completeness("qty"),
    ),
    Contract(
        lambda w: Compliance("positive", "price > 0", where=w),
        "Column",
        "positive",
        "Compliance(positive: price > 0)",
        None,
        Compliance("positive", "price >= 0"),
    ),
    Contract(
        lambda w: PatternMatch("email", r"^.+@.+$", where=w),
        "Column",
        "email",
        "PatternMatch(email, ^.+@.+$)",
        None,
        PatternMatch("email", r"^.+@.+\..+$"),
    ),
    Contract(lambda w: Mean("price", where=w), "Column", "price", "Mean(price)", None, Mean("qty")),
    Contract(lambda w: Sum("price", where=w), "Column", "price", "Sum(price)", None, Sum("qty")),
    Contract(
        lambda w: Minimum("price", where=w), "Column", "price", "Minimum(price)", None, Minimum("q")
    ),
    Contract(
        lambda w: Maximum("price", where=w), "Column", "price", "Maximum(price)", None, Maximum("q")
    ),
    Contract(
        lambda w: StandardDeviation("price", where=w),
        "Column",
        "price",
        "StandardDeviation(price)",
        None,
        StandardDeviation("qty"),
    ),
    Contract(
        lambda w: ApproxCountDistinct("user", where=w),
        "Column",
        "user",
        "ApproxCountDistinct(user)",
        0.0,
        ApproxCountDistinct("user", lg_k=14),
    ),
    Contract(
        lambda w: ApproxQuantile("price", 0.5, where=w),
        "Column",
        "price",
        "ApproxQuantile(price, 0.5)",
        None,
        ApproxQuantile("price", 0.9),
    ),
    Contract(
        lambda w: ApproxQuantiles("price", (0.75, 0.25), where=w),
        "Column",
        "price",
        "ApproxQuantiles(price, 0.25, 0.75)",
        None,
        ApproxQuantiles("price", (0.25, 0.5, 0.75)),
    ),
    Contract(
        lambda w: Correlation("a", "b", where=w),
        "Multicolumn",
        "a,b",
        "Correlation(a, b)",
        None,
        Correlation("a", "c"),
    ),
    Contract(
        lambda w: DataType("zip", where=w), "Column", "zip", "DataType(zip)", None, DataType("z")
    ),
    Contract(
        lambda w: CountDistinct(("first", "last"), where=w),
        "Multicolumn",
        "first,last",
        "CountDistinct(first, last)",
        0.0,
        CountDistinct("first"),
    ),
    Contract(
        lambda w: Distinctness(("first", "last"), where=w),
        "Multicolumn",
        "first,last",
        "Distinctness(first, last)",
        None,
        Distinctness(("last", "first")),
    ),
    Contract(
        lambda w: Uniqueness("id", where=w), "Column", "id", "Uniqueness(id)", None, Uniqueness("k")
    ),
    Contract(
        lambda w: UniqueValueRatio(("a", "b"), where=w),
        "Multicolumn",
        "a,b",
        "UniqueValueRatio(a, b)",
        None,
        UniqueValueRatio("a"),
    ),
    Contract(lambda w: Entropy("c", where=w), "Column", "c", "Entropy(c)", None, Entropy("d")),
    Contract(
        lambda w: MutualInformation("a", "b", where=w),
        "Multicolumn",
        "a,b",
        "MutualInformation(a, b)",
        None,
        MutualInformation("b", "a"),
    ),
    Contract(
        lambda w: Histogram("country", where=w),
        "Column",
        "country",
        "Histogram(country)",
        None,
        Histogram("country", max_bins=10),
    ),
    Contract(
        lambda w: RecordCompleteness(("email", "country"), where=w),
        "Multicolumn",
        "email,country",
        "RecordCompleteness(email, country)",
        None,
        RecordCompleteness(("email", "country"), valid="length(country) = 2"),
    ),
    Contract(
        lambda w: Timeliness("event_time", "loaded_at", where=w),
        "Multicolumn",
        "event_time,loaded_at",
        "Timeliness(event_time, loaded_at)",
        None,
        Timeliness("event_time", "loaded_at", threshold=3600),
    ),
]

# Analyzers of other issues, with their own contract tests.
OTHER_ISSUES = {"Predictability"}  # issue 8: a model per run, not a differential state


def exported_analyzer_classes() -> set[type[Any]]:
    classes = {getattr(anomaly.analyzers, name) for name in anomaly.analyzers.__all__}
    return {
        c
        for c in classes
        if isinstance(c, type)
        and issubclass(c, Analyzer)
        and not inspect.isabstract(c)
        and c.__name__ not in OTHER_ISSUES
    }


def test_every_analyzer_class_has_a_contract() -> None:
    assert {c.cls for c in CONTRACTS} == exported_analyzer_classes()


@pytest.mark.parametrize("contract", CONTRACTS, ids=str)
def test_identity_fields(contract: Contract) -> None:
    analyzer = contract.make(None)
    assert (analyzer.entity, analyzer.instance, analyzer.metric_id) == (
        contract.entity,
        contract.instance,
        contract.metric_id,
    )
    assert analyzer.metric_name == contract.cls.__name__
    assert str(analyzer) == analyzer.metric_id
    assert analyzer.metric_id.startswith(f"{analyzer.metric_name}(")


@pytest.mark.parametrize("contract", CONTRACTS, ids=str)
def test_where_is_part_of_the_identity(contract: Contract) -> None:
    plain, filtered = contract.make(None), contract.make(WHERE)
    assert filtered.metric_id == f"{contract.metric_id} where: {WHERE}"
    assert filtered != plain and filtered.where == WHERE
    assert (filtered.entity, filtered.instance) == (plain.entity, plain.instance)


@pytest.mark.parametrize("contract", CONTRACTS, ids=str)
def test_equal_instances_are_one_analyzer(contract: Contract) -> None:
    a, b = contract.make(WHERE), contract.make(WHERE)
    assert a == b and hash(a) == hash(b) and a.metric_id == b.metric_id
    assert len({a: 1, b: 2}) == 1
    assert contract.variant != contract.make(None)
    assert contract.variant.metric_id != contract.metric_id
    assert len({contract.make(None).metric_id, contract.variant.metric_id, a.metric_id}) == 3


@pytest.mark.parametrize("contract", CONTRACTS, ids=str)
def test_analyzers_are_frozen(contract: Contract) -> None:
    analyzer = contract.make(None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        analyzer.where = "x > 1"  # type: ignore[misc]


def test_equivalent_parameters_give_one_id() -> None:
    """Parameters that do not change the metric do not change its id."""
    assert ApproxQuantiles("p", [0.5, 0.25, 0.5]) == ApproxQuantiles("p", (0.25, 0.5))
    assert ApproxQuantiles("p", [0.5, 0.25]).metric_id == "ApproxQuantiles(p, 0.25, 0.5)"
    assert ApproxQuantile("p", 1).metric_id == ApproxQuantile("p", 1.0).metric_id
    assert CountDistinct("a") == CountDistinct(["a"]) == CountDistinct(("a",))
    assert CountDistinct("a").entity == "Column"
    assert Histogram("c", max_bins=1000) == Histogram("c")
    assert ApproxCountDistinct("u", lg_k=12) == ApproxCountDistinct("u")


ID_SCRIPT = """
import json
from tests.anomaly.test_contract import CONTRACTS, WHERE
print(json.dumps([
    [c.make(None).metric_id, c.make(WHERE).metric_id, c.variant.metric_id] for c in CONTRACTS
]))
"""


@pytest.fixture(scope="module")
def ids_in_other_process() -> list[list[str]]:
    """Metric ids computed by a fresh interpreter with another hash seed."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONHASHSEED": "4242", "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", ID_SCRIPT],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    ids: list[list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return ids


@pytest.mark.parametrize("index", range(len(CONTRACTS)), ids=[str(c) for c in CONTRACTS])
def test_metric_ids_are_the_same_in_another_process(
    ids_in_other_process: list[list[str]], index: int
) -> None:
    contract = CONTRACTS[index]
    here = [contract.make(None).metric_id, contract.make(WHERE).metric_id]
    assert ids_in_other_process[index] == [*here, contract.variant.metric_id]


def kind_of(state: State) -> Kind:
    return next(k for k in KINDS if isinstance(state, k.cls))


@pytest.mark.parametrize("contract", CONTRACTS, ids=str)
def test_empty_state_is_the_merge_identity(contract: Contract) -> None:
    analyzer = contract.make(None)
    empty = analyzer.empty_state()
    kind = kind_of(empty)
    assert empty == kind.cls.identity()
    some = sample(kind)
    assert kind.same(empty.merge(some), some) and kind.same(some.merge(empty), some)
    assert same_metric(analyzer.metric(empty.merge(some)), analyzer.metric(some))
    assert kind.same(empty.merge(empty), empty)


@pytest.mark.parametrize("contract", CONTRACTS, ids=str)
@pytest.mark.parametrize("where", [None, WHERE])
def test_metric_of_the_empty_state(contract: Contract, where: str | None) -> None:
    """A defined value (Size 0, no distinct values) or a failure saying there was nothing."""
    analyzer = contract.make(where)
    metric = analyzer.metric(analyzer.empty_state(), {"country": "DE"})
    assert (metric.entity, metric.instance, metric.name, metric.metric_id) == (
        analyzer.entity,
        analyzer.instance,
        analyzer.metric_name,
        analyzer.metric_id,
    )
    assert dict(metric.group) == {"country": "DE"}
    if contract.empty is not None:
        assert metric.succeeded and metric.value == contract.empty
        return
    assert not metric.succeeded and metric.value is None
    assert metric.error is not None and metric.error.startswith(f"{analyzer.metric_id}: no ")
    assert "needs at least one" in metric.error
    if where:
        assert f"matching where: {where}" in metric.error
    assert_clean_message(metric.error)


@pytest.mark.parametrize("contract", CONTRACTS, ids=str)
def test_metric_value_shape(contract: Contract) -> None:
    """Multi-valued analyzers give a mapping of floats; the others a float."""
    analyzer = contract.make(None)
    metric = analyzer.metric(sample(kind_of(analyzer.empty_state())))
    assert metric.succeeded, metric.error
    if isinstance(analyzer, MULTI_VALUED):
        assert isinstance(metric.value, Mapping) and metric.value
        assert all(isinstance(k, str) and isinstance(v, float) for k, v in metric.value.items())
    else:
        assert isinstance(metric.value, float)


@pytest.mark.parametrize("contract", CONTRACTS, ids=str)
def test_class_has_working_doctests(contract: Contract) -> None:
    module = sys.modules[contract.cls.__module__]
    tests = doctest.DocTestFinder(recurse=False).find(contract.cls, globs=vars(module).copy())
    assert tests and any(t.examples for t in tests), f"{contract} has no doctest examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0


# ---------------------------------------------------------------------------------------------
# AnalyzerContext
# ---------------------------------------------------------------------------------------------

HISTOGRAM = Histogram("country")
QUANTILES = ApproxQuantiles("price", (0.5, 0.9))
TYPES = DataType("zip")
MEAN = Mean("price")
BROKEN = Mean("missing")
TYPE_NAMES = ("Unknown", "Fractional", "Integral", "Boolean", "String")


def grouped_context() -> AnalyzerContext:
    """Two groups of a run grouped by ``segment``; one failing analyzer."""
    from tests.anomaly.test_states import kll_state

    table = pa.table({"_c0": ["DE", "FR", None], "_cnt": [3, 1, 1]})
    metrics: dict[tuple[Analyzer[Any], tuple[Any, ...]], Metric] = {}
    for key in (("web",), (None,)):
        labels = {"segment": key[0]}
        metrics[(Size(), key)] = Size().metric(CountState(5), labels)
        metrics[(HISTOGRAM, key)] = HISTOGRAM.metric(FrequencyState(table), labels)
        metrics[(QUANTILES, key)] = QUANTILES.metric(kll_state([1.0, 2.0, 3.0]), labels)
        metrics[(TYPES, key)] = TYPES.metric(DataTypeState(1, 0, 3, 0, 0), labels)
        metrics[(MEAN, key)] = MEAN.metric(MeanState(10.0, 4), labels)
        metrics[(BROKEN, key)] = BROKEN.failure("Mean(missing): column 'missing' ...", labels)
    return AnalyzerContext(metrics, ("segment",))


def test_to_pandas_columns_and_group_column() -> None:
    frame = grouped_context().to_pandas()
    assert list(frame.columns) == [
        "entity",
        "instance",
        "name",
        "value",
        "metric_id",
        "error",
        "segment",
    ]
    assert set(frame["segment"].replace({float("nan"): None})) == {"web", None}
    assert len(frame) == len(list(grouped_context()))


def test_ungrouped_to_pandas_has_no_group_column() -> None:
    context = AnalyzerContext({(Size(), ()): Size().metric(CountState(2))})
    assert list(context.to_pandas().columns) == [
        "entity",
        "instance",
        "name",
        "value",
        "metric_id",
        "error",
    ]
    assert context[Size()].value == 2.0


def test_iteration_yields_metric_records() -> None:
    records = list(grouped_context())
    assert records and all(isinstance(r, MetricRecord) for r in records)
    per_group = {
        "Size(*)",
        "Mean(price)",
        "Mean(missing)",
        "Histogram(country)[bins]",
        "Histogram(country)[abs.DE]",
        "Histogram(country)[ratio.DE]",
        "Histogram(country)[abs.FR]",
        "Histogram(country)[ratio.FR]",
        "Histogram(country)[abs.NullValue]",
        "Histogram(country)[ratio.NullValue]",
        "ApproxQuantiles(price, 0.5, 0.9)[0.5]",
        "ApproxQuantiles(price, 0.5, 0.9)[0.9]",
        *(f"DataType(zip)[{m}.{t}]" for m in ("abs", "ratio") for t in TYPE_NAMES),
    }
    for group in ("web", None):
        mine = [r for r in records if r.group == {"segment": group}]
        assert sorted(r.metric_id for r in mine) == sorted(per_group)
    assert len(records) == 2 * len(per_group)


@pytest.mark.parametrize(
    ("analyzer", "key", "name", "value"),
    [
        (HISTOGRAM, "abs.DE", "Histogram.abs.DE", 3.0),
        (HISTOGRAM, "ratio.NullValue", "Histogram.ratio.NullValue", 0.2),
        (HISTOGRAM, "bins", "Histogram.bins", 3.0),
        (QUANTILES, "0.5", "ApproxQuantiles.0.5", 2.0),
        (TYPES, "ratio.Integral", "DataType.ratio.Integral", 0.75),
        (TYPES, "abs.Unknown", "DataType.abs.Unknown", 1.0),
    ],
    ids=lambda v: str(v),
)
def test_multi_valued_metrics_flatten_one_record_per_key(
    analyzer: Analyzer[Any], key: str, name: str, value: float
) -> None:
    metric = grouped_context().metric(analyzer, ("web",))
    records = {r.metric_id: r for r in metric.records()}
    assert isinstance(metric.value, Mapping) and len(records) == len(metric.value)
    record = records[f"{analyzer.metric_id}[{key}]"]
    assert (record.entity, record.instance, record.name) == (
        analyzer.entity,
        analyzer.instance,
        name,
    )
    assert record.value == value and record.error is None and record.succeeded
    assert record.group == {"segment": "web"}


def test_failed_metric_is_one_record_with_its_error() -> None:
    [record] = list(grouped_context().metric(BROKEN, (None,)).records())
    assert record.value is None and not record.succeeded
    assert record.error == "Mean(missing): column 'missing' ..."
    assert record.group == {"segment": None}


def test_grouped_context_lookups() -> None:
    context = grouped_context()
    with pytest.raises(KeyError, match="grouped by"):
        context[MEAN]
    assert context.metric(MEAN, ("web",)).value == 2.5
    assert set(context.for_analyzer(MEAN)) == {("web",), (None,)}
    assert context.analyzers == [Size(), HISTOGRAM, QUANTILES, TYPES, MEAN, BROKEN]
    assert context.groups == [("web",), (None,)]
    assert [m.metric_id for m in context.failures] == ["Mean(missing)", "Mean(missing)"]
    assert len(context) == 12
