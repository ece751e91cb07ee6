"""ColumnHealthState is a commutative monoid; its metric of merged parts is that of the union."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from datasketches import hll_sketch, kll_doubles_sketch
from hypothesis import given
from hypothesis import strategies as st

from anomaly.analyzers import state_from_bytes
from anomaly.analyzers.slot import TOP_VALUES
from anomaly.errors import StateError
from anomaly.monitors import ColumnHealth, ColumnHealthState
from tests.anomaly.test_states import SETTINGS

Values = list[str | None]
texts = st.lists(st.sampled_from(["a", "b", "", "ccc", None]) | st.text(max_size=4), max_size=40)


def state_of(values: Values) -> ColumnHealthState:
    """The state of a string column from scratch (lengths as its numbers), as the slot does."""
    present = [v for v in values if v is not None]
    hll, kll = hll_sketch(12), kll_doubles_sketch(200)
    for v in present:
        hll.update(v or "\x00")
        kll.update(float(len(v)))
    lengths = [float(len(v)) for v in present]
    mean = sum(lengths) / len(lengths) if lengths else 0.0
    counts = Counter(present)
    top = None if len(counts) > TOP_VALUES else tuple(
        sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )  # fmt: skip
    return ColumnHealthState(
        "string" if values else "", len(values), len(present),
        hll.serialize_compact() if present else None, len(lengths),
        min(lengths) if lengths else None, max(lengths) if lengths else None,
        sum(lengths), sum((x - mean) ** 2 for x in lengths),
        kll.serialize() if present else None, lengths.count(0.0), 0, top,
    )  # fmt: skip


def same(a: ColumnHealthState, b: ColumnHealthState) -> bool:
    """Exact counts and extremes equal, sums close, sketches estimating the same."""
    exact = ("category", "rows", "present", "numbers", "minimum", "maximum", "zeros", "top")
    if any(getattr(a, f) != getattr(b, f) for f in exact):
        return False
    if not (math.isclose(a.total, b.total) and math.isclose(a.m2, b.m2, abs_tol=1e-6)):
        return False
    metric_a, metric_b = (ColumnHealth("c").metric(s).value for s in (a, b))
    assert isinstance(metric_a, dict) and isinstance(metric_b, dict)
    return metric_a.keys() == metric_b.keys() and all(
        math.isclose(metric_a[k], metric_b[k], rel_tol=0.05, abs_tol=1e-9) for k in metric_a
    )


@SETTINGS
@given(texts, texts, texts)
def test_merge_is_associative(a: Values, b: Values, c: Values) -> None:
    x, y, z = map(state_of, (a, b, c))
    assert same(x.merge(y).merge(z), x.merge(y.merge(z)))


@SETTINGS
@given(texts, texts)
def test_merge_is_commutative_and_is_the_state_of_the_union(a: Values, b: Values) -> None:
    x, y = state_of(a), state_of(b)
    assert same(x.merge(y), y.merge(x))
    assert same(x.merge(y), state_of(a + b))


@SETTINGS
@given(texts)
def test_identity_is_neutral_and_bytes_round_trip(a: Values) -> None:
    x = state_of(a)
    assert same(x.merge(ColumnHealthState.identity()), x)
    assert same(ColumnHealthState.identity().merge(x), x)
    assert state_from_bytes(x.to_bytes()) == x


def test_too_many_distinct_values_drop_the_top_values_for_good() -> None:
    many = state_of([f"v{i}" for i in range(TOP_VALUES + 1)])
    few = state_of(["a", "a", "b"])
    assert many.top is None and few.top == (("a", 2), ("b", 1))
    assert few.merge(many).top is None and many.merge(few).top is None
    halves = state_of([f"v{i}" for i in range(12)]).merge(state_of([f"w{i}" for i in range(12)]))
    assert halves.top is None  # each part had few values, together too many


def test_states_of_a_column_of_two_types_do_not_merge() -> None:
    numbers = ColumnHealthState("numeric", rows=2, present=2)
    with pytest.raises(StateError, match="numeric column with that of a string column"):
        numbers.merge(state_of(["a"]))


def test_a_state_without_rows_has_nothing_to_report() -> None:
    assert ColumnHealth("c").metric(ColumnHealthState.identity()).value == {}
    assert ColumnHealth("c").metric(state_of([None, None])).value == {"completeness": 0.0}
