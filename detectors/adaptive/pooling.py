"""Series judged together share what they teach about heavy tails (empirical Bayes).

A few hundred errors cannot tell Student-t tails with 4 degrees of freedom from 10, yet the
band at a false-alarm rate of 1/10,000 differs by half between the two: judged alone, a third
of heavy-tailed series look light and alert several times too often. The groups of one metric,
or the metrics of one table, judged in one call often share a shape, so a second prior over the
grid of :mod:`detectors.adaptive.tails` is learnt from the other rows of the call: the grid
weights that best explain all rows' errors together (a few EM steps of the mixture over the
grid, Laird's nonparametric maximum likelihood), mixed with the fixed prior by how many rows
there are; its last step leaves the row itself out. A row is judged with the heavier of the
tails its own prior and the pooled one give.

With a few rows, only heavier: the series of one table are often copies of one signal (every
distinct ratio moves with 1 / rows), so the pooled evidence is less than it looks; letting it
narrow bands raised 12 false alarms in the monitors demo, where widening them raised none.

With ``PREDICTIVE_ROWS`` rows or more of one age (a scan's groups of a metric), a plug-in grid
value is either too heavy or too light: normal rows judged with the heavy side of their own
posterior (``nu`` 10 or 20) raised 0.1-0.4 of the false alerts asked for on short daily
histories, and a heavy side too light raised 2-3x on t(3) noise at 1/10,000. There the band
is the posterior predictive (the grid's tails weighed by each row's posterior) under the prior
the other rows' errors make most likely (the fixed prior kept as one row's worth), and every
error of a young model informs it (a row's few errors say little; a thousand rows' say which
tails they share): on ``bench/calibration.py --short`` the six clean families went from
0.10-0.67x of the rate (t(3): 0.87-2.3x) to 0.3-1.0x.

A row's cells are matched with the other rows' cells at the same distance from their newest
point, so judging whole histories at once pools only what had been seen by then, and a
scan's newest-point check pools every row's whole history.

Laird, "Nonparametric maximum likelihood estimation of a mixing distribution", JASA, 1978.
Varadhan and Roland, "Simple and globally convergent methods for accelerating the convergence
of any EM algorithm", Scandinavian Journal of Statistics, 2008.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from detectors.adaptive.tails import PLUG_IN_LEVEL, PRIOR, normalised, plug_in, posterior

FloatArray = NDArray[np.float64]

EM_STEPS = 5
MAX_POOLED = 0.9
"""The largest weight the pooled prior gets; the fixed prior keeps the rest, so no grid value
is ever ruled out before a row's own errors speak."""
POOLED_LEVEL = 0.35
"""The pooled posterior's plug-in quantile (``tails.plug_in``) at full pooling, heavier than a
row's own 0.5, and between the two as the pooled weight grows (one row: exactly its own):
pooling narrows each row's posterior but leaves the grid's light side too light for Student-t
rows at a rate of 1/10,000 (2.9x the rate at 0.5, 1.7x at 0.35 on the calibration benchmark's
heavy tails; 1.8x on t tails with 2.5 to 8 degrees of freedom, never used to choose it)."""
PSEUDO_ROWS = 10.0
"""The pooled weight is ``MAX_POOLED * others / (others + PSEUDO_ROWS)``: two rows barely
pool, a table's fifty groups mostly do."""
PREDICTIVE_ROWS = 20
PREDICTIVE_STEPS = 30
"""EM steps for the predictive's prior: grid values close to each other (20 and infinite
degrees of freedom) share weight for many steps before the errors tell them apart."""
"""Rows of one age (a scan's groups of a metric) from which the band is the posterior
predictive under the prior their errors make likely, not a plug-in (see the module text)."""


