"""``Adaptive``: the default detector, with a band calibrated to a false-alarm rate."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from detectors.adaptive import (
    calendar,
    holiday_days,
    limits,
    parameters,
    persistence,
    recurrence,
    scale_choice,
    season_window,
    settling,
    stuck,
    tails,
    young,
    young_window,
)
from detectors.adaptive.band import point_test, value_band
from detectors.adaptive.cumulative import cumulative_rows, previous_values, repaired_offsets
from detectors.adaptive.judged import Judged, describe_anomaly, pack_aux, splice, verdicts
from detectors.adaptive.kernels import at_least_before, standardised
from detectors.adaptive.seasons import (
    DAY,
    fixed_periods,
    periods_for_spacing,
    periods_from_values,
    seasons_for_periods,
)
from detectors.adaptive.smoother import SETTINGS, smooth
from detectors.adaptive.transform import DECIDING_POINTS, Transforms
from detectors.base import Interval, as_values, resolve_interval
from detectors.evaluation import ANOMALY, INSUFFICIENT, MISSING, Evaluation, FloatArray, IntArray
from detectors.holidays import HolidaysLike
from detectors.vectorised import Cell, FloatMatrix, MatrixDetector, MatrixResult

POINT_SHARE = 1.0 - persistence.SHARE - stuck.SHARE
"""The false-alarm rate's share for single points (the rest: lasting changes, stale values)."""


