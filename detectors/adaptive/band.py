"""The band a point is judged against: its width in scales and p-value, and in value units."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from detectors.adaptive import pooling, tails
from detectors.adaptive.smoother import SETTINGS, Forecasts
from detectors.adaptive.transform import Transforms

FloatMatrix = NDArray[np.float64]


def point_test(
    z: FloatMatrix,
    fc: Forecasts,
    informs: NDArray[np.bool_],
    informs_early: NDArray[np.bool_],
    needed: NDArray[np.bool_],
    rates: tuple[float, ...],
    side: str,
    share_tails: bool,
) -> tuple[FloatMatrix, list[FloatMatrix], FloatMatrix]:
    """p-values, and band half-widths (in scales) at each of ``rates``, of the ``needed`` cells
    for single points (both sides together unless ``side`` is one of them), each judged with
    the tails its row's earlier ``informs`` errors (and, ``share_tails``, the other rows')
    make likely; cells with ``pooling.PREDICTIVE_ROWS`` peers or more (``share_tails``) are
    judged with the posterior predictive of their ``informs_early`` errors under the prior
    pooled across rows; and for those cells the tail heaviness of that predictive's heavy side
    (its ``pooling.POOLED_LEVEL`` quantile of ``nu``; NaN elsewhere), which the young window
    borrows. The tails are learnt once for every rate (a young cell is judged at half the rate
    and at the whole rate)."""
    limit, decay = SETTINGS.limit, SETTINGS.decay
    p = np.full(z.shape, np.nan)
    k = [np.full(z.shape, np.nan) for _ in rates]
    heaviness = np.full(z.shape, np.nan)
    if not needed.any():
        return p, k, heaviness
    cells = np.nonzero(needed)
    count = fc.count[cells]
    pooled = (pooling.peers(cells) >= pooling.PREDICTIVE_ROWS) & np.bool_(share_tails)
    one_side = [rate if side != "both" else rate / 2 for rate in rates]
    toward = np.abs(z[cells]) if side == "both" else (z if side == "upper" else -z)[cells]
    a = np.abs(toward)
    pc, kc = np.zeros(len(a)), [np.zeros(len(a)) for _ in rates]
    if not pooled.all():  # (the plug-in pools by age over all cells: it sees them all)
        earlier = tails.earlier_log_likelihoods(np.where(informs, z, np.nan), fc.count, cells,
                                                limit, decay)  # fmt: skip
        if share_tails:
            nu = pooling.shared_plug_in(earlier, cells)
        else:
            nu = tails.plug_in(tails.posterior(earlier))
        pc = tails.tail_probability(a, nu, count, limit, decay)
        kc = [tails.quantile(r, nu, count, limit, decay) for r in one_side]
    if pooled.any():
        # Many rows of one age: every earlier error of theirs (also those of a young model)
        # says how heavy the tails are, and the band is the posterior predictive.
        some = tuple(c[pooled] for c in cells)
        early = tails.earlier_log_likelihoods(np.where(informs_early, z, np.nan), fc.count,
                                              some, limit, decay)  # fmt: skip
        weights = pooling.predictive_weights(early, some)
        # (the normal member's far tail as a scale of few errors really gives it: tails_scale)
        pc[pooled] = tails.mixture_tail(a[pooled], weights, count[pooled], limit, decay,
                                        matched=True)  # fmt: skip
        for r, found in zip(one_side, kc, strict=True):
            found[pooled] = tails.mixture_quantile(r, weights, count[pooled], limit, decay,
                                                   matched=True)  # fmt: skip
        # The young window's tails: the predictive's heavy side, as a pooled plug-in reads it
        heaviness[some] = np.array(tails.NU)[tails.plug_in(weights, pooling.POOLED_LEVEL)]
    p[cells] = np.minimum(2.0 * pc, 1.0) if side == "both" else np.where(toward >= 0, pc, 1 - pc)
    for whole, found in zip(k, kc, strict=True):
        whole[cells] = found
    return p, k, heaviness


def value_band(
    fc: Forecasts,
    below: FloatMatrix,
    above: FloatMatrix,
    transforms: Transforms,
    needed: NDArray[np.bool_],
    offset: FloatMatrix,
    side: str,
    min_change: tuple[float, float],
) -> tuple[FloatMatrix, FloatMatrix]:
    """The band each ``needed`` point was judged against: ``below``/``above`` scales (one
    value per needed cell, in row-major order) around the forecast (the point test's
    half-width, or less where a lasting change was building), widened to the minimum practical
    change (``min_change``: absolute, relative), in value units (plus ``offset``: the previous
    value of a cumulative series); ``side`` ``"upper"`` / ``"lower"`` leaves the other side
    open."""
    cells = np.nonzero(needed)
    rows = transforms.take(cells[0])
    forecast, scale, shift = fc.forecast[cells], fc.scale[cells], offset[cells]
    with np.errstate(invalid="ignore"):
        low_y = forecast - below * scale
        high_y = forecast + above * scale
    if side == "upper":
        low_y = np.full(low_y.shape, -np.inf)
    if side == "lower":
        high_y = np.full(high_y.shape, np.inf)
    low, high = rows.inverse(low_y) + shift, rows.inverse(high_y) + shift
    centre = rows.inverse(forecast) + shift
    change = np.maximum(min_change[0], min_change[1] * np.abs(centre))
    if side != "upper":
        low = np.minimum(low, centre - change)
    if side != "lower":
        high = np.maximum(high, centre + change)
    lower, upper = np.full(needed.shape, np.nan), np.full(needed.shape, np.nan)
    lower[cells], upper[cells] = low, high
    return lower, upper
