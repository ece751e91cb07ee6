"""How far a standardised one-step error may go: a posterior over tail heaviness per series.

A series' one-step forecast errors divided by the running robust scale (``z``) are modelled as
Student-t with ``nu`` degrees of freedom (``nu = inf``: normal), widened for the few errors the
scale was estimated from. Which ``nu`` fits is learnt from the series' own past errors: each
grid value's posterior weight is its prior times the likelihood of the errors seen so far (an
error beyond the outlier limit counts only as "beyond the limit", so a 1000-sigma incident
weighs no more than a 6-sigma one). A new error's p-value is the posterior-weighted tail
probability, and the band is where that probability equals the false-alarm rate.

Normal errors make the band the Student-t prediction interval; heavy-tailed errors move the
weight to small ``nu`` and widen it, so the false-alarm rate holds on both (the calibration
benchmark measures it per family of series).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

NU = (2.0, 3.0, 4.0, 5.0, 7.0, 10.0, 20.0, math.inf)
"""The tail heaviness grid, heaviest first."""
PRIOR = (0.05, 0.1, 0.1, 0.1, 0.1, 0.15, 0.15, 0.25)
SETTLED = 10
"""Errors a model needs before its errors say anything about tails (before: the prior)."""
COUNT_CAP = 4096
BISECTIONS = 8
NEGLIGIBLE = 1e-12
"""A grid value with no more weight than this in any cell is left out of a mixture."""
"""Regula falsi steps of a mixture quantile's search in the log-range of its members'."""
PLUG_IN_LEVEL = 0.5
CENSOR = 12.0
"""Errors beyond this many scales count only as "this far or further": a 1000-scale incident
says no more about the tails than a 12-scale one."""
INNER = 1.0
"""Errors within this many scales count only as "this close": how peaked the errors are at
the centre (a count a schedule repeats to the unit, a scale held up by its floor) says
nothing about how far they reach, which is all the band needs."""
INCIDENT_RATE = 0.003
"""Prior share of points that are incidents, not normal variation: an error beyond ``CENSOR``
is explained by an incident with this probability, so a rare incident widens later bands
little, while such errors that keep coming still move the weight to heavy tails."""


@functools.lru_cache(maxsize=8)
def clipped_mean_ratio(limit: float) -> tuple[float, ...]:
    """Per ``nu``: ``m`` with ``m = E[min(|T|, limit * m)]``, the value the clipped running
    mean absolute error settles at for unit-scale t errors."""
    from scipy import integrate, special

    ratios = []
    for nu in NU:

        def tail(u: float, nu: float = nu) -> float:
            if math.isinf(nu):
                return float(special.erfc(u / math.sqrt(2.0)))
            return float(2.0 * special.stdtr(nu, -u))

        m = 1.0
        for _ in range(60):
            m_next = integrate.quad(tail, 0.0, limit * m, limit=200)[0]
            if abs(m_next - m) < 1e-10:
                break
            m = m_next
        ratios.append(m)
    return tuple(ratios)


@functools.lru_cache(maxsize=8)
def scale_efficiency(limit: float) -> tuple[float, ...]:
    """Per ``nu``: ``1 / (2 R)``, with ``R`` the relative variance of one clipped absolute
    error ``min(|T|, limit * m)``. A variance estimate from ``k`` normal errors has relative
    variance ``1 / (2 k)`` in its square root, so ``efficiency * n`` errors are worth ``k``
    degrees of freedom: about 0.88 for normal errors, and less the heavier the tails, whose
    running scale wanders more.

    >>> [round(e, 2) for e in scale_efficiency(4.0)][::3]
    [0.51, 0.69, 0.83]
    """
    from scipy import integrate, special

    found = []
    for nu, m in zip(NU, clipped_mean_ratio(limit), strict=True):

        def weighted_tail(u: float, nu: float = nu) -> float:
            if math.isinf(nu):
                return float(2.0 * u * special.erfc(u / math.sqrt(2.0)))
            return float(4.0 * u * special.stdtr(nu, -u))

        second = integrate.quad(weighted_tail, 0.0, limit * m, limit=200)[0]
        found.append(m * m / (2.0 * (second - m * m)))
    return tuple(found)


@functools.lru_cache(maxsize=8)
def _tables(
    limit: float, decay: float, matched: bool = False
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """Per (nu, number of scale updates): effective degrees of freedom, the log normalising
    constant of the z density, the log probabilities of an error beyond ``CENSOR`` and within
    ``INNER``, and the clipped mean ratios (``matched``: the normal member's degrees of freedom
    matched at the band's quantiles, :mod:`detectors.adaptive.tails_scale`)."""
    from scipy import special

    count = np.arange(COUNT_CAP + 1, dtype=np.float64)
    weights = np.where(count > 0, (1 - decay**count) / (1 - decay), 0.0)
    squares = np.where(count > 0, (1 - decay ** (2 * count)) / (1 - decay**2), 1.0)
    efficiency = np.array(scale_efficiency(limit))[:, None]
    n_eff = np.maximum(efficiency * (weights**2 / squares)[None, :], 1.0)
    m = np.array(clipped_mean_ratio(limit))
    nu = np.array(NU)[:, None]
    df = 1.0 / (1.0 / nu + 1.0 / n_eff)
    if matched:
        from detectors.adaptive.tails_scale import matched_df

        df[-1, 1:] = matched_df(count[1:])
    log_norm = (
        special.gammaln((df + 1) / 2)
        - special.gammaln(df / 2)
        - 0.5 * np.log(df * np.pi)
        + np.log(m)[:, None]
    )
    beyond = np.log(
        (1 - INCIDENT_RATE) * 2.0 * special.stdtr(df, -CENSOR * m[:, None]) + INCIDENT_RATE
    )
    within = np.log(1.0 - 2.0 * special.stdtr(df, -INNER * m[:, None]))
    return df, log_norm, beyond, within, m


def earlier_log_likelihoods(
    z: FloatArray,
    count: NDArray[np.int64],
    cells: tuple[NDArray[np.intp], ...],
    limit: float,
    decay: float,
) -> FloatArray:
    """``(len(NU), len(cells[0]))``: for each cell (row-major order, as ``np.nonzero`` gives
    them), each grid value's log likelihood of the errors before it in its row (``z`` NaN: an
    error that does not inform)."""
    from detectors.adaptive.kernels import by_rows
    from detectors.adaptive.kernels.likelihood import earlier_sums

    tables = _tables(limit, decay)
    z, count = np.ascontiguousarray(z, dtype=np.float64), np.ascontiguousarray(count)
    rows, columns = (np.ascontiguousarray(c, dtype=np.int64) for c in cells)
    out = np.zeros((len(NU), len(rows)))
    # Cells are in row order: a thread's share of the cells is a share of the rows.
    edges = np.searchsorted(rows, np.arange(len(z) + 1))

    def part(chunk: slice) -> None:
        here = slice(edges[chunk.start], edges[chunk.stop])
        out[:, here] = earlier_sums(z, count, rows[here], columns[here], *tables, CENSOR,
                                    INNER, COUNT_CAP)  # fmt: skip

    by_rows(part, len(z), z.size)
    return out


def posterior(log_lik_sums: FloatArray) -> FloatArray:
    """Normalised weights per grid value from summed log likelihoods (first axis: grid)."""
    log_w = np.log(np.array(PRIOR)).reshape(-1, *([1] * (log_lik_sums.ndim - 1))) + log_lik_sums
    log_w -= log_w.max(axis=0, keepdims=True)
    return normalised(np.exp(log_w, out=log_w))  # in place: a full history has millions of cells


def normalised(w: FloatArray) -> FloatArray:
    """``w`` (grid first) scaled in place to sum to one per cell."""
    w /= w.sum(axis=0, keepdims=True)
    return w


def plug_in(weights: FloatArray, level: float | FloatArray = PLUG_IN_LEVEL) -> NDArray[np.int64]:
    """The grid value each cell is judged with: the posterior's ``level`` quantile of the tail
    heaviness, counted from the heavy end.

    The posterior mixture's own extreme quantile is set by its heaviest member with any weight
    (a 15% chance of ``nu = 10`` on normal data halves its false alarms at 0.001), and its
    median is too light for heavy tails a few hundred points cannot pin down (false alarms at
    0.0001 five times the rate asked for); a heavy-side quantile keeps both near the rate.
    """
    cumulative = np.cumsum(weights, axis=0)
    return np.argmax(cumulative >= level, axis=0).astype(np.int64)


def tail_probability(
    a: FloatArray, nu: NDArray[np.int64], count: NDArray[np.int64], limit: float, decay: float
) -> FloatArray:
    """``P(z > a)`` for one side with grid value ``nu`` (an index into ``NU``) per cell."""
    from scipy import special

    df, _, _, _, m = _tables(limit, decay)
    index = np.minimum(count, COUNT_CAP)
    return np.asarray(special.stdtr(df[nu, index], -np.asarray(a) * m[nu]), dtype=np.float64)


def quantile(
    rate: float,
    nu: NDArray[np.int64],
    count: NDArray[np.int64],
    limit: float,
    decay: float,
    matched: bool = False,
) -> FloatArray:
    """``a`` with ``P(z > a) = rate`` for one side with grid value ``nu`` per cell."""
    from scipy import special

    df, _, _, _, m = _tables(limit, decay, matched)
    nu, index = np.broadcast_arrays(nu, np.minimum(count, COUNT_CAP))
    # Many cells share a few (nu, count) pairs, and the inverse is costly: once per pair.
    pairs, back = np.unique((nu * (COUNT_CAP + 1) + index).ravel(), return_inverse=True)
    shape, (nu, index) = nu.shape, np.divmod(pairs, COUNT_CAP + 1)
    found = np.asarray(special.stdtrit(df[nu, index], 1.0 - rate) / m[nu], dtype=np.float64)
    return found[back].reshape(shape)


def mixture_tail(
    a: FloatArray,
    weights: FloatArray,
    count: NDArray[np.int64],
    limit: float,
    decay: float,
    members: NDArray[np.intp] | None = None,
    matched: bool = False,
) -> FloatArray:
    """``P(z > a)`` for one side under the grid ``weights`` (grid first, one column per
    cell): the posterior predictive, each grid value's tail weighed by its probability
    (``members``: the grid values summed; default, those of more than negligible weight in
    some cell; ``matched``: see :func:`_tables`)."""
    from scipy import special

    df, _, _, _, m = _tables(limit, decay, matched)
    index = np.minimum(count, COUNT_CAP)
    a = np.asarray(a, dtype=np.float64)
    total = np.zeros(a.shape)
    for g in _members(weights) if members is None else members:
        total += weights[g] * special.stdtr(df[g, index], -a * m[g])
    return total


def _members(weights: FloatArray) -> NDArray[np.intp]:
    return np.flatnonzero(weights.max(axis=1, initial=0.0) > NEGLIGIBLE)


def mixture_quantile(
    rate: float,
    weights: FloatArray,
    count: NDArray[np.int64],
    limit: float,
    decay: float,
    matched: bool = False,
) -> FloatArray:
    """``a`` with :func:`mixture_tail` ``= rate``: between the grid values' own quantiles
    (a mixture's tail lies between its members'), found by regula falsi on the log scale.

    >>> normal = np.zeros((len(NU), 1)); normal[-1] = 1.0
    >>> both = normal.copy(); both[1], both[-1] = 0.5, 0.5
    >>> count = np.array([4096])
    >>> alone = float(quantile(1e-3, np.array([len(NU) - 1]), count, 4.0, 0.97)[0])
    >>> mixed = mixture_quantile(1e-3, both, count, 4.0, 0.97)
    >>> bool(abs(mixture_quantile(1e-3, normal, count, 4.0, 0.97)[0] - alone) < 1e-3 * alone)
    True
    >>> bool(abs(mixture_tail(mixed, both, count, 4.0, 0.97)[0] - 1e-3) < 1e-5), bool(mixed > alone)
    (True, True)
    """
    from detectors.adaptive.kernels import by_rows

    members = _members(weights)  # of all the cells: a share of them sums the same grid values
    found = np.empty(len(count))

    def part(cells: slice) -> None:
        found[cells] = _mixture_quantile(rate, weights[:, cells], count[cells], limit, decay,
                                         members, matched)  # fmt: skip

    # Thousands of cells: the t tails (released by scipy) are split across threads.
    by_rows(part, len(count), len(count) * len(members) * (BISECTIONS + 2))
    return found


def _mixture_quantile(
    rate: float,
    weights: FloatArray,
    count: NDArray[np.int64],
    limit: float,
    decay: float,
    members: NDArray[np.intp],
    matched: bool = False,
) -> FloatArray:
    every = np.stack([quantile(rate, np.full(len(count), g), count, limit, decay, matched)
                      for g in range(len(NU))])  # fmt: skip
    weighed = weights > NEGLIGIBLE
    low = np.log(np.where(weighed, every, np.inf).min(axis=0))
    high = np.log(np.where(weighed, every, -np.inf).max(axis=0))
    target = math.log(rate)

    def gap(x: FloatArray) -> FloatArray:
        with np.errstate(divide="ignore"):
            tail = mixture_tail(np.exp(x), weights, count, limit, decay, members, matched)
            return np.log(tail) - target

    # Regula falsi (Illinois): the log tail is nearly linear in the log of the quantile.
    f_low, f_high = gap(low), gap(high)
    for _ in range(BISECTIONS):
        span = f_low - f_high
        step = np.where(span > 0, f_low / np.where(span > 0, span, 1.0), 0.5)
        middle = low + np.clip(step, 0.0, 1.0) * (high - low)
        f_mid = gap(middle)
        above = f_mid > 0
        low, f_low = np.where(above, middle, low), np.where(above, f_mid, f_low)
        high, f_high = np.where(above, high, middle), np.where(above, f_high, f_mid)
        f_high = np.where(above, 0.5 * f_high, f_high)  # Illinois: the stale end's value halves
        f_low = np.where(above, f_low, 0.5 * f_low)
    return np.asarray(np.exp(np.where(np.abs(f_low) < np.abs(f_high), low, high)), np.float64)
