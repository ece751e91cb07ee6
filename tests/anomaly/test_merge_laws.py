"""The merge law: states are a commutative monoid; ``metric(s(A).merge(s(B))) == metric(A + B)``.

Hypothesis checks the laws on the pure-Python states (sketches within their error, not bytes);
Spark checks the law per analyzer on fixed disjoint splits of generated data, states collected
with ``keep_states()``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pyspark.sql import DataFrame

from anomaly import AnalyzerContext
from anomaly.analyzers import (
    Analyzer,
    ApproxCountDistinct,
    ApproxQuantile,
    ApproxQuantiles,
    HllState,
    MaxState,
    MinState,
    Size,
    State,
)
from tests.anomaly.conftest import (
    ANALYZERS,
    ECONOMICAL,
    ROWS,
    Row,
    RunAnalyzers,
    assert_metric,
    check_all,
    groups_of,
    reference,
    same_float,
    same_metric,
)
from tests.anomaly.test_states import KINDS, SETTINGS, Kind

# ---------------------------------------------------------------------------------------------
# Pure-Python states: Hypothesis
# ---------------------------------------------------------------------------------------------


def agree(kind: Kind, left: State, right: State, data: list[Any]) -> bool:
    """Both results are the state of `data`: equal, or for sketches both within their error."""
    if kind.within_error is not None:
        return kind.within_error(left, data) and kind.within_error(right, data)
    return kind.same(left, right)


@pytest.mark.parametrize("kind", KINDS, ids=str)
@SETTINGS
@given(data=st.data())
def test_merge_is_associative(kind: Kind, data: st.DataObject) -> None:
    parts = [data.draw(kind.data, label=f"part {i}") for i in range(3)]
    a, b, c = map(kind.build, parts)
    assert agree(kind, a.merge(b).merge(c), a.merge(b.merge(c)), [*parts[0], *parts[1], *parts[2]])


@pytest.mark.parametrize("kind", KINDS, ids=str)
@SETTINGS
@given(data=st.data())
def test_merge_is_commutative(kind: Kind, data: st.DataObject) -> None:
    first, second = data.draw(kind.data, label="first"), data.draw(kind.data, label="second")
    a, b = kind.build(first), kind.build(second)
    assert agree(kind, a.merge(b), b.merge(a), [*first, *second])


@pytest.mark.parametrize("kind", KINDS, ids=str)
@SETTINGS
@given(data=st.data())
def test_identity_is_neutral(kind: Kind, data: st.DataObject) -> None:
    state = kind.build(data.draw(kind.data))
    identity = kind.cls.identity()
    assert kind.same(state.merge(identity), state)
    assert kind.same(identity.merge(state), state)
    # The state of an empty data set is neutral too (e.g. an empty sketch, an empty table).
    assert kind.same(state.merge(kind.build([])), state)
    assert kind.same(kind.build([]).merge(state), state)


@pytest.mark.parametrize("kind", KINDS, ids=str)
@SETTINGS
@given(data=st.data())
def test_state_of_union_is_merge_of_states(kind: Kind, data: st.DataObject) -> None:
    """The core law in Python: s(d1).merge(s(d2)) is s(d1 + d2)."""
    first, second = data.draw(kind.data, label="first"), data.draw(kind.data, label="second")
    merged, union = kind.build(first).merge(kind.build(second)), kind.build([*first, *second])
    assert agree(kind, merged, union, [*first, *second])


@pytest.mark.parametrize("kind", [k for k in KINDS if k.within_error], ids=str)
def test_sketch_merges_beyond_exact_modes(kind: Kind) -> None:
    """Big disjoint and overlapping parts: HLL leaves its exact list/set modes, KLL compacts."""
    if kind.cls is HllState:
        parts: list[list[Any]] = [list(range(0, 20_000)), list(range(10_000, 45_000)), ["a", "b"]]
    else:
        parts = [[float(v) for v in range(0, 6_000, 3)], [float(v % 997) for v in range(9_000)], []]
    states = [kind.build(p) for p in parts]
    union = [v for p in parts for v in p]
    for ordered in (states, states[::-1], [states[1], states[0], states[2]]):
        merged = ordered[0].merge(ordered[1]).merge(ordered[2])
        assert kind.within_error is not None and kind.within_error(merged, union)
    nested = states[0].merge(states[1].merge(states[2]))
    assert kind.within_error(nested, union)


NAN, INF = math.nan, math.inf


@pytest.mark.parametrize(
    ("cls", "a", "b", "expected"),
    [
        (MinState, NAN, 1.0, 1.0),
        (MinState, NAN, INF, INF),
        (MinState, -INF, NAN, -INF),
        (MinState, NAN, NAN, NAN),
        (MinState, None, NAN, NAN),
        (MinState, -0.0, 0.0, 0.0),
        (MaxState, NAN, 1.0, NAN),
        (MaxState, INF, NAN, NAN),
        (MaxState, -INF, 1.0, 1.0),
        (MaxState, None, 2.0, 2.0),
        (MaxState, None, None, None),
    ],
)
def test_extremes_order_nan_as_spark_does(
    cls: type[MinState | MaxState], a: float | None, b: float | None, expected: float | None
) -> None:
    """NaN is larger than every number, +inf included (Spark's ordering of doubles)."""
    for x, y in ((a, b), (b, a)):
        merged = cls(x).merge(cls(y)).value  # type: ignore[arg-type]
        assert merged is expected or (
            merged is not None and expected is not None and same_float(merged, expected)
        ), (x, y, merged)


def test_within_error_checks_can_fail() -> None:
    """The sketch checks used above reject a state of other data."""
    for kind in KINDS:
        if kind.within_error is not None:
            some = [float(v) for v in range(300)]
            assert kind.within_error(kind.build(some), some)
            assert not kind.within_error(kind.build(some), [v + 1000.0 for v in range(600)])


# ---------------------------------------------------------------------------------------------
# Spark: metric(state(A).merge(state(B))) == metric(A + B), per analyzer
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Split:
    """A disjoint split of the data: part A is where `sql` holds, part B the rest."""

    name: str
    sql: str
    python: Callable[[Row], bool]
    grouped: bool

    def __str__(self) -> str:
        return self.name


SPLITS = [
    Split("interleaved", "id % 3 = 0", lambda r: r["id"] % 3 == 0, grouped=False),
    # Skewed: all of group "e" (ids 0-5) is in A, so B has no such group: its state is the identity.
    Split("skewed-grouped", "id < 17", lambda r: r["id"] < 17, grouped=True),
]
SKETCHES = (ApproxCountDistinct, ApproxQuantile, ApproxQuantiles)


def state_of(context: AnalyzerContext, analyzer: Analyzer[Any], group: tuple[Any, ...]) -> Any:
    """The kept state; a group absent from this part has the identity state."""
    return context.states.get((analyzer, group), analyzer.empty_state())


def test_split_parts_are_disjoint_and_cover_the_data() -> None:
    for split in SPLITS:
        a = [r["id"] for r in ROWS if split.python(r)]
        b = [r["id"] for r in ROWS if not split.python(r)]
        assert a and b and not set(a) & set(b) and sorted(a + b) == [r["id"] for r in ROWS]


@pytest.mark.parametrize("split", SPLITS, ids=str)
def test_metric_of_merged_states_is_metric_of_union(
    run_analyzers: RunAnalyzers, rows_df: DataFrame, split: Split
) -> None:
    """Per analyzer: metric(state(A).merge(state(B))) equals the union's metric (a Spark run of
    A + B on the default path) and the reference; sketches within their error."""
    part_a = run_analyzers(rows_df.where(split.sql), ECONOMICAL, split.grouped, True)
    part_b = run_analyzers(rows_df.where(f"NOT ({split.sql})"), ECONOMICAL, split.grouped, True)
    union = run_analyzers(rows_df, ANALYZERS, split.grouped, False)  # the reference tests' run
    groups = groups_of(ROWS) if split.grouped else {(): ROWS}

    def check(analyzer: Analyzer[Any]) -> None:
        for group, rows in groups.items():
            union_metric = union.metric(analyzer, group)
            merged = state_of(part_a, analyzer, group).merge(state_of(part_b, analyzer, group))
            merged_metric = analyzer.metric(merged, union_metric.group)
            assert_metric(merged_metric, reference(analyzer, rows), f"merged {split}")
            if not isinstance(analyzer, SKETCHES):  # randomised: each within error, above
                assert same_metric(merged_metric, union_metric), (merged_metric, union_metric)

    check_all(ECONOMICAL, check)
    # The Spark parts really are the Python split, so the law above is about A and B.
    expected_a = sum(1 for r in ROWS if split.python(r))
    sizes = [
        sum(float(m.value or 0) for m in p.for_analyzer(Size()).values()) for p in (part_a, part_b)
    ]
    assert sizes == [expected_a, len(ROWS) - expected_a]
    if split.grouped:  # group "e" is only in A: B's state of it is the identity
        assert ("e",) in part_a.groups and ("e",) not in part_b.groups
