"""Validation of constructor parameters: fail early, name the parameter, show the value."""

from __future__ import annotations

import math
from collections.abc import Sequence

from detectors.errors import InvalidParameterError


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_number(name: str, value: object, *, optional: bool = True) -> float | None:
    """A real number (not NaN); ``None`` allowed when ``optional``."""
    if value is None and optional:
        return None
    if not _is_number(value) or math.isnan(value):  # type: ignore[arg-type]
        allowed = "a number or None" if optional else "a number"
        raise InvalidParameterError(name, f"must be {allowed}", value)
    return float(value)  # type: ignore[arg-type]


def check_factor(name: str, value: object) -> float | None:
    """A deviation factor or rate: ``None`` (that side unbounded) or a number >= 0."""
    number = check_number(name, value)
    if number is not None and number < 0:
        raise InvalidParameterError(name, "must be >= 0 or None (unbounded)", value)
    return number


def check_fraction(name: str, value: object) -> float:
    """A number in [0, 1]."""
    number = check_number(name, value, optional=False)
    assert number is not None
    if not 0.0 <= number <= 1.0:
        raise InvalidParameterError(name, "must be in [0, 1]", value)
    return number


def check_open_fraction(name: str, value: object) -> float:
    """A number in (0, 1), e.g. a significance level."""
    number = check_fraction(name, value)
    if number in (0.0, 1.0):
        raise InvalidParameterError(name, "must be strictly between 0 and 1", value)
    return number


def check_int(name: str, value: object, minimum: int, *, optional: bool = False) -> int | None:
    """An integer >= ``minimum``; ``None`` allowed when ``optional``."""
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        suffix = " or None" if optional else ""
        raise InvalidParameterError(name, f"must be an integer >= {minimum}{suffix}", value)
    return value


def check_bool(name: str, value: object) -> bool:
    """Exactly ``True`` or ``False`` (a truthy string in a config is a mistake, not a yes)."""
    if not isinstance(value, bool):
        raise InvalidParameterError(name, "must be a boolean (true or false)", value)
    return value


def check_int_tuple(name: str, value: object, lengths: Sequence[int]) -> tuple[int, ...]:
    """A tuple of non-negative integers of one of the allowed lengths."""
    if (
        not isinstance(value, tuple | list)
        or len(value) not in lengths
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        sizes = " or ".join(str(n) for n in lengths)
        raise InvalidParameterError(name, f"must be a tuple of {sizes} integers >= 0", value)
    return tuple(value)


def check_at_least_one(names: tuple[str, str], values: tuple[object, object]) -> None:
    """Refuse a detector with both sides unbounded: it could never flag anything."""
    if values[0] is None and values[1] is None:
        raise InvalidParameterError(
            f"{names[0]}/{names[1]}", "must not both be None (nothing could be flagged)", None
        )


def check_ordered(names: tuple[str, str], low: float | None, high: float | None) -> None:
    """The lower limit must not exceed the upper one."""
    if low is not None and high is not None and low > high:
        raise InvalidParameterError(names[0], f"must be <= {names[1]} ({high!r})", low)
