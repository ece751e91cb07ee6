"""A value that stopped changing: a run of exact repeats its own history makes improbable.

A stale metric stays inside any band (yesterday's row count, a sensor frozen at its last
reading, a partition served twice), so the forecast test never sees it. What gives it away is
that the series, measured at its own resolution, does not repeat itself like that: from the
learnt points before a run began, ``q1`` is the chance a point repeats the one before it and
``q2`` the chance a repeat is followed by another (``(repeats + 1/2) / (pairs + 1)``, or
nearer the chance of a repeat at the values' resolution where that is smaller:
:mod:`detectors.adaptive.resolution`, so a count of thousands or a mean frozen for two days
is news after a month without repeats, where 1/2 in 31 made it unremarkable; ``q2``
shrunk towards ``q1`` by two pseudo-repeats, and never below it: a repeat may make the next
more likely, as a stale source does, but a few repeats never seen in a row are no evidence
that it makes it less likely). Some values repeat more than others (the zeros of a small
count), so where a run is improbable by these rates, the same rates are also counted for the
run's own value (shrunk towards the series' rates, and never below how often the value came at
all: a common value repeats by chance as often) and the larger are used. A run of ``k``
repeats has probability ``q1 * q2 ** (k - 1)``; the point where it first falls below its share
of the false-alarm rate is flagged, once per run. A series that repeats often (small counts, a
ratio that sits at zero, a constant) learns that from its past and is left alone; a
continuous metric that repeats twice in a row is not.

A run at a bound of the metric's domain (a null ratio of exactly 0, a share of 0 or 1, a count
of 0) is judged over its first week only (``BOUND_REPEATS``): a ratio that falls onto its bound
and stays (the category gone, no nulls any more) is news when it happens, but after that the
quantity under it is saturated, not stale, and repeats exactly without anything having stopped
updating. Judged for as long as it lasts, its probability under the rates before it falls
below any level: a share at 0 for good was flagged 58 days later even at a false-alarm rate of
1e-30, so no rate, however low, kept such a series quiet. For the same reason, a run of a
value off the bounds learns its rates only from the pairs that start off them: a null ratio at
0 half the days repeats 0 without anything having stopped, which says nothing of how often
1.23% nulls comes twice (counted as chances, those zeros hid five days of a frozen 1.12% null
ratio of a real carrier).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from detectors.adaptive.resolution import CAP, estimate, repeat_prior

FloatMatrix = NDArray[np.float64]
BoolMatrix = NDArray[np.bool_]

SHARE = 0.05
"""The share of the false-alarm rate spent on runs of repeated values."""
PSEUDO_REPEATS = 2.0
MIN_MOVES = 10
"""Points that moved before a run, at least, for the run to be news: a series constant from its
start has taught nothing about how it moves."""


BOUND_REPEATS = 6
"""Repeats of a value at a bound of the domain after which its run is no longer judged: the
value and six repeats, a week of daily points."""


class Runs(NamedTuple):
    """Per cell: the length of the run of exact repeats ending there (0: the value moved or
    is missing), the run's probability under the history before the run (1 outside runs),
    and whether the run became improbable at this point (once per run)."""

    length: NDArray[np.int64]
    p_value: FloatMatrix
    first: BoolMatrix


def _before(counts: NDArray[np.int64], start: NDArray[np.int64]) -> NDArray[np.int64]:
    """``counts`` (cumulative per row) at column ``start - 1`` (0 where ``start`` is 0)."""
    at = np.take_along_axis(counts, np.maximum(start - 1, 0), axis=1)
    return np.where(start > 0, at, 0)


def _shrunk(hits: Any, trials: Any, towards: Any) -> Any:
    return (hits + PSEUDO_REPEATS * towards) / (trials + PSEUDO_REPEATS)


def runs(x: FloatMatrix, learn: BoolMatrix, level: float, bounds: tuple[float, ...] = ()) -> Runs:
    """The runs of repeats in ``x`` (groups x points), their probabilities learnt from the
    pairs of consecutive ``learn`` points, and where each first fell below ``level``; a run of
    a value off the domain's ``bounds`` learns only from the pairs that start off them, and a
    run at one is not flagged after ``BOUND_REPEATS`` repeats.

    >>> values = np.r_[np.arange(12.0) % 5 + np.arange(12.0) / 10, 9.0, 9.0, 9.0]
    >>> found = runs(values[None, :], np.ones((1, 15), bool), level=0.01)
    >>> found.length[0, 11:].tolist(), found.p_value[0, 11:].round(5).tolist()
    ([0, 0, 1, 2], [1.0, 1.0, 0.02439, 0.00059])
    >>> found.first[0, 11:].tolist()
    [False, False, False, True]
    """
    finite = np.isfinite(x)
    pair = np.zeros(x.shape, dtype=bool)
    pair[:, 1:] = finite[:, 1:] & finite[:, :-1]
    repeat = pair.copy()
    repeat[:, 1:] &= x[:, 1:] == x[:, :-1]
    ones = np.cumsum(repeat, axis=1)
    length = ones - np.maximum.accumulate(np.where(repeat, 0, ones), axis=1)
    learnt = pair.copy()
    learnt[:, 1:] &= learn[:, 1:] & learn[:, :-1]
    learnt_repeat = learnt & repeat
    start = np.arange(x.shape[1])[None, :] - length + 1
    # Before a repeat, how often the values' resolution makes one (1/2 on a coarse grid).
    prior = np.take_along_axis(repeat_prior(x, learn & finite, learnt), np.maximum(start - 1, 0), 1)
    prior = np.where(start > 0, prior, CAP)
    q1, q2, pairs, repeats = _rates(learnt, learnt_repeat, start, prior)
    at_bound = np.isin(x, bounds)
    if bounds:  # a value off the bounds: the days pinned at one were no chance to repeat
        pinned = np.zeros(x.shape, dtype=bool)
        pinned[:, 1:] = at_bound[:, :-1]
        off = ~np.take_along_axis(at_bound, np.maximum(start - 1, 0), 1)
        rates = _rates(learnt & ~pinned, learnt_repeat & ~pinned, start, prior)
        q1, q2, pairs, repeats = (np.where(off, new, old) for new, old in
                                  zip(rates, (q1, q2, pairs, repeats), strict=True))  # fmt: skip
    again = _twice(learnt_repeat)
    steps = np.maximum(length - 1, 0)
    with np.errstate(under="ignore"):
        p = np.where((length > 0) & (pairs - repeats >= MIN_MOVES), q1 * q2**steps, 1.0)
    # Where a run is improbable by the series' rates, count them for the run's own value too:
    # once per run (its rates are fixed at its start), so a long stale stretch costs one step.
    for i, t in zip(*np.nonzero(_first_below(p, length, level)), strict=True):
        begin = int(start[i, t])
        moved = np.flatnonzero(length[i, begin:] == 0)
        end = begin + (int(moved[0]) if len(moved) else x.shape[1] - begin)
        before = slice(1, begin)
        same = x[i, : begin - 1] == x[i, t]
        own_repeats = np.sum(learnt_repeat[i, before] & same)
        own_q1 = _shrunk(own_repeats, np.sum(learnt[i, before] & same), q1[i, t])
        own_q2 = _shrunk(np.sum(again[i, before] & same), own_repeats, q2[i, t])
        # How often the value came at all: a common value (a zero) repeats by chance as often.
        seen = learn[i, : begin - 1]
        share = estimate(np.sum(same & seen), np.sum(seen), prior[i, t])
        q1[i, begin:end] = max(q1[i, t], own_q1, share)
        q2[i, begin:end] = max(q2[i, t], own_q2, share)
        with np.errstate(under="ignore"):
            p[i, begin:end] = q1[i, begin:end] * q2[i, begin:end] ** steps[i, begin:end]
    # A run at a bound is saturation after its first week, not a source that stopped.
    first = _first_below(p, length, level) & ~(at_bound & (length > BOUND_REPEATS))
    return Runs(length.astype(np.int64), p, first)


def _rates(
    learnt: BoolMatrix, learnt_repeat: BoolMatrix, start: NDArray[np.int64], prior: FloatMatrix
) -> tuple[FloatMatrix, FloatMatrix, NDArray[np.int64], NDArray[np.int64]]:
    """``q1`` and ``q2`` of the runs starting at ``start``, from the learnt pairs and repeats
    before them, with the pairs and repeats counted."""
    again = _twice(learnt_repeat)
    pairs = _before(np.cumsum(learnt, axis=1), start)
    repeats = _before(np.cumsum(learnt_repeat, axis=1), start)
    q1 = estimate(repeats, pairs, prior)
    q2 = np.maximum(_shrunk(_before(np.cumsum(again, axis=1), start), repeats, q1), q1)
    return q1, q2, pairs, repeats


def _twice(learnt_repeat: BoolMatrix) -> BoolMatrix:
    """The learnt repeats that follow a learnt repeat (a value seen three times running)."""
    again = np.zeros(learnt_repeat.shape, dtype=bool)
    again[:, 1:] = learnt_repeat[:, 1:] & learnt_repeat[:, :-1]
    return again


def _first_below(p: FloatMatrix, length: NDArray[np.int64], level: float) -> BoolMatrix:
    """The cells where a run's probability first falls below ``level``."""
    previous = np.ones(p.shape)
    previous[:, 1:] = np.where(length[:, 1:] > 1, p[:, :-1], 1.0)
    return (p < level) & (previous >= level)


