"""``Adaptive``'s parameters checked, and a config's lists made hashable, when it is built."""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors._params import check_factor, check_int, check_open_fraction
from detectors.adaptive import limits
from detectors.adaptive.seasons import fixed_periods
from detectors.errors import InvalidParameterError
from detectors.holidays import Holidays

if TYPE_CHECKING:
    from detectors.adaptive.detector import Adaptive

SIDES = ("both", "lower", "upper")


def validate(detector: Adaptive) -> None:
    """Raise `InvalidParameterError` naming the first bad parameter, its value and what is
    allowed; set ``domain`` and ``holidays`` to their checked, hashable forms.

    >>> from detectors import Adaptive
    >>> Adaptive(side="up")
    Traceback (most recent call last):
    ...
    detectors.errors.InvalidParameterError: side must be one of both, lower, upper, got 'up'
    """
    check_open_fraction("false_alarm_rate", detector.false_alarm_rate)
    if detector.side not in SIDES:
        raise InvalidParameterError("side", f"must be one of {', '.join(SIDES)}", detector.side)
    for name in ("min_relative_change", "min_absolute_change"):
        if check_factor(name, getattr(detector, name)) is None:
            raise InvalidParameterError(name, "must be a number >= 0", None)
    check_int("min_history", detector.min_history, 2)
    if not isinstance(detector.share_tails, bool):
        raise InvalidParameterError("share_tails", "must be True or False", detector.share_tails)
    spacing = detector.spacing
    if spacing is not None and not (isinstance(spacing, int | float) and spacing > 0):
        raise InvalidParameterError("spacing", "must be a number of seconds > 0", spacing)
    fixed_periods(detector.season)  # validates ``season``
    if detector.domain is not None:  # a config's list becomes a hashable pair of floats
        object.__setattr__(detector, "domain", limits.check_domain(detector.domain))
    object.__setattr__(detector, "holidays", Holidays.of(detector.holidays))
