"""``Adaptive``'s parameters checked, and a config's lists made hashable, when it is built."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from detectors._params import check_factor, check_int, check_open_fraction
from detectors.adaptive import limits
from detectors.adaptive.seasons import fixed_periods
from detectors.errors import InvalidParameterError
from detectors.holidays import Holidays

SIDES = ("both", "lower", "upper")


def validate(
    parameters: Mapping[str, Any],
) -> tuple[tuple[float, float] | None, Holidays | None]:
    """The checked, hashable ``domain`` and ``holidays`` of ``Adaptive``'s ``parameters``;
    `InvalidParameterError` naming the first bad parameter, its value and what is allowed.

    >>> from detectors import Adaptive
    >>> Adaptive(side="up")
    Traceback (most recent call last):
    ...
    detectors.errors.InvalidParameterError: side must be one of both, lower, upper, got 'up'
    """
    check_open_fraction("false_alarm_rate", parameters["false_alarm_rate"])
    side, share_tails = parameters["side"], parameters["share_tails"]
    spacing = parameters["spacing"]
    if side not in SIDES:
        raise InvalidParameterError("side", f"must be one of {', '.join(SIDES)}", side)
    for name in ("min_relative_change", "min_absolute_change"):
        if check_factor(name, parameters[name]) is None:
            raise InvalidParameterError(name, "must be a number >= 0", None)
    check_int("min_history", parameters["min_history"], 2)
    if not isinstance(share_tails, bool):
        raise InvalidParameterError("share_tails", "must be True or False", share_tails)
    if spacing is not None and not (isinstance(spacing, int | float) and spacing > 0):
        raise InvalidParameterError("spacing", "must be a number of seconds > 0", spacing)
    fixed_periods(parameters["season"])  # validates ``season``
    domain = parameters["domain"]  # a config's list becomes a hashable pair of floats
    checked = None if domain is None else limits.check_domain(domain)
    return checked, Holidays.of(parameters["holidays"])
