"""One-step forecasts of many series at once: robust exponential smoothing with level shifts.

Each candidate model (:mod:`detectors.adaptive.candidate`: no season, or the calendar seasons
of the series) runs over the transformed series as a groups x time recursion:

* forecast ``f = level + seasonal``; error ``e = y - f``; scale ``s`` = running mean of
  ``min(|e|, limit * s)``, exponentially weighted;
* an error beyond ``limit * s`` is an outlier: it teaches the model nothing and is kept as a
  possible level shift. If the next error, measured as if the level had moved by the outlier's
  error, is within the limit, the shift is accepted (the level moves, no second alert) and the
  model before the shift is kept for ``return_window`` points: a value back on the old level
  restores it (a one- or two-point drop is over, not a new shift);
* the scale never drops below ``granularity`` times the smallest step the series has made
  away from a value it repeated (in value units, mapped onto the transformed scale where the
  series is now), once it has repeated values ``GRAIN_REPEATS`` times: a metric that sits at 0
  and now and then shows one null row learns that one null row is normal, a large count that
  repeats once by chance learns nothing (a truly constant series keeps a zero-width band);
* ordinary errors move the level by ``level_rate * e`` and each seasonal component by
  ``season_rate`` of what is left.

At every point the candidate whose past one-step errors were smallest (each weighed up to ten
scales, so outliers a model explains away as shifts still count against it) among those ready
to judge is used: the season is chosen by how well it forecast the past, point by point, so a
verdict depends only on the points before it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from detectors.adaptive.candidate import Candidate, Season, SmootherSettings

FloatMatrix = NDArray[np.float64]
FloatArray = NDArray[np.float64]
BoolMatrix = NDArray[np.bool_]

__all__ = ["Forecasts", "Season", "SmootherSettings", "smooth"]

GRAIN_REPEATS = 3


@dataclass(frozen=True)
class Forecasts:
    """Per cell (groups x time) of the chosen candidate: forecast and error (transformed
    scale, after any accepted shift or return), the scale before the point, how many errors
    the scale has seen, whether the error is an outlier, whether the model had seen enough to
    judge, and the chosen model's cycle length (0: no season); and whether every candidate
    was ready."""

    forecast: FloatMatrix
    error: FloatMatrix
    scale: FloatMatrix
    count: NDArray[np.int64]
    outlier: BoolMatrix
    ready: BoolMatrix
    period: NDArray[np.int64]
    settled: BoolMatrix
    """Every candidate was ready: the choice among them was open (before that, a seasonal
    series may be forecast by the level model, whose errors say nothing of its tails)."""


def smooth(
    y: FloatMatrix,
    learn: BoolMatrix,
    seasons: tuple[Season, ...],
    settings: SmootherSettings,
    slots: NDArray[np.int64] | None = None,
    units: tuple[FloatMatrix, Callable[[FloatArray], FloatArray]] | None = None,
) -> Forecasts:
    """Run every candidate (no season, then each of ``seasons``) over ``y`` and keep the best
    per cell.

    ``learn[g, t]`` says whether point ``t`` may serve as history (``False``: judged only);
    ``slots[g, t]`` is the point's time in spacings since a Monday midnight, which places it in
    its seasons (default: its position, for series without timestamps); ``units`` are the
    values before the transform and the transform (of one value per group): the scale's floor
    is a step of the values' own granularity up from where the series is now (one flight more
    is a big step at night and a small one at noon on a square-root scale).
    """
    x, forward = (y, None) if units is None else units
    groups, steps = y.shape
    candidates = [Candidate(groups, ()), *(Candidate(groups, s) for s in seasons if s)]
    shape = (len(candidates), steps, groups)  # time-major: each step writes contiguous rows
    forecast = np.full(shape, np.nan)
    error = np.full(shape, np.nan)
    scale = np.full(shape, np.nan)
    count = np.zeros(shape, dtype=np.int64)
    outlier = np.zeros(shape, dtype=bool)
    ready = np.zeros(shape, dtype=bool)
    fit = np.full(shape, np.nan)
    rows = np.arange(groups)
    floor = np.zeros(groups)
    steps_away = np.full(groups, np.inf)
    repeated = np.zeros(groups, dtype=bool)
    repeats = np.zeros(groups, dtype=np.int64)
    last = np.full(groups, np.nan)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for t in range(steps):
            col = y[:, t]
            usable = np.isfinite(col) & learn[:, t]
            slot = np.full(groups, t, dtype=np.int64) if slots is None else slots[:, t]
            for c, candidate in enumerate(candidates):
                out = candidate.step(col, usable, slot, rows, floor, settings)
                forecast[c, t], error[c, t], scale[c, t] = out.forecast, out.error, out.scale
                count[c, t], outlier[c, t], ready[c, t] = out.count, out.outlier, out.ready
                fit[c, t] = out.fit
            value = x[:, t]
            moved = usable & repeated & (value != last)
            steps_away = np.where(moved, np.minimum(steps_away, np.abs(value - last)), steps_away)
            repeated = np.where(usable, value == last, repeated)
            repeats += usable & repeated
            last = np.where(usable, value, last)
            if np.isfinite(steps_away).any():
                up = steps_away if forward is None else forward(last + steps_away) - forward(last)
                grained = np.isfinite(up) & (repeats >= GRAIN_REPEATS)
                floor = np.where(grained, settings.granularity * up, 0.0)
    chosen = _choose(fit, ready, settings.season_margin)
    pick = (chosen, np.arange(steps)[:, None], rows[None, :])
    period = np.array([c.period for c in candidates], dtype=np.int64)[chosen]

    def picked(array: Any) -> Any:
        return np.ascontiguousarray(array[pick].T)  # back to groups x time

    return Forecasts(
        picked(forecast), picked(error), picked(scale), picked(count), picked(outlier),
        picked(ready), np.ascontiguousarray(period.T), np.ascontiguousarray(ready.all(axis=0).T),
    )  # fmt: skip


def _choose(fit: FloatMatrix, ready: BoolMatrix, margin: float) -> NDArray[np.int64]:
    """The candidate per cell: the best past fit among ready seasonal ones if it beats the
    plain level model by ``margin``, else the level model."""
    plain = np.where(np.isnan(fit[0]), np.inf, fit[0])
    seasonal = np.where(ready[1:] & ~np.isnan(fit[1:]), fit[1:], np.inf)
    if len(seasonal) == 0:
        return np.zeros(plain.shape, dtype=np.int64)
    best = np.argmin(seasonal, axis=0)
    best_scale = np.take_along_axis(seasonal, best[None], axis=0)[0]
    return np.where(best_scale < margin * plain, best + 1, 0).astype(np.int64)