@dataclass(frozen=True)
class Adaptive(MatrixDetector):
    """Forecast each point from its own history and flag it when the forecast error is beyond
    what the series' past errors make likely at ``false_alarm_rate``.

    Per series: a variance-stabilising scale is chosen from the first points (log for counts
    and magnitudes, square root for small counts, none for ratios and signed values; a
    magnitude that comes to span a wide range is judged on the log or the identity scale,
    whichever forecast its past better; a cumulative size is judged on its increments); robust
    exponential smoothing forecasts the next point with no season or with each period of the
    timestamps' spacing (or the values' autocorrelation), whichever forecast the past best;
    the band is calibrated on the series' own past one-step errors (see
    :mod:`detectors.adaptive.tails`) so that a normal point falls outside it with probability
    ``false_alarm_rate``, and each verdict has a p-value. A lasting level shift raises one
    alert: when the next point confirms the new level, the model moves there. A value repeated
    more times in a row than the series' own history makes likely (a stale metric, a frozen
    sensor) raises one alert per run (:mod:`detectors.adaptive.stuck`).

    Parameters
    ----------
    false_alarm_rate
        The share of normal points that may be flagged (both sides together).
    season
        ``"auto"`` (calendar periods of the spacing, else the autocorrelation's), ``None`` (no
        season), or periods in points (``7``, ``[24, 168]``).
    side
        ``"both"``, or ``"lower"`` / ``"upper"`` to flag only drops / only rises.
    min_relative_change, min_absolute_change
        A point is flagged only if it is also this far from the forecast (relative to the
        forecast, or in value units): tiny-variance metrics do not alert on tiny changes.
    min_history
        Earlier points needed before a point is judged (at least one cycle of the season).
    share_tails
        Series judged in one call (the groups of a check, the series of a scan) learn from
        each other how heavy their errors' tails are: a series whose few errors look light
        while the others' are heavy gets the heavier band, never a narrower one
        (:mod:`detectors.adaptive.pooling`), and a young series' scale is floored by theirs
        (:mod:`detectors.adaptive.young`). ``False``: every series is judged on its own
        errors only, so its verdicts do not depend on the other series in the call.
    domain
        ``(lower, upper)``: the values the metric can take (``(0.0, 1.0)`` for ratios,
        completeness and shares, ``(0.0, math.inf)`` for counts and sizes; ``None``: any).
        Bands are cut to it, and a value outside it is flagged with p-value 0. Every band is
        also finite and reaches at most ``limits.RANGE_REACH`` times the series' observed range
        beyond it (:mod:`detectors.adaptive.limits`). ``with_domain`` sets it per metric.
    spacing
        Seconds between points; the time-aware layers (``detect_series``, ``detect_frame``,
        scans, checks) set it from the timestamps (``with_spacing``).
    holidays
        The data's holiday calendar (``"US"``, ``["US", "CA"]``, ``{"countries": ["US"],
        "dates": ["12-24"]}``: :class:`~detectors.holidays.Holidays`): points at times on one
        are judged on a wider band and never learnt (:mod:`detectors.adaptive.holiday_days`).

    Examples
    --------
    >>> rng = np.random.default_rng(7)
    >>> weekly = np.tile([100.0, 104, 98, 102, 99, 60, 55], 12) * rng.normal(1, 0.01, 84)
    >>> weekly[80] *= 0.5  # a partial load on a weekday
    >>> detector = Adaptive().with_spacing(86_400)
    >>> [a.index for a in detector.detect(weekly)]
    [80]
    >>> bool(detector.evaluate(weekly, (80, 81)).p_value[0] < 1e-3)
    True
    >>> shifted = np.r_[rng.normal(50, 1, 40), rng.normal(70, 1, 40)]  # a lasting shift
    >>> [a.index for a in Adaptive(season=None).detect(shifted)]
    [40]
    >>> share = Adaptive(season=None).with_domain(0.0, 1.0)
    >>> band = share.evaluate(np.r_[rng.normal(0.25, 0.1, 30).clip(0, 1), 0.5], (30, 31))
    >>> float(band.lower[0]) >= 0.0, float(band.upper[0]) <= 1.0
    (True, True)
    >>> frozen = np.r_[rng.normal(20, 2, 60).round(2), np.full(10, 21.37)]  # a stale source
    >>> [a.index for a in Adaptive(season=None).detect(frozen)]
    [62]
    """

    false_alarm_rate: float = 0.001
    season: str | int | Sequence[int] | None = "auto"
    side: str = "both"
    min_relative_change: float = 0.0
    min_absolute_change: float = 0.0
    min_history: int = 5
    share_tails: bool = True
    spacing: float | None = None
    domain: tuple[float, float] | None = None
    holidays: HolidaysLike = None

    def __post_init__(self) -> None:
        domain, holidays = parameters.validate(vars(self))  # a config's lists made hashable
        object.__setattr__(self, "domain", domain)
        object.__setattr__(self, "holidays", holidays)

    def with_domain(self, lower: float | None, upper: float | None) -> Adaptive:
        """This detector for a metric whose values lie in ``[lower, upper]`` (``None``: that
        side unbounded), e.g. ``detector.with_domain(0.0, 1.0)`` for a completeness.

        >>> Adaptive().with_domain(0, None).domain
        (0.0, inf)
        """
        low = -math.inf if lower is None else lower
        high = math.inf if upper is None else upper
        domain = limits.check_domain((low, high))
        return self if domain == self.domain else replace(self, domain=domain)

    def _fixed_periods(self) -> tuple[int, ...] | None:
        """The periods given explicitly (``None`` for ``"auto"``)."""
        return fixed_periods(self.season)

    def with_spacing(self, seconds: float | None) -> Adaptive:
        """This detector for points ``seconds`` apart (``None``: unknown)."""
        return self if seconds == self.spacing else replace(self, spacing=seconds)

    def at_times(self, times: Any) -> Adaptive:
        """This detector for points at ``times`` (one per value, or a groups x time matrix
        padded with NaT): the spacing comes from them unless set, and every point is placed in
        its calendar season (a missing point does not shift the season of the next)."""
        stamps = calendar.nanoseconds(times)
        if stamps is None:
            return self
        spacing = self.spacing or calendar.spacing_of(stamps)
        bound = replace(self, spacing=spacing or self.spacing)  # never share the bound state
        if spacing:
            object.__setattr__(bound, "_slots", calendar.slots(stamps, spacing))
        object.__setattr__(bound, "_holidays", holiday_days.mask(self.holidays, stamps))
        return bound

    def periods(self, values: FloatArray | None = None) -> tuple[int, ...]:
        """The seasonal periods tried on a series (``values``: its points, for ``"auto"``
        without a spacing).

        >>> Adaptive().with_spacing(3600).periods(), Adaptive(season=7).periods()
        ((24, 168), (7,))
        """
        fixed = self._fixed_periods()
        if fixed is not None:
            return fixed
        if self.spacing is not None:
            return periods_for_spacing(self.spacing)
        return () if values is None else periods_from_values(values)

    def needed_cycle(self, periods: tuple[int, ...]) -> int:
        """Spacings of the calendar a verdict needs behind it besides ``min_history`` earlier
        points: one whole cycle of the season (a first weekend, a first night, is new, not
        anomalous; hourly points wait a week, so the hour of day and the day of week are both
        known, and hours of business days only wait a week too, not 168 of them)."""
        seasons = seasons_for_periods(periods)
        return max((stride * size for stride, size in seasons[0]), default=0) if seasons else 0

    @property
    def interval_independent(self) -> bool:
        # Without a spacing, "auto" looks for the period in the values up to the interval's end.
        return self.spacing is not None or self._fixed_periods() is not None

    # -- evaluation ---------------------------------------------------------------------------

    def evaluate(self, values: ArrayLike, interval: Interval | None = None) -> Evaluation:
        x = as_values(values)
        start, end = resolve_interval(interval, len(x))
        return self.walk_forward(x, start, end, None)

    def walk_forward(
        self, values: FloatArray, start: int, end: int, baseline: NDArray[np.bool_] | None
    ) -> Evaluation:
        """Each point judged on the points before it: the same as :meth:`evaluate`, because a
        verdict never looks ahead; points outside ``baseline`` are judged but not learnt."""
        learn = np.ones(end, dtype=bool) if baseline is None else baseline[:end]
        ends = np.array([end])
        return self.walk_forward_rows(values[None, :end], np.array([start]), ends, learn[None])[0]

    def walk_forward_rows(
        self, x: FloatMatrix, starts: IntArray, lengths: IntArray, baseline: NDArray[np.bool_]
    ) -> list[Evaluation]:
        """:meth:`walk_forward` of many series in one call, as a scan judges its groups (so
        they share tail heaviness): row ``g`` of ``x`` (NaN-padded) judged from ``starts[g]``
        to ``lengths[g]``, its points outside ``baseline[g]`` judged but not learnt."""
        r = self._kernel(x, lengths, starts, baseline)
        assert r.p_value is not None
        return [
            replace(self.row_evaluation(x[g, :n], a, n, r.lower[g, :n], r.upper[g, :n],
                                        r.codes[g, :n], r.confidence[g, :n], r.aux[g, :n]),
                    p_value=r.p_value[g, a:n])
            for g, (a, n) in enumerate(zip(starts.tolist(), lengths.tolist(), strict=True))
        ]  # fmt: skip

    def evaluate_matrix(self, x: FloatMatrix, lengths: IntArray, starts: IntArray) -> MatrixResult:
        return self._kernel(x, lengths, starts, np.ones(x.shape, dtype=bool))

    def _kernel(
        self, x: FloatMatrix, lengths: IntArray, starts: IntArray, learn: NDArray[np.bool_]
    ) -> MatrixResult:
        if x.shape[1] == 0:
            empty = np.full(x.shape, np.nan)
            return MatrixResult(empty, empty, np.full(x.shape, MISSING, np.int8), empty, empty,
                                empty)  # fmt: skip
        days = holiday_days.bound(getattr(self, "_holidays", None), x.shape)
        learn = learn & np.isfinite(x) & ~days  # a holiday is judged, never learnt
        per_day = DAY / self.spacing if self.spacing else 1.0
        # Sub-daily series decide their scale on a whole first day, not on its first night.
        deciding = int(min(max(DECIDING_POINTS, round(per_day)), 48))
        slots = calendar.bound_slots(getattr(self, "_slots", None), x.shape)
        learnt = np.where(learn, x, np.nan)
        growing = cumulative_rows(learnt, deciding)
        offset = np.zeros(x.shape)
        offset[growing] = previous_values(x[growing])
        # Every pass tries the same seasons, so a row's never depend on which rows a pass holds.
        periods = self.periods(x[0] - offset[0] if len(x) == 1 else None)
        judged = self._judge(x, starts, learn, offset, slots, deciding, growing, periods, days)
        result = judged.result
        rows, wide = scale_choice.open_rows(judged.transforms, learnt, growing, self.share_tails)
        if len(rows):  # also on the identity scale, where the values span a wide range
            plain = self._judge(x[rows], starts[rows], learn[rows], offset[rows],
                                None if slots is None else slots[rows], deciding,
                                np.zeros(len(rows), bool), periods, days[rows],
                                identity=True)  # fmt: skip
            on_log = judged.density(x[rows], rows)
            on_identity = plain.density(x[rows], np.arange(len(rows)))
            better = scale_choice.prefer_identity(on_log, on_identity, wide)
            splice(result, plain.result, rows, better & (plain.result.codes != INSUFFICIENT))
        if not growing.any():
            return result
        # Once more with each increment measured from the size a broken load should have had,
        # where that fits the next point better: a one-day truncation alerts once, not twice.
        repaired = repaired_offsets(
            x[growing], offset[growing], result.codes[growing] == ANOMALY, judged.expected
        )
        again = self._judge(
            x[growing], starts[growing], learn[growing], repaired,
            None if slots is None else slots[growing], deciding, np.zeros(len(repaired), bool),
            periods, days[growing],
        )  # fmt: skip
        splice(result, again.result, growing, np.ones(again.result.codes.shape, bool))
        return result

    def _judge(
        self,
        values: FloatMatrix,
        starts: IntArray,
        learn: NDArray[np.bool_],
        offset: FloatMatrix,
        slots: NDArray[np.int64] | None,
        deciding: int,
        forecast_rows: NDArray[np.bool_],
        periods: tuple[int, ...],
        days: NDArray[np.bool_],
        identity: bool = False,
    ) -> Judged:
        """The verdicts on ``values - offset`` (increments of cumulative rows, else values) on
        each row's scale (``identity``: on no transform), with bands back in value units."""
        steps = values.shape[1]
        x = values - offset
        learn = learn & np.isfinite(x)
        transforms = Transforms.choose(np.where(learn, x, np.nan), deciding)
        # A share that sat at 0 (or 1) for its first week is a ratio, not a count, when the
        # domain says so: a first row of the category is not a count leaving zero.
        domain = limits.check_domain(self.domain)
        transforms = transforms.as_identity() if identity or domain[1] <= 1.0 else transforms
        y = transforms.forward(x)
        settings = replace(SETTINGS, points_per_day=DAY / self.spacing if self.spacing else 1.0)
        fc = smooth(y, learn, seasons_for_periods(periods), settings, slots, (x, transforms))
        aged = fc.ready & at_least_before(learn, self.min_history)
        seen = np.isfinite(values)
        newest = np.where(seen.any(axis=1), steps - 1 - np.argmax(seen[:, ::-1], axis=1), 0)
        asked = aged & np.bool_(self.share_tails)
        daily = self.spacing is None or self.spacing >= DAY
        cycles = settling.cycles(periods, daily, len(x), self.share_tails)
        scale = settling.settled_scale(fc.scale, fc.count, fc.period, cycles)
        floor = young.pooled_floor(scale, fc.count, transforms.kinds, newest, asked)
        # A count forecast below zero (a night the seasons overshoot) expects zero, not less;
        # a young row's scale is floored by its peers' (kernels/scaled_errors.py).
        *fields, z = standardised(y, fc.forecast, fc.error, scale, transforms.floor(), floor)
        fc = replace(fc, forecast=fields[0], error=fields[1], scale=fields[2])
        # A holiday: band, z and p-value on one wider scale, which reaches a weekday's range.
        fc, z = holiday_days.widen(fc, z, days, (y, learn, slots, periods))
        ready = aged & ~np.isnan(x) & (calendar.elapsed(slots, learn) >= self.needed_cycle(periods))
        needed = ready & (np.arange(steps)[None, :] >= starts[:, None])
        moved = (learnt := ready & learn) & (z != 0)
        # Only errors measured on a settled scale of their own say how far errors reach.
        informs = moved & fc.settled & (fc.count >= tails.SETTLED)
        rate = self.false_alarm_rate * POINT_SHARE
        early = moved & (fc.count >= young.MIN_ERRORS)
        plain = needed & (offset == 0).all(axis=1, keepdims=True)
        first = young_window.young_cells(needed & ~days, fc.count, plain, daily)  # model and window
        # Young cells are judged at half the rate too: one pass learns the tails for both (on
        # every needed cell, so rows judged together pool the same way at either rate).
        rates = (rate, rate / 2) if first.any() else (rate,)
        p, ks, nu = point_test(z, fc, informs, early, needed, rates, self.side, self.share_tails)
        k = ks[0]
        seasonal, changes = (y, fc.period, transforms, cycles), (self.min_absolute_change,
                                                                 self.min_relative_change)
        if first.any():
            k = np.where(first, ks[1], ks[0])
            recent, recent_whole = (season_window.recent_test(values, learn, first, r, self.side,
                                                             nu, seasonal)
                                    for r in (rate / 2, rate))  # fmt: skip
        sums = persistence.lasting_sums(z, learnt, self.side, self.false_alarm_rate)
        sums = holiday_days.off_sums(sums, days)  # a holiday never adds to a lasting change
        # Every test's p-value is NaN outside the needed cells (stale ones are needed), so the
        # verdicts are worked out on those cells only: a newest-point check has one per row.
        cells = np.nonzero(needed)
        lower, upper = value_band(fc, np.minimum(-sums.z_low[cells], k[cells]),
                                  np.minimum(sums.z_high[cells], k[cells]), transforms, needed,
                                  offset, self.side, changes)  # fmt: skip
        reach = limits.observed_reach_at(values, learn, cells, domain)
        if first.any():
            at_young = np.nonzero(first)
            whole = value_band(fc, np.minimum(-sums.z_low[at_young], ks[0][at_young]),
                               np.minimum(sums.z_high[at_young], ks[0][at_young]), transforms,
                               first, offset, self.side, changes)  # fmt: skip
            lower, upper, p = young_window.combine(lower, upper, p, first, recent,
                                                   (*whole, *recent_whole[:2]))  # fmt: skip
        lower, upper = limits.sane_band(lower, upper, reach, needed, domain, self.side, True)
        at_plain = plain[cells]  # the recurrence share's cells
        at = (cells[0][at_plain], cells[1][at_plain])
        floors = recurrence.window_cells(values, learn, at, self.false_alarm_rate, self.side)
        *window, recurs = season_window.weekly_window(learn, at, self.false_alarm_rate,
                                                      self.side, seasonal, floors)  # fmt: skip
        recurrence.widen_at((lower, upper), at, (window[0], window[1]), domain)
        # A stale value is neither a drop nor a rise; a cumulative size's repeat is a stall.
        judged = plain & np.bool_(self.side == "both")
        stale, p_stale, run = stuck.stale_points(values, learn, judged, self.false_alarm_rate,
                                                 domain)  # fmt: skip
        lasting = persistence.lasting_p(sums, cells, self.side)
        pc = np.minimum(np.minimum(p[cells] / POINT_SHARE, lasting / persistence.SHARE),
                        np.minimum(p_stale[cells] / stuck.SHARE, 1.0))  # fmt: skip
        recurring = np.zeros(len(pc))
        recurring[at_plain] = recurs
        pc = np.where(stale[cells], pc, np.maximum(pc, recurring))
        codes, p, confidence = verdicts(values, (lower, upper), needed, stale, pc,
                                        self.false_alarm_rate, domain)  # fmt: skip
        aux = pack_aux(needed, fc.period, transforms, offset, days, (stale, run))
        rows = np.flatnonzero(forecast_rows)
        return Judged(
            MatrixResult(lower, upper, codes, confidence, aux, p),
            transforms.take(rows).inverse(fc.forecast[rows]),
            transforms, fc, learnt,
        )  # fmt: skip

    def insufficient_reason(self, cell: Cell) -> str:
        return (
            f"{cell.position} earlier points; the forecast needs {self.min_history} and a few"
            " errors to calibrate on."
        )

    def describe(self, cell: Cell) -> str:
        if cell.code != ANOMALY:
            return super().describe(cell)
        return holiday_days.describe(
            cell, lambda c: describe_anomaly(self.name, self.false_alarm_rate, c)
        )
