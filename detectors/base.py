"""The detector contract: a tiny base class and the protocol every plug-in satisfies.

Deequ's contract, index-based: ``detect(values, interval=(start, end))`` returns the anomalies
among positions ``start <= i < end``; earlier positions are history. ``evaluate`` returns the
verdict and the expected band of every point of the interval.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike

from detectors.anomaly import Anomaly
from detectors.evaluation import (
    ANOMALY,
    INSUFFICIENT,
    MISSING,
    OK,
    Evaluation,
    band_detail,
    judge,
    missing_detail,
    rule_confidence,
)

if TYPE_CHECKING:
    from detectors.evaluation import FloatArray

Interval = tuple[int, int | None]


@runtime_checkable
class SupportsDetect(Protocol):
    """Anything with Deequ's ``detect``: the minimum a user detector needs to work everywhere."""

    def detect(self, values: ArrayLike, interval: Interval | None = None) -> list[Anomaly]: ...


@runtime_checkable
class TimeAware(Protocol):
    """A detector that also uses the timestamps of the points (their spacing and calendar
    phase). ``at_times(times)`` returns the detector for points at ``times`` (one per value,
    or a groups x time matrix for :func:`~detectors.detect_frame`)."""

    def at_times(self, times: object) -> Detector: ...


def for_times(detector: object, times: object) -> object:
    """``detector`` bound to the points' ``times`` if it uses them, else itself.

    >>> for_times(SupportsDetect, [1, 2]) is SupportsDetect
    True
    """
    if isinstance(detector, TimeAware) and not isinstance(detector, type):
        return detector.at_times(times)
    return detector


