"""AccuracyState is a commutative monoid; its bottom-k sample equals the sample of the union."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from anomaly.accuracy import AccuracyState
from anomaly.analyzers import state_from_bytes

LIMIT = 4
# A "row": (hash, key) of an unmatched source row, or None for a matched one.
rows = st.lists(
    st.one_of(st.none(), st.tuples(st.integers(-50, 50), st.tuples(st.integers(0, 5)))),
    max_size=12,
)


def state_of(data: list[tuple[int, tuple[int]] | None]) -> AccuracyState:
    """The state a computation over `data` produces (the reference: sort all, keep LIMIT)."""
    unmatched = [r for r in data if r is not None]
    sample = tuple(sorted(unmatched, key=lambda e: (e[0], repr(e[1])))[:LIMIT])
    return AccuracyState(len(data) - len(unmatched), len(data), sample, LIMIT)


@given(rows, rows, rows)
def test_merge_is_a_commutative_monoid_matching_the_union(a: list, b: list, c: list) -> None:
    sa, sb, sc = state_of(a), state_of(b), state_of(c)
    assert sa.merge(sb) == sb.merge(sa)
    assert sa.merge(sb).merge(sc) == sa.merge(sb.merge(sc))
    assert sa.merge(AccuracyState.identity()) == sa
    assert sa.merge(sb) == state_of(a + b)


def test_bytes_round_trip() -> None:
    state = AccuracyState(3, 5, ((2, (1, "x")), (-1, (None, "y"))), 10)
    restored = state_from_bytes(state.to_bytes())
    assert restored == state and isinstance(restored, AccuracyState)
