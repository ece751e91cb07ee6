"""States: serialisation round trips and clear `StateError` s (bad bytes, version, kinds).

The merge laws of the pure-Python states are in `test_merge_laws.py`; the state builders shared
with it (`KINDS`) live here.
"""

from __future__ import annotations

import base64
import json
import math
import struct
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from datasketches import hll_sketch, kll_doubles_sketch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anomaly.analyzers import (
    CorrelationState,
    CountState,
    DataTypeState,
    FrequencyState,
    HllState,
    KllState,
    LatencyState,
    MatchesState,
    MaxState,
    MeanState,
    MinState,
    MomentsState,
    State,
    state_from_bytes,
)
from anomaly.analyzers.state import FORMAT_VERSION, MAGIC
from anomaly.errors import StateError
from tests.anomaly.conftest import NAN_KEY, Distinct, Quantile, key, same_float

Data = list[Any]

# ---------------------------------------------------------------------------------------------
# Per state kind: a strategy for data sets, the state of a data set built from scratch (reference,
# not the engine's Spark code), and the equality the laws are checked with.
# ---------------------------------------------------------------------------------------------

exact_floats = st.integers(-(10**6), 10**6).map(float)  # sums stay exact: laws hold with ==
special_floats = st.sampled_from([math.nan, math.inf, -math.inf, 0.5, -0.0, 1e300])
small_floats = st.integers(-1000, 1000).map(float)


def count_state(data: Data) -> CountState:
    return CountState(len(data))


def matches_state(data: Data) -> MatchesState:
    return MatchesState(sum(map(bool, data)), len(data))


def mean_state(data: Data) -> MeanState:
    return MeanState(float(math.fsum(data)), len(data))


def min_state(data: Data) -> MinState:
    if not data:
        return MinState(None)
    numbers = [v for v in data if not math.isnan(v)]
    return MinState(min(numbers) if numbers else math.nan)  # Spark: NaN is larger than +inf


def max_state(data: Data) -> MaxState:
    if not data:
        return MaxState(None)
    return MaxState(math.nan if any(math.isnan(v) for v in data) else max(data))


def moments_state(data: Data) -> MomentsState:
    if not data:
        return MomentsState(0, 0.0, 0.0)
    v = np.asarray(data, dtype=float)
    return MomentsState(v.size, float(v.mean()), float(((v - v.mean()) ** 2).sum()))


def correlation_state(data: Data) -> CorrelationState:
    if not data:
        return CorrelationState(0, 0.0, 0.0, 0.0, 0.0, 0.0)
    x, y = np.asarray(data, dtype=float).T
    dx, dy = x - x.mean(), y - y.mean()
    return CorrelationState(
        x.size,
        float(x.mean()),
        float(y.mean()),
        float((dx * dy).sum()),
        float((dx * dx).sum()),
        float((dy * dy).sum()),
    )


TYPE_NAMES = ("unknown", "fractional", "integral", "boolean", "string")


def data_type_state(data: Data) -> DataTypeState:
    counts = Counter(data)
    return DataTypeState(*(counts[name] for name in TYPE_NAMES))


def hll_state(data: Data) -> HllState:
    sketch = hll_sketch(12)
    for value in data:
        # As ApproxCountDistinct feeds strings: prefixed, since DataSketches skips "" otherwise.
        sketch.update(f"\x01{value}" if isinstance(value, str) else value)
    return HllState(sketch.serialize_compact(), 12)


def kll_state(data: Data) -> KllState:
    sketch = kll_doubles_sketch(200)
    for value in data:
        sketch.update(value)
    return KllState(sketch.serialize())


LATE = 100.0
"""The threshold the latency states of these tests count late records against (seconds)."""


def latency_state(data: Data) -> LatencyState:
    sketch = kll_state(data).sketch if data else None
    late = sum(v > LATE for v in data)
    return LatencyState(len(data), float(math.fsum(data)), late, max(data, default=None), sketch)


def latency_same(a: State, b: State) -> bool:
    """Counts, sums and maximum exact; the sketch compared by what it estimates."""
    assert isinstance(a, LatencyState) and isinstance(b, LatencyState)
    exact = (a.count, a.total, a.late, a.maximum) == (b.count, b.total, b.late, b.maximum)
    return exact and sketches_same(KllState(a.sketch), KllState(b.sketch))


def latency_within_error(state: State, data: Data) -> bool:
    assert isinstance(state, LatencyState)
    return kll_within_error(KllState(state.sketch), data)


FREQUENCY_SCHEMA = pa.schema([("_c0", pa.string()), ("_c1", pa.float64()), ("_cnt", pa.int64())])


def frequency_state(data: Data) -> FrequencyState:
    """Counts of (string | None, float | NaN | None) tuples, as the runner collects them."""
    counts = Counter(tuple(key(v) for v in row) for row in data)
    rows = [(a, math.nan if b is NAN_KEY else b, c) for (a, b), c in counts.items()]
    columns = list(zip(*rows, strict=True)) if rows else [[], [], []]
    return FrequencyState(pa.table(columns, schema=FREQUENCY_SCHEMA))