def pooled_posterior(
    log_lik: FloatArray,
    cells: tuple[NDArray[np.intp], ...],
    most: float = MAX_POOLED,
    pseudo_rows: float = PSEUDO_ROWS,
    steps: int = EM_STEPS,
    accelerate: bool = False,
) -> tuple[FloatArray, FloatArray]:
    """``(len(PRIOR), cells)``: each cell's grid weights under the prior pooled from the other
    rows, and per cell the weight the other rows have in that prior.

    ``log_lik`` holds each cell's log likelihoods of the errors before it (as
    :func:`detectors.adaptive.tails.earlier_log_likelihoods` gives them); ``cells`` are in
    row-major order. ``accelerate``: ``steps`` EM steps' worth of SQUAREM iterations (three
    steps each), which reach a prior many plain steps would.

    >>> flat = np.zeros((len(PRIOR), 1))
    >>> weights, pooled = pooled_posterior(flat, (np.array([0]), np.array([5])))
    >>> bool(np.allclose(weights, np.array(PRIOR)[:, None])), pooled.tolist()
    (True, [0.0])
    """
    base = np.array(PRIOR)[:, None]
    # In place throughout: a full history has millions of cells and the EM passes over all.
    likelihood = log_lik - log_lik.max(axis=0, keepdims=True)
    np.exp(likelihood, out=likelihood)
    group = ages(cells)
    if group is None:
        return normalised(likelihood * base), np.zeros(len(cells[0]))
    size = np.bincount(group).astype(np.float64)
    others = np.maximum(size - 1.0, 0.0)
    mix = most * others / (others + pseudo_rows)
    w = np.empty_like(likelihood)

    def weigh(prior: FloatArray) -> FloatArray:
        """Sets ``w`` to the cells' grid weights under per-group ``prior``; their sums per
        group."""
        np.take(prior, group, axis=1, out=w)
        normalised(np.multiply(w, likelihood, out=w))
        return np.stack([np.bincount(group, weights=row, minlength=len(size)) for row in w])

    def em_step(prior: FloatArray) -> FloatArray:
        return (1.0 - mix) * base + mix * weigh(prior) / np.maximum(size, 1.0)

    prior = base * np.ones((1, len(size)))
    if accelerate:
        for _ in range(steps // 3):
            prior = em_step(squarem(prior, em_step))
    else:
        for _ in range(steps):
            prior = em_step(prior)
    others_sums = np.take(weigh(prior), group, axis=1)
    others_sums -= w  # leave the cell's own row out
    others_sums *= (mix / np.maximum(others, 1.0))[group]
    others_sums += base * (1.0 - mix)[group]
    return normalised(np.multiply(others_sums, likelihood, out=others_sums)), mix[group]


def ages(cells: tuple[NDArray[np.intp], ...]) -> NDArray[np.intp] | None:
    """Per cell (row-major order), how many points before its row's newest it lies: cells
    alike in age pool (``None``: the cells are of one row, nothing to pool)."""
    rows, columns = np.asarray(cells[0]), np.asarray(cells[1])
    if len(rows) == 0 or rows[0] == rows[-1]:
        return None
    ends = np.r_[np.flatnonzero(np.diff(rows)), len(rows) - 1]
    starts = np.r_[0, ends[:-1] + 1]
    newest = np.repeat(columns[ends], ends - starts + 1)
    return newest - columns


def peers(cells: tuple[NDArray[np.intp], ...]) -> NDArray[np.int64]:
    """Per cell, how many other rows have a cell of its age."""
    group = ages(cells)
    if group is None:
        return np.zeros(len(cells[0]), np.int64)
    return np.bincount(group)[group].astype(np.int64) - 1


def predictive_weights(log_lik: FloatArray, cells: tuple[NDArray[np.intp], ...]) -> FloatArray:
    """Grid weights per cell for the posterior predictive of :func:`detectors.adaptive.band`
    (rows with at least ``PREDICTIVE_ROWS`` peers): the prior is the one the other rows'
    errors make most likely, with the fixed prior kept only as one more row's worth."""
    return pooled_posterior(log_lik, cells, 1.0, 1.0, PREDICTIVE_STEPS, accelerate=True)[0]


def squarem(prior: FloatArray, step: Callable[[FloatArray], FloatArray]) -> FloatArray:
    """One SQUAREM extrapolation (Varadhan and Roland, 2008) of the EM map ``step`` from
    ``prior`` (grid first, one column per group), kept on the simplex: EM for mixing weights
    creeps where grid values are alike (20 and infinite degrees of freedom), and this reaches in
    one move what takes it tens of steps.

    >>> half = lambda w: 0.5 * w + 0.5 * np.array([[1.0], [0.0]])  # converges to [1, 0]
    >>> squarem(np.array([[0.0], [1.0]]), half).round(6).tolist()
    [[1.0], [0.0]]
    """
    first = step(prior)
    second = step(first)
    r, v = first - prior, second - 2.0 * first + prior
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = -np.sqrt((r * r).sum(axis=0) / (v * v).sum(axis=0))
    alpha = np.where(np.isfinite(alpha), np.minimum(alpha, -1.0), -1.0)
    moved = np.maximum(prior - 2.0 * alpha * r + alpha * alpha * v, 0.0)
    total = moved.sum(axis=0, keepdims=True)
    return np.where(total > 0, moved / np.where(total > 0, total, 1.0), second)


def shared_plug_in(log_lik: FloatArray, cells: tuple[NDArray[np.intp], ...]) -> NDArray[np.int64]:
    """The grid value (an index into ``NU``) each cell is judged with: the heavier of what its
    own errors say under the fixed prior and under the prior pooled from the other rows.

    Two rows whose errors were plainly heavy (``nu = 3``) and a new one with no errors yet:

    >>> from detectors.adaptive.tails import NU
    >>> log_lik = np.zeros((len(NU), 3))
    >>> log_lik[:, :2] = -50.0 * np.abs(np.arange(len(NU)) - 1)[:, None]
    >>> cells = (np.array([0, 1, 2]), np.array([99, 99, 99]))
    >>> alone, together = plug_in(posterior(log_lik)), shared_plug_in(log_lik, cells)
    >>> [NU[i] for i in alone], [NU[i] for i in together]
    ([3.0, 3.0, 10.0], [3.0, 3.0, 7.0])
    """
    own = plug_in(posterior(log_lik))
    pooled, weight = pooled_posterior(log_lik, cells)
    level = PLUG_IN_LEVEL - (PLUG_IN_LEVEL - POOLED_LEVEL) * weight / MAX_POOLED
    return np.minimum(own, plug_in(pooled, level))
