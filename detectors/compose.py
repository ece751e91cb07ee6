"""Combinations of detectors: all must agree, any may flag, or k of the last n points.

None of the peers offer these in open source; they cut alert noise (``AllOf``,
``KOfLastN``) or widen coverage (``AnyOf``) without writing a detector.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from detectors._params import check_int
from detectors.base import Detector, Interval, as_detector, as_values, resolve_interval
from detectors.errors import InvalidParameterError
from detectors.evaluation import (
    ANOMALY,
    INSUFFICIENT,
    MISSING,
    OK,
    CodeArray,
    Evaluation,
    FloatArray,
    IntArray,
    rule_confidence,
)


def _check_detector(parameter: str, detector: object) -> None:
    if not callable(getattr(detector, "detect", None)):
        raise InvalidParameterError(
            parameter, "must have a detect(values, interval) method", detector
        )


NOT_EVALUATED = -1  # the code of a member that was not needed for a point


class _Combination(Detector):
    """Members evaluated in order, each only on the points the earlier ones left undecided;
    subclasses say which verdict decides a point and how verdicts and bands combine."""

    def __init__(self, *detectors: object) -> None:
        if not detectors:
            raise InvalidParameterError(
                "detectors", "must contain at least one detector", detectors
            )
        for i, detector in enumerate(detectors):
            _check_detector(f"detectors[{i}]", detector)
        self.detectors = detectors

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(map(repr, self.detectors))})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.detectors == self.detectors

    def __hash__(self) -> int:
        return hash((type(self), self.detectors))

    @property
    def interval_independent(self) -> bool:
        return all(as_detector(d).interval_independent for d in self.detectors)

    # How the members' bands combine; fmax/fmin skip a member without a band (NaN) rather than
    # spreading it, and so skip the members a point did not need. Confidence combines like the
    # lower bound: the surest member for AnyOf, the least sure for AllOf.
    lower_of: ClassVar[np.ufunc]
    upper_of: ClassVar[np.ufunc]
    decisive: ClassVar[int]  # the member verdict that settles a point: OK or ANOMALY

    def _combine(self, codes: CodeArray) -> CodeArray:
        raise NotImplementedError

    def evaluate(self, values: ArrayLike, interval: Interval | None = None) -> Evaluation:
        x = as_values(values)
        start, end = resolve_interval(interval, len(x))
        value = x[start:end]
        count, size = len(self.detectors), end - start
        codes = np.full((count, size), NOT_EVALUATED, dtype=np.int8)
        lower, upper, confidence = (np.full((count, size), np.nan) for _ in range(3))
        details = [[""] * size for _ in range(count)]
        pending = np.ones(size, dtype=bool)
        for j, detector in enumerate(self.detectors):
            at = np.flatnonzero(pending)
            if not len(at):
                break
            for member, points, local in _evaluations(as_detector(detector), x, start, end, at):
                codes[j, points] = member.codes[local]
                lower[j, points], upper[j, points] = member.lower[local], member.upper[local]
                confidence[j, points] = member.confidence[local]
                for k, m in zip(points.tolist(), local.tolist(), strict=True):
                    details[j][k] = member.detail[m]
            pending &= codes[j] != self.decisive
            pending &= ~np.isnan(value)  # missing whatever the others say: the first one tells
        combined = self._combine(codes)
        combined[np.isnan(value)] = MISSING
        low = self.lower_of.reduce(lower)
        high = self.upper_of.reduce(upper)
        sure = self.lower_of.reduce(confidence)
        sure[combined >= INSUFFICIENT] = np.nan
        name = self.name

        def describe(k: int) -> str:
            reasons = " | ".join(d[k] for d in details if d[k])
            return f"[{name}] {reasons}"

        return Evaluation.build(name, start, value, low, high, combined, sure, describe)


def _evaluations(
    detector: Detector, x: FloatArray, start: int, end: int, at: IntArray
) -> Iterator[tuple[Evaluation, IntArray, IntArray]]:
    """``detector``'s evaluations covering the points ``start + at``, as ``(evaluation, points,
    positions in the evaluation)`` with ``points`` a part of ``at``.

    A detector whose verdicts depend on the interval (a model fitted on the history before it)
    is evaluated on the whole interval, so that its verdicts are those it gives alone; it fits
    once per call, so a narrower span would save little anyway. Any other one is evaluated on
    the span of the points only, or point by point when it computes each point's band
    separately (:meth:`Detector.bounds`) and the points are sparse: its cost then follows the
    points, where a vectorised kernel costs the same for any interval.
    """
    if not detector.interval_independent:
        yield detector.evaluate(x, (start, end)), at, at
        return
    first, last = int(at[0]), int(at[-1]) + 1
    if _bounds_only(detector) and len(at) * SPARSE < last - first:
        zero = np.zeros(1, dtype=np.int64)
        for k in at.tolist():
            yield detector.evaluate(x, (start + k, start + k + 1)), np.array([k]), zero
        return
    yield detector.evaluate(x, (start + first, start + last)), at, at - first


SPARSE = 2  # point by point when the points fill less than 1/SPARSE of their span (measured)


def _bounds_only(detector: Detector) -> bool:
    kind = type(detector)
    return kind.bounds is not Detector.bounds and kind.evaluate is Detector.evaluate


class AnyOf(_Combination):
    """Flag a point when any member flags it; ``insufficient history`` when none flags it and
    some member could not judge it. The band is the intersection of the members' bands.

    Members are evaluated in order, each only on the points no earlier member flagged, so put
    cheap members first. A point flagged by a member is not shown to the later ones: its band,
    confidence and ``detail`` combine the members up to the first that flagged it. Points no
    member flags combine all members. The verdicts are those of evaluating every member.

    Examples
    --------
    >>> from detectors import AbsoluteChange, SimpleThreshold
    >>> detector = AnyOf(SimpleThreshold(upper_bound=100), AbsoluteChange(max_rate_increase=10))
    >>> [a.index for a in detector.detect([50, 55, 90, 101])]
    [2, 3]
    >>> detector.detect([50, 55, 90, 101])[1].detail  # the threshold decided it alone
    '[AnyOf] [SimpleThreshold] Value 101.0 is not in bounds [-inf, 100.0].'
    """

    lower_of = np.fmax  # fine only inside every band: their intersection
    upper_of = np.fmin
    decisive = ANOMALY

    def _combine(self, codes: CodeArray) -> CodeArray:
        return np.where(
            (codes == ANOMALY).any(axis=0),
            ANOMALY,
            np.where((codes == INSUFFICIENT).any(axis=0), INSUFFICIENT, OK),
        ).astype(np.int8)


class AllOf(_Combination):
    """Flag a point only when every member flags it; fine as soon as one member finds it fine.
    The band is the hull of the union of the members' bands.

    Members are evaluated in order, each only on the points no earlier member found fine, so
    put cheap members first: an expensive model (``SeasonalArima``) then runs only when the
    cheap rule already flags the newest point. A point found fine is not shown to the later
    members: its band and confidence combine the members up to the first that found it fine.
    Flagged and ``insufficient history`` points combine all members. The verdicts are those of
    evaluating every member.

    Examples
    --------
    >>> from detectors import AbsoluteChange, SimpleThreshold
    >>> detector = AllOf(SimpleThreshold(upper_bound=100), AbsoluteChange(max_rate_increase=10))
    >>> [a.index for a in detector.detect([50, 55, 90, 101, 105])]
    [3]
    >>> detector.evaluate([50, 55, 90, 101, 105]).upper.tolist()  # 101: both bands' hull
    [100.0, 100.0, 100.0, 100.0, 111.0]
    """

    lower_of = np.fmin  # fine inside any band: the hull of their union
    upper_of = np.fmax
    decisive = OK

    def _combine(self, codes: CodeArray) -> CodeArray:
        return np.where(
            (codes == ANOMALY).all(axis=0),
            ANOMALY,
            np.where((codes == OK).any(axis=0), OK, INSUFFICIENT),
        ).astype(np.int8)


@dataclass(frozen=True)
class KOfLastN(Detector):
    """Flag an anomaly of ``detector`` only when at least ``k`` of the last ``n`` points
    (itself included) are its anomalies: alerts on persistent trouble, not one-off blips.

    A suppressed anomaly is reported ``ok``; the band is the inner detector's, so every flagged
    point lies outside its band. The history before the interval counts too, so a newest-point
    check sees the same window as a full scan.

    Examples
    --------
    >>> from detectors import SimpleThreshold
    >>> detector = KOfLastN(SimpleThreshold(upper_bound=10), k=2, n=3)
    >>> [a.index for a in detector.detect([1, 20, 1, 1, 20, 20, 1, 20])]
    [5, 7]
    """

    detector: object
    k: int
    n: int

    def __post_init__(self) -> None:
        _check_detector("detector", self.detector)
        check_int("k", self.k, 1)
        check_int("n", self.n, self.k)

    @property
    def interval_independent(self) -> bool:
        return as_detector(self.detector).interval_independent

    def evaluate(self, values: ArrayLike, interval: Interval | None = None) -> Evaluation:
        x = as_values(values)
        start, end = resolve_interval(interval, len(x))
        first = max(0, start - self.n + 1)
        inner = as_detector(self.detector).evaluate(x, (first, end))
        flagged = np.concatenate([[0], np.cumsum(inner.codes == ANOMALY)])
        local = np.arange(start - first, end - first)
        counts = flagged[local + 1] - flagged[np.maximum(local + 1 - self.n, 0)]
        own = inner.codes[local]
        codes = np.where((own == ANOMALY) & (counts < self.k), OK, own).astype(np.int8)
        codes[np.isnan(x[start:end])] = MISSING
        name = self.name

        def describe(k: int) -> str:
            if codes[k] != ANOMALY:
                return inner.detail[local[k]]
            return (
                f"[{name}] {counts[k]} of the last {self.n} points are anomalies (needs"
                f" {self.k}): {inner.detail[local[k]]}"
            )

        return Evaluation.build(
            name,
            start,
            x[start:end],
            inner.lower[local],
            inner.upper[local],
            codes,
            rule_confidence(codes),
            describe,
        )