def same_fields(a: State, b: State, rel: float = 1e-9, abs_tol: float = 1e-6) -> bool:
    """Same type; int fields equal; float fields close (NaN equal to NaN); None equal to None."""
    if type(a) is not type(b):
        return False
    for f in fields(a):  # type: ignore[arg-type]
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, float) and isinstance(y, float):
            if not same_float(x, y, rel, abs_tol):
                return False
        elif x != y:
            return False
    return True


def exactly(a: State, b: State) -> bool:
    return same_fields(a, b, rel=0.0, abs_tol=0.0)


@dataclass(frozen=True, repr=False)
class Kind:
    """How to test one state class: data sets, the state of a data set, equality for the laws."""

    cls: type[State]
    data: st.SearchStrategy[Data]
    build: Callable[[Data], State]
    same: Callable[[State, State], bool]
    # For sketches: whether a merged state is within the sketch's error of the union's data.
    within_error: Callable[[State, Data], bool] | None = None

    def __str__(self) -> str:
        return self.cls.__name__

    __repr__ = __str__


def hll_within_error(state: State, data: Data) -> bool:
    assert isinstance(state, HllState)
    return Distinct(len(set(data))).accepts(state.estimate())


def kll_within_error(state: State, data: Data) -> bool:
    assert isinstance(state, KllState)
    if state.count != len(data):
        return False
    if not data:
        return True
    values = tuple(data)
    return all(Quantile(values, q).accepts(state.quantile(q)) for q in (0.0, 0.1, 0.5, 0.9, 1.0))


def sketches_same(a: State, b: State) -> bool:
    """Sketch states are compared by what they estimate, not by bytes."""
    if isinstance(a, HllState) and isinstance(b, HllState):
        return math.isclose(a.estimate(), b.estimate(), rel_tol=0.05, abs_tol=0.5)
    assert isinstance(a, KllState) and isinstance(b, KllState)
    return a.count == b.count and (a.count == 0 or a.quantile(0) == b.quantile(0))


def frequency_same(a: State, b: State) -> bool:
    return a == b


KINDS: list[Kind] = [
    Kind(CountState, st.lists(st.none(), max_size=30), count_state, exactly),
    Kind(MatchesState, st.lists(st.booleans(), max_size=30), matches_state, exactly),
    Kind(MeanState, st.lists(exact_floats, max_size=30), mean_state, exactly),
    Kind(MinState, st.lists(exact_floats | special_floats, max_size=10), min_state, exactly),
    Kind(MaxState, st.lists(exact_floats | special_floats, max_size=10), max_state, exactly),
    Kind(MomentsState, st.lists(small_floats, max_size=30), moments_state, same_fields),
    Kind(
        CorrelationState,
        st.lists(st.tuples(small_floats, small_floats), max_size=30),
        correlation_state,
        same_fields,
    ),
    Kind(
        DataTypeState, st.lists(st.sampled_from(TYPE_NAMES), max_size=30), data_type_state, exactly
    ),
    Kind(
        HllState,
        st.lists(st.integers(0, 3000) | st.text(max_size=3), max_size=400),
        hll_state,
        sketches_same,
        hll_within_error,
    ),
    Kind(
        KllState,
        st.lists(st.integers(-500, 500).map(float), max_size=250),
        kll_state,
        sketches_same,
        kll_within_error,
    ),
    Kind(
        LatencyState,
        st.lists(st.integers(-50, 500).map(float), max_size=120),
        latency_state,
        latency_same,
        latency_within_error,
    ),
    Kind(
        FrequencyState,
        st.lists(
            st.tuples(
                st.sampled_from(["a", "b", "", None]),
                st.sampled_from([0.0, 1.5, math.nan, None]),
            ),
            max_size=30,
        ),
        frequency_state,
        frequency_same,
    ),
]

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def sample(kind: Kind) -> State:
    """A fixed, non-empty state of `kind` (for tests that need one, not a property)."""
    data = {
        CountState: [None] * 3,
        MatchesState: [True, False, True],
        MeanState: [1.0, 2.0, 4.0],
        MinState: [3.0, -1.0, math.nan],
        MaxState: [3.0, math.nan],
        MomentsState: [1.0, 2.0, 4.0],
        CorrelationState: [(1.0, 2.0), (2.0, 3.5), (4.0, 1.0)],
        DataTypeState: ["integral", "string", "unknown"],
        HllState: [1, 2, "x"],
        KllState: [1.0, 2.0, 3.0],
        LatencyState: [30.0, 250.0, -5.0],
        FrequencyState: [("a", 1.5), ("a", 1.5), (None, math.nan), ("", None)],
    }[kind.cls]
    return kind.build(data)


