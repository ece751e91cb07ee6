"""Alert-fatigue controls for any detector: fewer, more meaningful alerts from the same verdicts.

``AlertFatigue`` judges every point as the newest one with the wrapped detector (see
:mod:`detectors.forward`), then decides whether that anomaly is worth an alert, in order:

1. ``k`` of the last ``n``: the wrapped detector becomes ``KOfLastN(detector, k, n)``;
2. minimum change: the value must differ from the expected one (the centre of the band, or
   the previous value when a side of the band is open) by at least ``min_absolute_change``
   and by at least ``min_relative_change`` times the expected value's magnitude;
3. ``first_of_run``: only the first of consecutive anomalies alerts;
4. ``cooldown``: after an alert, the next ``cooldown`` points do not alert.

Points are the series' points (checks), not time. A suppressed anomaly is reported ``ok`` with
its band and a ``detail`` saying why, so reports can still show it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from detectors._params import check_bool, check_factor, check_int
from detectors.base import Detector, Interval, as_values, resolve_interval
from detectors.compose import KOfLastN, _check_detector
from detectors.errors import InvalidParameterError
from detectors.evaluation import ANOMALY, OK, Evaluation, FloatArray, fmt
from detectors.forward import Mask, concatenate, walk_forward


@dataclass(frozen=True)
class AlertFatigue(Detector):
    """Alert on the anomalies of ``detector`` that pass the fatigue controls (module doc).

    The verdict on a point depends on the verdicts its predecessors got when they were newest,
    so its history is judged too: cheap for vectorised detectors, one model fit per point for
    Holt-Winters and SARIMA. Only as much history is judged as the controls need (one point for
    ``first_of_run``; for ``cooldown``, back to a quiet stretch of ``cooldown`` points).

    Examples
    --------
    >>> from detectors import SimpleThreshold
    >>> over = SimpleThreshold(upper_bound=10)
    >>> series = [1, 20, 20, 20, 1, 20, 1, 1, 20]
    >>> [a.index for a in AlertFatigue(over, first_of_run=True).detect(series)]
    [1, 5, 8]
    >>> [a.index for a in AlertFatigue(over, cooldown=3).detect(series)]
    [1, 5]
    >>> [a.index for a in AlertFatigue(over, cooldown=1).detect(series)]
    [1, 3, 5, 8]
    >>> [a.index for a in AlertFatigue(over, min_absolute_change=15).detect([1, 11, 30])]
    [2]
    """

    detector: Any
    first_of_run: bool = False
    min_absolute_change: float | None = None
    min_relative_change: float | None = None
    k: int = 1
    n: int = 1
    cooldown: int = 0

    def __post_init__(self) -> None:
        _check_detector("detector", self.detector)
        check_bool("first_of_run", self.first_of_run)
        check_factor("min_absolute_change", self.min_absolute_change)
        check_factor("min_relative_change", self.min_relative_change)
        check_int("k", self.k, 1)
        check_int("n", self.n, self.k)
        check_int("cooldown", self.cooldown, 0)
        if not (
            self.first_of_run
            or self.min_absolute_change is not None
            or self.min_relative_change is not None
            or self.n > 1
            or self.cooldown
        ):
            raise InvalidParameterError(
                "first_of_run/min_absolute_change/min_relative_change/k/n/cooldown",
                "must set at least one control (as given the detector is unchanged)",
                None,
            )

    @property
    def interval_independent(self) -> bool:
        return True  # every point is judged as the newest one, whatever the interval

    @property
    def inner(self) -> object:
        """The detector whose walk-forward verdicts the controls filter."""
        return self.detector if self.n == 1 else KOfLastN(self.detector, self.k, self.n)

    def evaluate(self, values: ArrayLike, interval: Interval | None = None) -> Evaluation:
        """Each point of the interval judged as the newest, its predecessors as history."""
        x = as_values(values)
        start, end = resolve_interval(interval, len(x))
        return self.walk_forward(x, start, end, None)

    def walk_forward(
        self, values: FloatArray, start: int, end: int, baseline: Mask | None
    ) -> Evaluation:
        """As :func:`~detectors.forward.walk_forward`, with the controls applied."""
        tail = walk_forward(self.inner, values, start, end, baseline=baseline)
        past: list[Evaluation] = []
        first, span = start, max(int(self.first_of_run), self.cooldown)
        while span and first > 0:  # judge more history until the controls' state is known
            earlier = max(0, start - span)
            past.insert(0, walk_forward(self.inner, values, earlier, first, baseline=baseline))
            first, span = earlier, 2 * span
            if self._settled(values, concatenate("", past, first), start, baseline):
                break
        stream = concatenate(self.name, [*past, tail], first)
        return self.quieten(values, stream, baseline, start)

    def _raw(self, values: FloatArray, stream: Evaluation, baseline: Mask | None) -> NDArray[Any]:
        """Per point: whether it is an anomaly that passes the minimum change, its change, and
        the expected value the change is measured from."""
        expected = np.where(
            np.isfinite(stream.lower) & np.isfinite(stream.upper),
            (stream.lower + stream.upper) / 2,
            _previous(values, stream.index, baseline),
        )
        change = np.abs(stream.value - expected)
        passed = stream.codes == ANOMALY
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.min_absolute_change is not None:
                passed &= ~(change < self.min_absolute_change)
            if self.min_relative_change is not None:
                passed &= ~(change < self.min_relative_change * np.abs(expected))
        return np.stack([passed, change, expected])

    def _settled(
        self, values: FloatArray, past: Evaluation, start: int, baseline: Mask | None
    ) -> bool:
        """Whether the state at ``start`` no longer depends on points before ``past``."""
        usable = np.ones(len(past), bool) if baseline is None else baseline[past.index]
        raw = self._raw(values, past, baseline)[0].astype(bool)[usable]
        if self.first_of_run and not len(raw):
            return False  # the predecessor of ``start`` is not known yet
        if self.cooldown == 0:
            return True
        candidates = raw[1:] & ~raw[:-1] if self.first_of_run else raw
        quiet = 0
        for candidate in candidates.tolist():
            quiet = 0 if candidate else quiet + 1
            if quiet >= self.cooldown:
                return True  # no alert in that stretch, whatever came before it
        return False

    def quieten(
        self, values: FloatArray, stream: Evaluation, baseline: Mask | None, start: int = 0
    ) -> Evaluation:
        """The controls applied to ``stream``, the walk-forward verdicts of :attr:`inner` on
        ``values`` from its first point on (position 0 for exact results), with no alert before
        it; returns the points from ``start`` on. A backtest calls this to share one inner
        stream between several controls."""
        passed, change, expected = self._raw(values, stream, baseline)
        codes = stream.codes.copy()
        details = list(stream.detail)
        previous, since = False, math.inf
        for k, i in enumerate(stream.index.tolist()):
            raw = bool(passed[k])
            why = ""
            if codes[k] == ANOMALY and not raw:
                why = (
                    f"change {fmt(change[k])} from the expected {fmt(expected[k])} is below"
                    f" the minimum ({self.min_absolute_change} absolute,"
                    f" {self.min_relative_change} relative)"
                )
            elif raw and self.first_of_run and previous:
                why = "not the first anomaly of a run"
            elif raw and since <= self.cooldown:
                why = f"cooldown: the last alert was {since:.0f} point(s) before"
            fire = raw and not why
            if why:
                codes[k] = OK
                details[k] = f"[{self.name}] Not alerted, {why}: {stream.detail[k]}"
            elif fire:
                details[k] = f"[{self.name}] {stream.detail[k]}"
            if baseline is None or baseline[i]:
                previous = raw
                since = 1 if fire else since + 1
        keep = stream.index >= start
        return Evaluation(
            self.name,
            stream.index[keep],
            stream.value[keep],
            stream.lower[keep],
            stream.upper[keep],
            codes[keep],
            stream.confidence[keep],
            tuple(d for d, kept in zip(details, keep.tolist(), strict=True) if kept),
            None if stream.p_value is None else stream.p_value[keep],
        )


def _previous(values: FloatArray, index: NDArray[np.int64], baseline: Mask | None) -> FloatArray:
    """The last value before each position that may serve as history (NaN when none)."""
    usable = np.ones(len(values), bool) if baseline is None else baseline
    last = np.where(usable, np.arange(len(values)), -1)
    last = np.maximum.accumulate(np.concatenate([[-1], last]))[index]  # last usable before i
    padded = np.concatenate([values, [np.nan]])
    return padded[last]  # -1 picks the NaN pad