def as_values(values: ArrayLike | Sequence[float | None]) -> FloatArray:
    """``values`` as a 1-d float64 array (not copied if it already is one); ``None`` becomes
    NaN, a missing value."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"values must be one-dimensional, got shape {array.shape}")
    return array


def resolve_interval(interval: Interval | None, length: int) -> tuple[int, int]:
    """``[start, end)`` clipped to the series; ``None`` (or ``end=None``) means to the end."""
    if interval is None:
        return 0, length
    start, end = interval
    if start < 0 or (end is not None and end < 0):
        raise ValueError(f"interval must not be negative, got {interval!r}")
    if end is not None and start > end:
        raise ValueError(f"interval start must be <= end, got {interval!r}")
    end = length if end is None else min(end, length)
    return min(start, end), end


class Detector:
    """Base class of every built-in detector; subclass it to write your own.

    Override :meth:`bounds` (the expected band of the next point given its finite history)
    for a simple detector, or :meth:`evaluate` for an efficient one. Objects that only have
    Deequ's ``detect`` work everywhere too (see :func:`as_detector`).

    Examples
    --------
    >>> import numpy as np
    >>> class WithinTenPercent(Detector):
    ...     def bounds(self, history):
    ...         if len(history) == 0:
    ...             return None
    ...         return 0.9 * history[-1], 1.1 * history[-1]
    >>> [a.index for a in WithinTenPercent().detect([100, 105, 130, 131])]
    [2]
    >>> str(WithinTenPercent().evaluate([100]).status[0])
    'insufficient history'
    """

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        overridden = [
            getattr(cls, m) is not getattr(Detector, m) for m in ("bounds", "evaluate", "detect")
        ]
        if not any(overridden):
            raise TypeError(f"{cls.__name__} must override bounds, evaluate or detect")

    @property
    def name(self) -> str:
        """The name that starts every ``detail``."""
        return type(self).__name__

    @property
    def interval_independent(self) -> bool:
        """Whether a point's evaluation depends on the values alone, not on the interval asked
        for: then evaluating any sub-interval gives its points exactly the same result.

        Compositions use it to evaluate later members only on the points still undecided.
        ``False`` unless a detector declares it (the safe answer for model fits on the history
        before the interval); ``True`` for detectors that only implement :meth:`bounds`.
        """
        return type(self).bounds is not Detector.bounds and type(self).evaluate is Detector.evaluate

    def bounds(self, history: FloatArray) -> tuple[float, float] | None:
        """Expected ``(lower, upper)`` for the point after ``history`` (its finite values);
        ``None`` when the history is too short."""
        raise NotImplementedError

    def evaluate(self, values: ArrayLike, interval: Interval | None = None) -> Evaluation:
        """Verdict and band for every point of the interval."""
        x = as_values(values)
        start, end = resolve_interval(interval, len(x))
        if type(self).bounds is Detector.bounds:
            return evaluate_via_detect(self.name, self.detect, x, start, end)
        return self._evaluate_bounds(x, start, end)

    def detect(self, values: ArrayLike, interval: Interval | None = None) -> list[Anomaly]:
        """Anomalies among positions ``start <= i < end`` (Deequ's contract)."""
        return self.evaluate(values, interval).anomalies()

    def _evaluate_bounds(self, x: FloatArray, start: int, end: int) -> Evaluation:
        size = end - start
        lower = np.full(size, np.nan)
        upper = np.full(size, np.nan)
        ready = np.zeros(size, dtype=bool)
        finite = np.isfinite(x)
        for k, i in enumerate(range(start, end)):
            band = self.bounds(x[:i][finite[:i]])
            if band is not None:
                lower[k], upper[k] = band
                ready[k] = True
        value = x[start:end]
        codes = judge(value, lower, upper, ready)
        name = self.name

        def describe(k: int) -> str:
            if codes[k] == MISSING:
                return missing_detail(name)
            if codes[k] == INSUFFICIENT:
                usable = int(finite[: start + k].sum())
                return f"[{name}] Insufficient history: {usable} usable points before {start + k}."
            return band_detail(name, value[k], lower[k], upper[k])

        return Evaluation.build(
            name, start, value, lower, upper, codes, rule_confidence(codes), describe
        )


def evaluate_via_detect(
    name: str,
    detect: Callable[[FloatArray, Interval], list[Anomaly]],
    x: FloatArray,
    start: int,
    end: int,
) -> Evaluation:
    """An ``Evaluation`` for a detector that only reports anomalies: fine points get no band."""
    size = end - start
    value = x[start:end]
    lower = np.full(size, np.nan)
    upper = np.full(size, np.nan)
    confidence = np.where(np.isnan(value), np.nan, 0.0)
    codes = np.where(np.isnan(value), MISSING, OK).astype(np.int8)
    details = ["" if c == OK else missing_detail(name) for c in codes]
    for anomaly in detect(x, (start, end)):
        # Whatever a plug-in says, it reports nothing outside the interval or on a NaN value.
        if start <= anomaly.index < end and codes[anomaly.index - start] != MISSING:
            k = anomaly.index - start
            codes[k] = ANOMALY
            lower[k], upper[k] = anomaly.lower, anomaly.upper
            confidence[k] = anomaly.confidence
            details[k] = anomaly.detail
    index = np.arange(start, end, dtype=np.int64)
    return Evaluation(name, index, value, lower, upper, codes, confidence, tuple(details))


class _DetectOnly(Detector):
    """Wraps an object that has only Deequ's ``detect`` so it works everywhere."""

    def __init__(self, wrapped: SupportsDetect) -> None:
        self.wrapped = wrapped

    @property
    def name(self) -> str:
        return type(self.wrapped).__name__

    def evaluate(self, values: ArrayLike, interval: Interval | None = None) -> Evaluation:
        x = as_values(values)
        start, end = resolve_interval(interval, len(x))
        return evaluate_via_detect(self.name, self.wrapped.detect, x, start, end)

    def __repr__(self) -> str:
        return repr(self.wrapped)


def as_detector(detector: object) -> Detector:
    """``detector`` itself if it is a :class:`Detector`, else a wrapper around its ``detect``.

    Examples
    --------
    >>> class Deequish:
    ...     def detect(self, values, interval=None):
    ...         return []
    >>> as_detector(Deequish()).name
    'Deequish'
    """
    if isinstance(detector, Detector):
        return detector
    if callable(getattr(detector, "detect", None)):
        return _DetectOnly(detector)  # type: ignore[arg-type]
    raise TypeError(
        f"a detector needs a detect(values, interval) method; got {type(detector).__name__}"
    )
