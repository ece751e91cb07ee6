"""Assertions: callables on a metric value that also describe themselves for the report."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

AssertionFn = Callable[[Any], bool]


@dataclass(frozen=True)
class Assertion:
    """A named predicate on a metric value; `text` completes "<metric> ..." in reports.

    Examples
    --------
    >>> at_least(0.9)(0.95), at_least(0.9).text
    (True, '>= 0.9')
    >>> describe(lambda v: v < 3)
    'satisfies <lambda>'
    """

    test: AssertionFn
    text: str

    def __call__(self, value: Any) -> bool:
        return bool(self.test(value))


def equal_to(expected: float, tolerance: float = 0.0) -> Assertion:
    """value == expected (within `tolerance`)."""
    return Assertion(lambda v: abs(v - expected) <= tolerance, f"== {expected!r}")


def at_least(bound: float) -> Assertion:
    """value >= bound."""
    return Assertion(lambda v: v >= bound, f">= {bound!r}")


def at_most(bound: float) -> Assertion:
    """value <= bound."""
    return Assertion(lambda v: v <= bound, f"<= {bound!r}")


def between(lower: float, upper: float) -> Assertion:
    """lower <= value <= upper."""
    return Assertion(lambda v: lower <= v <= upper, f"in [{lower!r}, {upper!r}]")


def is_one(value: float) -> bool:
    """The default assertion of the is_* constraints: the ratio is exactly 1 (NaN fails)."""
    return not math.isnan(value) and value == 1.0


IS_ONE = Assertion(is_one, "== 1.0")


def describe(assertion: AssertionFn) -> str:
    """The text of an assertion: its own for `Assertion`, else the function's name."""
    if isinstance(assertion, Assertion):
        return assertion.text
    return f"satisfies {getattr(assertion, '__name__', type(assertion).__name__)}"
