"""How likely an exact repeat is by chance, from the values' resolution and their day-to-day
moves: the prior of the stale test (:mod:`detectors.adaptive.stuck`).

Before a series has repeated itself, its history says little about how often it would: with
30 moves and no repeat, the Krichevsky-Trofimov estimate ``(0 + 1/2) / (30 + 1)`` still gives
a repeat 1 chance in 62, and a mean of thousands of rows frozen for two days is then
unremarkable. What a repeat's chance is, before any repeat, follows from the values
themselves: values on a grid of step ``d`` (1 for counts, 0.01 for amounts in cents) whose
day-to-day moves have a mean size ``m`` repeat exactly with probability about
``d * f(0)``, ``f(0) = 1 / (2 * m)`` the density at 0 of a Laplace move of that mean size
(a normal move's, ``1 / (pi * m)``, is lower: with moves heavier-tailed than a normal's, as
amounts and counts with zeros have, it called chance repeats of amounts in cents twice too
often). Values on no decimal grid (a mean, a ratio of two counts) keep the Krichevsky-Trofimov
estimate: a ratio of small counts (1/7, 2/9) repeats by chance as often as a coarse grid, and
its decimals do not tell it from a continuum (judged as one, chance repeats of shares of 3-12
rows were flagged at p 1e-9). The prior is capped at the Krichevsky-Trofimov 1/2, so a coarse
grid (small counts) is judged exactly as before; each cell's prior uses only the learnt values
up to it. ``estimate`` combines it with the repeats seen.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

FloatMatrix = NDArray[np.float64]
BoolMatrix = NDArray[np.bool_]

MAX_DECIMALS = 9
"""Decimals tried for a grid; a value on none of them is on no grid."""
FLOOR = 1e-9
"""The smallest prior: a repeat is news, but at most this much news."""
CAP = 0.5
"""The Krichevsky-Trofimov prior weight: a coarse grid's repeats are judged as before."""


def decimals(x: FloatMatrix) -> NDArray[np.int64]:
    """Per value, the fewest decimals that write it exactly (``MAX_DECIMALS + 1``: none do;
    0 for NaN, which puts no value on a grid).

    >>> decimals(np.array([3.0, 0.25, 1 / 3, 12.5, np.nan])).tolist()
    [0, 2, 10, 1, 0]
    """
    found = np.full(x.shape, MAX_DECIMALS + 1, dtype=np.int64)
    finite = np.isfinite(x)
    found[~finite] = 0
    # Fewest decimals first, each pass on the values still unwritten: counts take one pass.
    at = np.flatnonzero(finite & (np.abs(x) < 1e13))
    values = x.ravel()[at]
    for d in range(MAX_DECIMALS + 1):
        scaled = values * 10.0**d
        exact = (np.abs(scaled) < 1e13) & (np.abs(scaled - np.round(scaled)) <= 1e-4)
        found.ravel()[at[exact]] = d
        at, values = at[~exact], values[~exact]
        if not len(at):
            break
    return found


def repeat_prior(x: FloatMatrix, learnt: BoolMatrix, pairs: BoolMatrix) -> FloatMatrix:
    """Per cell, the chance of an exact repeat by chance given the learnt values up to it
    (``learnt``) and the moves between learnt neighbours up to it (``pairs``): the grid's step
    over twice the mean move, within ``[FLOOR, CAP]`` (``CAP`` before any move).

    >>> counts = np.array([[5000.0, 5200, 4900, 5100, 5050]])
    >>> float(repeat_prior(counts, np.ones((1, 5), bool), np.ones((1, 5), bool))[0, -1]) < 0.01
    True
    """
    finest = np.maximum.accumulate(np.where(learnt, decimals(x), 0), axis=1)
    step = np.where(finest > MAX_DECIMALS, np.inf, 10.0 ** -finest.astype(np.float64))  # inf: CAP
    moves = np.zeros(x.shape)
    with np.errstate(invalid="ignore"):
        moves[:, 1:] = np.where(pairs[:, 1:], np.abs(x[:, 1:] - x[:, :-1]), 0.0)
    size = np.cumsum(moves, axis=1)
    count = np.cumsum(pairs, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        prior = step / (2.0 * size / count)
    return np.where(size > 0, np.clip(np.nan_to_num(prior, nan=CAP), FLOOR, CAP), CAP)


def estimate(hits: Any, trials: Any, prior: Any) -> Any:
    """The chance of a repeat after ``hits`` repeats in ``trials`` chances: the
    Krichevsky-Trofimov ``(hits + 1/2) / (trials + 1)``, or less where the resolution's
    ``prior`` says repeats are rarer than that, but never below ``prior`` (a few dozen chances
    without a repeat say nothing of a chance of 1 in 10,000, so they do not lower it).

    >>> [round(float(estimate(0, 30, p)), 5) for p in (0.5, 1e-4)]
    [0.01613, 0.0001]
    >>> round(float(estimate(3, 30, 1e-4)), 5)  # repeats seen: about as often as seen
    0.09678
    """
    kt = (hits + 0.5) / (trials + 1.0)
    return np.minimum(kt, np.maximum(prior, (hits + prior) / (trials + 1.0)))
