"""One-step forecasts of many series at once: robust exponential smoothing with level shifts.

Each candidate model (:mod:`detectors.adaptive.kernels.smoothing`: no season, or the calendar
seasons of the series) runs over each transformed series:

* a seasonal model spends its first full cycle of the calendar collecting phase means, then
  starts from them as Holt-Winters is classically initialised (the level is the cycle's mean,
  each component's value its phase mean minus that); a series with gaps (business hours only)
  starts after its first week, and its empty phases stay at 0;
* forecast ``f = level + seasonal``; error ``e = y - f``; scale ``s`` = running mean of
  ``min(|e|, limit * s)``, exponentially weighted;
* an error beyond ``limit * s`` is an outlier: it teaches the model nothing and is kept as a
  possible level shift. If the next error, measured as if the level had moved by the outlier's
  error, is within the limit, the shift is accepted (the level moves, no second alert) and the
  model before the shift is kept for ``return_window`` points: a value back on the old level
  restores it (a one- or two-point drop is over, not a new shift), as does a value nearer the
  old model than the shifted one on the point after the shift (the day after a holiday's
  two-day drop, busier than usual);
* an outlier one cycle of the first season after an outlier of about the same size at the
  same phase (a Saturday 20% above its Saturdays, twice in a row) is a lasting change of that
  phase: its seasonal component moves by the first outlier's error, no second alert;
* the scale never drops below ``granularity`` times the smallest step the series has made
  away from a value it repeated (in value units, mapped onto the transformed scale where the
  series is now), once it has repeated values ``GRAIN_REPEATS`` times: a metric that sits at 0
  and now and then shows one null row learns that one null row is normal, a large count that
  repeats once by chance learns nothing (a constant ratio keeps a zero-width band; a count of
  one or more moves by whole units, so its grain is at most one unit from the start);
* ordinary errors move the level by ``level_rate * e`` and each seasonal component by
  ``season_rate`` of what is left; how noisy each phase of the first season is relative to the
  series is learnt too (nights of counts that touch zero are noisier than their days on any
  one scale);
* after ``regime_run`` outliers in a row the level and scale restart from the current point.

At every point the candidate whose past one-step errors were smallest (each weighed up to ten
scales, so outliers a model explains away as shifts still count against it) among those ready
to judge is used: the season is chosen by how well it forecast the past, point by point, so a
verdict depends only on the points before it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from detectors.adaptive.transform import Transforms

FloatMatrix = NDArray[np.float64]
FloatArray = NDArray[np.float64]
BoolMatrix = NDArray[np.bool_]
Season = tuple[tuple[int, int], ...]

__all__ = ["SETTINGS", "Forecasts", "Season", "SmootherSettings", "smooth"]

GRAIN_REPEATS = 3


@dataclass(frozen=True)
class SmootherSettings:
    """The recursion's constants (chosen on the development split of the benchmark)."""

    level_rate: float = 0.2
    """Per day: a sub-daily series moves its level ``1 - (1 - level_rate) ** (1 / points a
    day)`` per point, so hourly points do not chase their own daily cycle."""
    season_rate: float = 0.2
    limit: float = 4.0
    decay: float = 0.97
    return_window: int = 14
    min_errors: int = 3
    season_margin: float = 1.0
    granularity: float = 0.5
    points_per_day: float = 1.0
    regime_run: int = 3
    """After this many outliers in a row the series has changed beyond a level shift (a unit
    change, a new noise level): the model restarts from the current point."""

    @property
    def point_return_window(self) -> int:
        """``return_window`` points, and two days' worth at least: an hourly series that is
        low for a whole holiday comes back to its old model the next morning."""
        return max(self.return_window, round(2 * self.points_per_day))

    @property
    def point_level_rate(self) -> float:
        return 1.0 - (1.0 - self.level_rate) ** (1.0 / max(self.points_per_day, 1.0))