def all_state_classes() -> set[type[State]]:
    found: set[type[State]] = set()
    pending = list(State.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if "kind" in cls.__dict__:
            found.add(cls)
    return found


# States of analyzers outside the engine issue, tested with their analyzers.
OTHER_ISSUES = {"ConfusionState"}  # Predictability (issue 8): not differential by design


def test_every_state_class_of_the_analyzers_is_covered() -> None:
    """Every state class of `anomaly.analyzers` (other packages' states have their own tests)."""
    in_scope = {
        cls
        for cls in all_state_classes()
        if cls.__module__.startswith("anomaly.analyzers.") and cls.__name__ not in OTHER_ISSUES
    }
    assert {k.cls for k in KINDS} == in_scope


# ---------------------------------------------------------------------------------------------
# Serialisation
# ---------------------------------------------------------------------------------------------


def round_trip_equal(kind: Kind, state: State) -> bool:
    """`state_from_bytes(state.to_bytes()) == state`; NaN fields compare equal to NaN."""
    back = state_from_bytes(state.to_bytes())
    if kind.cls in (
        HllState,
        KllState,
        LatencyState,
        FrequencyState,
        CountState,
        MatchesState,
        DataTypeState,
    ):
        return back == state
    return type(back) is type(state) and exactly(back, state)


@pytest.mark.parametrize("kind", KINDS, ids=str)
@SETTINGS
@given(data=st.data())
def test_round_trip(kind: Kind, data: st.DataObject) -> None:
    state = kind.build(data.draw(kind.data))
    assert round_trip_equal(kind, state)


@pytest.mark.parametrize("kind", KINDS, ids=str)
def test_round_trip_of_identity_and_sample(kind: Kind) -> None:
    identity = kind.cls.identity()
    assert state_from_bytes(identity.to_bytes()) == identity
    assert round_trip_equal(kind, sample(kind))
    assert type(state_from_bytes(sample(kind).to_bytes())) is kind.cls


def test_round_trip_keeps_nan_and_infinities() -> None:
    for state in (MinState(math.nan), MaxState(math.inf), MeanState(math.nan, 2)):
        back = state_from_bytes(state.to_bytes())
        assert exactly(back, state), (state, back)


def header(kind: str, version: int = FORMAT_VERSION) -> bytes:
    return MAGIC + struct.pack(">BH", version, len(kind.encode())) + kind.encode()


BAD_BYTES: list[tuple[str, bytes, str]] = [
    ("empty", b"", "not an analyzer state"),
    ("other magic", b"PK\x03\x04" + b"\x00" * 20, "not an analyzer state"),
    ("magic only", MAGIC, "not an analyzer state"),
    ("future version", header("count", FORMAT_VERSION + 1) + b'{"rows": 1}', "version"),
    ("unknown kind", header("teleport") + b"{}", "unknown state kind 'teleport'"),
    ("undecodable kind", MAGIC + struct.pack(">BH", FORMAT_VERSION, 2) + b"\xff\xfe{}", "unknown"),
    ("truncated json", header("mean") + b'{"total": 1.0, "cou', "corrupt 'mean' state"),
    ("wrong fields", header("mean") + b'{"sum": 1.0}', "corrupt 'mean' state"),
    ("not arrow", header("frequencies") + b"\x00\x01garbage", "corrupt 'frequencies' state"),
    (
        "not a sketch",
        header("hll")
        + json.dumps({"sketch": base64.b64encode(b"junk").decode(), "lg_k": 12}).encode(),
        "corrupt 'hll' state",
    ),
    (
        "not a kll sketch",
        header("kll") + json.dumps({"sketch": base64.b64encode(b"junk" * 4).decode()}).encode(),
        "corrupt 'kll' state",
    ),
]


@pytest.mark.parametrize(
    ("data", "message"), [b[1:] for b in BAD_BYTES], ids=[b[0] for b in BAD_BYTES]
)
def test_bad_bytes_raise_a_clear_state_error(data: bytes, message: str) -> None:
    with pytest.raises(StateError, match=message):
        state_from_bytes(data)


def test_truncated_state_bytes_raise_state_error() -> None:
    """Every prefix of valid bytes fails cleanly (or, for JSON states, still parses to a state)."""
    for kind in KINDS:
        data = sample(kind).to_bytes()
        for end in range(len(data) - 1):
            try:
                state_from_bytes(data[:end])
            except StateError:
                continue


PAIRS = [(a, b) for a in KINDS for b in KINDS if a.cls is not b.cls]


@pytest.mark.parametrize(("first", "second"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_merging_different_kinds_raises_state_error(first: Kind, second: Kind) -> None:
    with pytest.raises(StateError, match=f"cannot merge a {first} with a {second}"):
        sample(first).merge(sample(second))  # type: ignore[arg-type]
    with pytest.raises(StateError):
        first.cls.identity().merge(second.cls.identity())  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", KINDS, ids=str)
def test_states_are_frozen(kind: Kind) -> None:
    state = sample(kind)
    with pytest.raises(AttributeError):
        setattr(state, fields(state)[0].name, None)  # type: ignore[arg-type]
