"""Combinations of detectors: all must agree, any may flag, or k of the last n points.

None of the peers offer these in open source; they cut alert noise (``AllOf``,
``KOfLastN``) or widen coverage (``AnyOf``) without writing a detector.
"""

from __future__ import annotations

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
    rule_confidence,
)


def _check_detector(parameter: str, detector: object) -> None:
    if not callable(getattr(detector, "detect", None)):
        raise InvalidParameterError(
            parameter, "must have a detect(values, interval) method", detector
        )


class _Combination(Detector):
    """Members evaluated on the same points; subclasses say how verdicts and bands combine."""

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

    # How the members' bands combine; fmax/fmin skip a member without a band (NaN) rather than
    # spreading it. Confidence combines like the lower bound: the surest member for AnyOf, the
    # least sure for AllOf.
    lower_of: ClassVar[np.ufunc]
    upper_of: ClassVar[np.ufunc]

    def _combine(self, codes: CodeArray) -> CodeArray:
        raise NotImplementedError

    def evaluate(self, values: ArrayLike, interval: Interval | None = None) -> Evaluation:
        x = as_values(values)
        start, end = resolve_interval(interval, len(x))
        members = [as_detector(d).evaluate(x, (start, end)) for d in self.detectors]
        codes = self._combine(np.stack([m.codes for m in members]))
        codes[np.isnan(x[start:end])] = MISSING
        lower = self.lower_of.reduce(np.stack([m.lower for m in members]))
        upper = self.upper_of.reduce(np.stack([m.upper for m in members]))
        confidence = self.lower_of.reduce(np.stack([m.confidence for m in members]))
        confidence[codes >= INSUFFICIENT] = np.nan
        name = self.name

        def describe(k: int) -> str:
            reasons = " | ".join(m.detail[k] for m in members if m.detail[k])
            return f"[{name}] {reasons}"

        return Evaluation.build(
            name, start, x[start:end], lower, upper, codes, confidence, describe
        )


class AnyOf(_Combination):
    """Flag a point when any member flags it; ``insufficient history`` when none flags it and
    some member could not judge it. The band is the intersection of the members' bands.

    Examples
    --------
    >>> from detectors import AbsoluteChange, SimpleThreshold
    >>> detector = AnyOf(SimpleThreshold(upper_bound=100), AbsoluteChange(max_rate_increase=10))
    >>> [a.index for a in detector.detect([50, 55, 90, 101])]
    [2, 3]
    """

    lower_of = np.fmax  # fine only inside every band: their intersection
    upper_of = np.fmin

    def _combine(self, codes: CodeArray) -> CodeArray:
        return np.where(
            (codes == ANOMALY).any(axis=0),
            ANOMALY,
            np.where((codes == INSUFFICIENT).any(axis=0), INSUFFICIENT, OK),
        ).astype(np.int8)


class AllOf(_Combination):
    """Flag a point only when every member flags it; fine as soon as one member finds it fine.
    The band is the hull of the union of the members' bands.

    Examples
    --------
    >>> from detectors import AbsoluteChange, SimpleThreshold
    >>> detector = AllOf(SimpleThreshold(upper_bound=100), AbsoluteChange(max_rate_increase=10))
    >>> [a.index for a in detector.detect([50, 55, 90, 101, 105])]
    [3]
    """

    lower_of = np.fmin  # fine inside any band: the hull of their union
    upper_of = np.fmax

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