SETTINGS = SmootherSettings()
"""The settings ``Adaptive`` runs with (per call, with the spacing's points per day)."""


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
    units: tuple[FloatMatrix, Transforms] | None = None,
) -> Forecasts:
    """Run every candidate (no season, then each of ``seasons``) over ``y`` and keep the best
    per cell.

    ``learn[g, t]`` says whether point ``t`` may serve as history (``False``: judged only);
    ``slots[g, t]`` is the point's time in spacings since a Monday midnight, which places it in
    its seasons (default: its position, for series without timestamps); ``units`` are the
    values before the transform and their transforms: the scale's floor is a step of the
    values' own granularity up from where the series is now (one flight more is a big step at
    night and a small one at noon on a square-root scale).
    """
    from detectors.adaptive.kernels import by_rows
    from detectors.adaptive.kernels.smoothing import smooth_rows

    groups, steps = y.shape
    y = np.ascontiguousarray(y, dtype=np.float64)
    usable = np.ascontiguousarray(np.isfinite(y) & learn)
    if slots is None:
        slots = np.broadcast_to(np.arange(steps, dtype=np.int64), y.shape)
    slots = np.ascontiguousarray(slots, dtype=np.int64)
    floor = _floor(y, usable, settings.granularity, units)
    tables = _candidates(tuple(s for s in seasons if s), settings)
    shape = (groups, steps)
    out = Forecasts(
        np.empty(shape), np.empty(shape), np.empty(shape), np.empty(shape, np.int64),
        np.empty(shape, bool), np.empty(shape, bool), np.empty(shape, np.int64),
        np.empty(shape, bool),
    )  # fmt: skip
    outputs = [getattr(out, name) for name in Forecasts.__dataclass_fields__]

    def rows(part: slice) -> None:
        smooth_rows(y[part], usable[part], slots[part], floor[part], *tables,
                    *(o[part] for o in outputs))  # fmt: skip

    by_rows(rows, groups, groups * steps)
    return out


def _candidates(seasons: tuple[Season, ...], settings: SmootherSettings) -> tuple[Any, ...]:
    """The candidates as the recursion reads them: per candidate (the first without a season)
    its components' strides, sizes and learning rates, their number and the cycle length; and
    the settings."""
    width = max((len(s) for s in seasons), default=1)
    n = len(seasons) + 1
    strides = np.ones((n, width), dtype=np.int64)
    sizes = np.ones((n, width), dtype=np.int64)
    rates = np.zeros((n, width))
    components = np.zeros(n, dtype=np.int64)
    periods = np.zeros(n, dtype=np.int64)
    for c, season in enumerate(seasons, start=1):
        components[c] = len(season)
        periods[c] = max(stride * size for stride, size in season)
        for k, (stride, size) in enumerate(season):
            strides[c, k], sizes[c, k] = stride, size
            # A phase spanning ``stride`` points learns per span, not per point.
            rates[c, k] = 1.0 - (1.0 - settings.season_rate) ** (1.0 / stride)
    constants = np.array([
        settings.limit, settings.decay, settings.min_errors, settings.point_level_rate,
        settings.point_return_window, settings.regime_run, settings.season_margin,
    ], dtype=np.float64)  # fmt: skip
    return strides, sizes, components, periods, rates, constants


def _floor(
    y: FloatMatrix,
    usable: BoolMatrix,
    granularity: float,
    units: tuple[FloatMatrix, Transforms] | None,
) -> FloatMatrix:
    """The scale's floor before each point: ``granularity`` times the series' smallest step
    away from a repeated value (one unit for counts that have not moved yet), as a step up
    from its last value on the transformed scale."""
    from detectors.adaptive.kernels.smoothing import grain_state

    x, transforms = (y, None) if units is None else units
    last, step, repeats = grain_state(np.ascontiguousarray(x, dtype=np.float64), usable)
    whole = np.zeros(y.shape, bool)
    if transforms is not None and transforms.counts.any():
        # A count moves by whole units, whether or not it has repeated yet: twelve flights a
        # day for a week, then eleven, is one unit, not an infinitely unlikely change, and a
        # small count whose second week repeats its first to the unit (8, 12, 9, 12) has not
        # stopped varying (a count at 0 has no such grain: its first rows are news).
        whole = transforms.counts[:, None] & (last >= 1)
        step = np.where(whole, np.minimum(step, 1.0), step)
    floor = np.zeros(y.shape)
    grained = np.isfinite(step) & ((repeats >= GRAIN_REPEATS) | whole)
    if not grained.any():
        return floor
    rows = np.flatnonzero(grained.any(axis=1))
    low, high = last[rows], last[rows] + step[rows]
    if transforms is not None:
        some = transforms.take(rows)
        high, low = some.forward(high), some.forward(low)
    up = high - low
    floor[rows] = np.where(grained[rows] & np.isfinite(up), granularity * up, 0.0)
    return floor