def stale_points(
    values: FloatMatrix,
    learn: BoolMatrix,
    judged: BoolMatrix,
    rate: float,
    domain: tuple[float, float] = (-np.inf, np.inf),
) -> tuple[BoolMatrix, FloatMatrix, NDArray[np.int64]]:
    """The ``judged`` points where a run of repeats first became improbable at this test's
    share of ``rate``, their p-values (1 elsewhere) and the runs' lengths (rows with no judged
    point are skipped); a run at a finite bound of ``domain`` is judged over its first
    ``BOUND_REPEATS`` repeats only."""
    stale = np.zeros(values.shape, dtype=bool)
    p = np.ones(values.shape)
    length = np.zeros(values.shape, dtype=np.int64)
    # A row that never repeats a value has no run: skip it (most continuous metrics).
    repeats = (values[:, 1:] == values[:, :-1]).any(axis=1)
    rows = np.flatnonzero(judged.any(axis=1) & repeats)
    if len(rows):
        bounds = tuple(b for b in domain if np.isfinite(b))
        found = runs(values[rows], learn[rows], SHARE * rate, bounds)
        first = found.first & judged[rows]
        stale[rows] = first
        p[rows] = np.where(first, found.p_value, 1.0)
        length[rows] = found.length
    return stale, p, length
