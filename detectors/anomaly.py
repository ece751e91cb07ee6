"""What a detector says about one point: ``Anomaly`` (Deequ's result) and ``Status``."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Status(StrEnum):
    """The verdict on one evaluated point.

    ``INSUFFICIENT_HISTORY`` is a result, not an error: a check reports it explicitly.
    ``MISSING`` marks a NaN value, which no detector flags.

    Examples
    --------
    >>> Status.INSUFFICIENT_HISTORY == "insufficient history"
    True
    """

    OK = "ok"
    ANOMALY = "anomaly"
    INSUFFICIENT_HISTORY = "insufficient history"
    MISSING = "missing"


@dataclass(frozen=True)
class Anomaly:
    """One flagged point of a series.

    Parameters
    ----------
    index
        Position of the point in the series passed to ``detect``.
    value
        The original value of the point (for change detectors too, as Deequ reports it).
    confidence
        How sure the detector is, in [0, 1]; 1.0 for rule-based detectors, as in Deequ.
    lower, upper
        The expected band in value units; the value lies outside it. ``-inf``/``inf`` for an
        unbounded side.
    detail
        Human-readable reason, starting with ``[DetectorName]``.

    Examples
    --------
    >>> a = Anomaly(3, 12.0, 1.0, 0.0, 10.0, "[SimpleThreshold] Value 12.0 is above 10.0.")
    >>> a.index, a.value
    (3, 12.0)
    """

    index: int
    value: float
    confidence: float
    lower: float
    upper: float
    detail: str
