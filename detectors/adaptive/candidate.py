"""One forecasting model's state for many series, and its step over one point of each.

The model is robust additive exponential smoothing in error-correction form (Gelper, Fried and
Croux, "Robust forecasting with exponential and Holt-Winters smoothing", Journal of
Forecasting, 2010), with seasonal components given as ``(stride, size)`` pairs: a point at
calendar slot ``t`` is in phase ``(t // stride) % size`` of each (``((1, 7),)``: day of week on
daily points; ``((1, 24), (24, 7))``: hour of day plus day of week on hourly points).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
IntArray = NDArray[np.int64]
Season = tuple[tuple[int, int], ...]
PHASE_MEMORY = 0.96
FIT_CLIP = 10.0
"""Model choice weighs an error up to this many scales: an outlier the model explains away as
a shift still counts against it (a level model sees every weekend as one), a broken load does
not decide the season."""


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


@dataclass(frozen=True)
class StepResult:
    """One point of every group as the model saw it (``error`` NaN where it could not judge)."""

    forecast: FloatArray
    error: FloatArray
    scale: FloatArray
    count: IntArray
    outlier: BoolArray
    ready: BoolArray
    fit: FloatArray


class Candidate:
    """The state of one model for every group.

    A seasonal model spends its first full cycle of the calendar collecting phase
    means, then starts from them as Holt-Winters is classically initialised: the level is the
    cycle's mean and each component's value its phase mean minus that (one balanced cycle
    makes hour-of-day and day-of-week means separable).
    """

    def __init__(self, groups: int, season: Season) -> None:
        self.season = season
        self.period = max((stride * size for stride, size in season), default=0)
        self.burn_in = self.period
        self.level = np.full(groups, np.nan)
        self.values = [np.zeros((groups, size)) for _, size in season]
        self.sums = [np.zeros((groups, size)) for _, size in season]
        self.counts = [np.zeros((groups, size)) for _, size in season]
        self.seen = np.zeros(groups, dtype=np.int64)
        self.first_slot = np.full(groups, -1, dtype=np.int64)
        self.burnt = np.full(groups, self.burn_in == 0)
        self.total = np.zeros(groups)
        self.scale_sum = np.zeros(groups)
        self.scale_weight = np.zeros(groups)
        self.fit_sum = np.zeros(groups)
        self.fit_weight = np.zeros(groups)
        self.count = np.zeros(groups, dtype=np.int64)
        self.pending = np.full(groups, np.nan)
        self.old_level = np.full(groups, np.nan)
        self.old_values = [np.zeros((groups, size)) for _, size in season]
        self.timer = np.zeros(groups, dtype=np.int64)
        self.run = np.zeros(groups, dtype=np.int64)
        # How noisy each phase of the first season is relative to the series (nights of counts
        # that touch zero are noisier than their days on any one scale).
        self.ratio = np.ones((groups, season[0][1] if season else 1))

    def step(
        self,
        y: FloatArray,
        usable: BoolArray,
        slot: IntArray,
        rows: IntArray,
        floor: FloatArray,
        settings: SmootherSettings,
    ) -> StepResult:
        """Forecast and judge the points ``y`` (one per group), then learn from the ``usable``
        ones."""
        phases = [(slot // stride) % size for stride, size in self.season]
        seasonal = sum((v[rows, p] for v, p in zip(self.values, phases, strict=True)),
                       np.zeros(len(y)))  # fmt: skip
        old_seasonal = sum((v[rows, p] for v, p in zip(self.old_values, phases, strict=True)),
                           np.zeros(len(y)))  # fmt: skip
        burning = ~self.burnt
        f = self.level + seasonal
        e = y - f
        ratio = self.ratio[rows, phases[0]] if phases else np.ones(len(y))
        overall = self.scale_sum / np.maximum(self.scale_weight, 1e-300)
        s = np.where(self.scale_weight > 0, np.maximum(overall * ratio, floor), np.nan)
        bound = settings.limit * s
        big = np.abs(e) > bound
        shifted = e - self.pending
        accept = big & np.isfinite(self.pending) & (np.abs(shifted) <= bound)
        back = y - (self.old_level + old_seasonal)
        restore = big & ~accept & (self.timer > 0) & (np.abs(back) <= bound)
        e_eff = np.where(accept, shifted, np.where(restore, back, e))
        outlier = np.abs(e_eff) > bound
        started = ~burning & np.isfinite(self.level)
        judged = started & (self.count >= settings.min_errors)
        result = StepResult(
            forecast=np.where(np.isfinite(y), y - e_eff, f),
            error=np.where(judged, e_eff, np.nan),
            scale=s,
            count=self.count.copy(),
            outlier=outlier & judged,
            ready=judged,
            fit=np.where(
                self.fit_weight > 0, self.fit_sum / np.maximum(self.fit_weight, 1e-300), np.nan
            ),
        )
        scored = usable & judged
        if scored.any():
            fitted = np.minimum(np.abs(e), FIT_CLIP * s)[scored]
            self.fit_sum[scored] = settings.decay * self.fit_sum[scored] + fitted
            self.fit_weight[scored] = settings.decay * self.fit_weight[scored] + 1.0
        self._burn(y, usable & burning, phases, slot)
        self._shift(usable & judged & accept, usable & judged & restore, settings)
        self._learn(y, e, e_eff, bound, usable & ~burning, started, judged, outlier, phases,
                    settings, ratio)  # fmt: skip
        self.timer = np.maximum(self.timer - usable, 0)
        self._restart(y - seasonal, usable & judged, outlier, settings)
        return result

    def _restart(
        self,
        deseasoned: FloatArray,
        judged: BoolArray,
        outlier: BoolArray,
        settings: SmootherSettings,
    ) -> None:
        """Restart the level and the scale of series with ``regime_run`` outliers in a row."""
        self.run = np.where(judged & outlier, self.run + 1, np.where(judged, 0, self.run))
        restart = self.run >= settings.regime_run
        if restart.any():
            self.level[restart] = deseasoned[restart]
            self.scale_sum[restart] = 0.0
            self.scale_weight[restart] = 0.0
            self.count[restart] = 0
            self.pending[restart] = np.nan
            self.timer[restart] = 0
            self.run[restart] = 0

    def _burn(
        self, y: FloatArray, burning: BoolArray, phases: list[IntArray], slot: IntArray
    ) -> None:
        """Collect the first cycle; at its end start the model from its phase means.

        The cycle is one of the calendar, not a count of points: a series with gaps (business
        hours only) starts after its first week, and its empty phases (nights) stay at 0."""
        if not burning.any():
            return
        first = burning & (self.seen == 0)
        self.level[first] = y[first]
        self.first_slot[first] = slot[first]
        self.total[burning] += y[burning]
        self.seen[burning] += 1
        # The level model (no season) has no burn-in; a seasonal one's level is the mean so far.
        self.level[burning] = self.total[burning] / self.seen[burning]
        for sums, counts, phase in zip(self.sums, self.counts, phases, strict=True):
            sums[burning, phase[burning]] += y[burning]
            counts[burning, phase[burning]] += 1
        done = burning & (
            (self.seen >= self.burn_in) | (slot - self.first_slot + 1 >= self.burn_in)
        )
        if done.any():
            self.burnt[done] = True
            mean = self.total[done] / self.seen[done]
            for values, sums, counts in zip(self.values, self.sums, self.counts, strict=True):
                with np.errstate(invalid="ignore", divide="ignore"):
                    phase_mean = sums[done] / counts[done]
                values[done] = np.where(counts[done] > 0, phase_mean - mean[:, None], 0.0)
            self.level[done] = mean

    def _shift(self, accept: BoolArray, restore: BoolArray, settings: SmootherSettings) -> None:
        """Move to a confirmed new level (keeping the old model), or back to the old one."""
        if accept.any():
            self.old_level[accept] = self.level[accept]
            for values, old in zip(self.values, self.old_values, strict=True):
                old[accept] = values[accept]
            self.level[accept] += self.pending[accept]
            self.timer[accept] = settings.point_return_window + 1
        if restore.any():
            self.level[restore] = self.old_level[restore]
            for values, old in zip(self.values, self.old_values, strict=True):
                values[restore] = old[restore]
            self.timer[restore] = 0

    def _learn(
        self,
        y: FloatArray,
        e: FloatArray,
        e_eff: FloatArray,
        bound: FloatArray,
        usable: BoolArray,
        started: BoolArray,
        judged: BoolArray,
        outlier: BoolArray,
        phases: list[IntArray],
        settings: SmootherSettings,
        ratio: FloatArray,
    ) -> None:
        """Learn from the usable points: the first ``min_errors`` errors of a model are taken
        whole (no outliers before there is a scale to measure them by), later ones unless
        they are outliers, clipped to the limit in the scale."""
        fresh = usable & ~np.isfinite(self.level)
        self.level[fresh] = y[fresh]
        warm = usable & started & ~judged & ~fresh
        learn = (usable & judged & ~outlier) | warm
        if learn.any():
            n = self.count[learn] + 1
            rate = np.maximum(settings.point_level_rate, 1.0 / (n + 1 + self.burn_in))
            rest = np.where(warm, e, e_eff)[learn]
            self.level[learn] += rate * rest
            rest = rest * (1 - rate)
            for (stride, _), values, phase in zip(self.season, self.values, phases, strict=True):
                # A phase spanning ``stride`` points learns per span, not per point.
                season_rate = 1.0 - (1.0 - settings.season_rate) ** (1.0 / stride)
                values[learn, phase[learn]] += season_rate * rest
                rest = rest * (1 - season_rate)
        scaled = (usable & judged) | warm
        if scaled.any():
            clipped = np.where(warm, np.abs(e), np.minimum(np.abs(e_eff), bound))[scaled]
            if phases:
                where = (scaled, phases[0][scaled])
                overall = self.scale_sum[scaled] / np.maximum(self.scale_weight[scaled], 1e-300)
                with np.errstate(invalid="ignore", divide="ignore"):
                    seen = np.where(overall > 0, clipped / overall, 1.0)
                self.ratio[where] = PHASE_MEMORY * self.ratio[where] + (1 - PHASE_MEMORY) * seen
                clipped = clipped / ratio[scaled]
            self.scale_sum[scaled] = settings.decay * self.scale_sum[scaled] + clipped
            self.scale_weight[scaled] = settings.decay * self.scale_weight[scaled] + 1.0
            self.count[scaled] += 1
        self.pending = np.where(usable & judged & outlier, e_eff,
                                np.where(usable, np.nan, self.pending))  # fmt: skip
