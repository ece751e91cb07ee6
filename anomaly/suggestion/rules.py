"""The suggestion rules of Schelter et al., PVLDB 2018 (§3.3): heuristics on one column's profile.

Each rule looks at a `ColumnProfile` and returns a `Suggestion` or None. Thresholds are fields, so
a team can tune a rule without writing a new one.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers import Completeness, Compliance, Uniqueness
from anomaly.analyzers.base import INTEGRAL_TYPES, Analyzer
from anomaly.analyzers.data_type import BOOLEAN as BOOLEAN_REGEX
from anomaly.analyzers.data_type import FRACTIONAL as FRACTIONAL_REGEX
from anomaly.analyzers.data_type import INTEGRAL as INTEGRAL_REGEX
from anomaly.checks.consistency_constraints import non_negative
from anomaly.suggestion.profile import BOOLEAN, FRACTIONAL, INTEGRAL, STRING, ColumnProfile
from anomaly.suggestion.sql import as_double, quoted, sql_text
from anomaly.suggestion.suggestion import Suggestion, call

if TYPE_CHECKING:
    from anomaly.suggestion.name_model import ColumnNameModel

HLL_RSE = 1.04 / math.sqrt(2**12)
"""Relative standard error of the profile's HyperLogLog sketch (lg_k = 12)."""
TYPE_PATTERNS = {
    INTEGRAL: [INTEGRAL_REGEX],
    FRACTIONAL: [INTEGRAL_REGEX, FRACTIONAL_REGEX],
    BOOLEAN: [BOOLEAN_REGEX],
}


class Rule(ABC):
    """A heuristic that may suggest one constraint for a column."""

    name: ClassVar[str]

    @abstractmethod
    def suggest(self, profile: ColumnProfile) -> Suggestion | None:
        """The suggestion for `profile`, or None when the rule does not apply."""

    def suggestion(
        self,
        column: str,
        constraint: str,
        rationale: str,
        analyzer: Analyzer[Any],
        *arguments: Any,
        assertion: str | None = None,
        **extra: Any,
    ) -> Suggestion:
        """This rule's suggestion of the `Check` method `constraint` on `column` (called with
        `arguments` after the column, then `assertion`); `extra`: bound, score, accepted."""
        text = call(constraint, column, *arguments, assertion=assertion)
        return Suggestion(
            column=column,
            rule=self.name,
            constraint=constraint,
            call=text,
            rationale=rationale,
            analyzer=analyzer,
            **extra,
        )


@dataclass(frozen=True)
class CompleteIfComplete(Rule):
    """A column without missing values in the sample: ``is_complete``.

    >>> p = ColumnProfile("id", "string", "Integral", rows=10, non_null=10, approx_distinct=10)
    >>> CompleteIfComplete().suggest(p).call
    'is_complete("id")'
    """

    name: ClassVar[str] = "CompleteIfComplete"

    def suggest(self, profile: ColumnProfile) -> Suggestion | None:
        if profile.rows == 0 or profile.non_null < profile.rows:
            return None
        c = profile.column
        return self.suggestion(
            c, "is_complete", f"all {profile.rows} rows have a value", Completeness(c)
        )


@dataclass(frozen=True)
class RetainCompleteness(Rule):
    """An incomplete column: ``has_completeness`` at least the lower end of a confidence interval.

    Presence is a Bernoulli variable; the bound is the lower end of its Wilson score interval at
    confidence `z`, rounded down to two decimals. No suggestion when that bound is 0.

    >>> p = ColumnProfile("email", "string", "String", rows=1000, non_null=281, approx_distinct=9)
    >>> RetainCompleteness().suggest(p).call
    'has_completeness("email", lambda c: c >= 0.25)'
    """

    z: float = 1.96
    name: ClassVar[str] = "RetainCompleteness"

    def suggest(self, profile: ColumnProfile) -> Suggestion | None:
        n, p = profile.rows, profile.completeness
        if n == 0 or not 0 < p < 1:
            return None
        low, high = wilson_interval(p, n, self.z)
        bound = math.floor(low * 100) / 100
        if bound <= 0:
            return None
        c = profile.column
        return self.suggestion(
            c,
            "has_completeness",
            f"completeness {p:.4f} over {n} rows; Wilson interval "
            f"[{low:.4f}, {high:.4f}] (z={self.z}); lower end rounded down",
            Completeness(c),
            assertion=f"lambda c: c >= {bound}",
            bound=bound,
        )


def wilson_interval(p: float, n: int, z: float) -> tuple[float, float]:
    """The Wilson score interval of a proportion `p` observed in `n` trials.

    >>> [round(v, 4) for v in wilson_interval(0.5, 100, 1.96)]
    [0.4038, 0.5962]
    """
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class ConsistentType(Rule):
    """A text column whose values all parse as one type: ``has_consistent_type``.

    Typed columns are left alone: their schema already enforces the type.

    >>> p = ColumnProfile("ups", "string", "Integral", rows=5, non_null=5, approx_distinct=3)
    >>> ConsistentType().suggest(p).call
    'has_consistent_type("ups")'
    """

    name: ClassVar[str] = "ConsistentType"

    def suggest(self, profile: ColumnProfile) -> Suggestion | None:
        if not profile.inferred:
            return None
        c, kind = profile.column, profile.data_type
        matches = " OR ".join(f"{quoted(c)} RLIKE {sql_text(r)}" for r in TYPE_PATTERNS[kind])
        return self.suggestion(
            c,
            "has_consistent_type",
            f"all {profile.non_null} values of this text column parse as {kind}",
            Compliance(f"{c} is {kind}", f"{quoted(c)} IS NULL OR {matches}"),
        )


@dataclass(frozen=True)
class UniqueIfApproximatelyUnique(Rule):
    """A complete column whose HLL distinct count is within `errors` standard errors of the row
    count: ``is_unique``, if the column-name model agrees (probability > `threshold`).

    Without a model the heuristic alone decides. A vetoed suggestion is returned with
    ``accepted=False`` so reports can show it.
    """

    model: ColumnNameModel | None = None
    table: str = ""
    threshold: float = 0.5
    errors: float = 3.0
    name: ClassVar[str] = "UniqueIfApproximatelyUnique"

    def suggest(self, profile: ColumnProfile) -> Suggestion | None:
        n = profile.rows
        if n < 2 or profile.non_null < n:
            return None
        gap = abs(n - profile.approx_distinct) / n
        if gap > self.errors * HLL_RSE:
            return None
        c = profile.column
        rationale = (
            f"about {profile.approx_distinct:.0f} distinct values in {n} rows (HLL estimate, "
            f"within {self.errors:g} x {HLL_RSE:.2%} of the row count)"
        )
        score = None
        if self.model is not None:
            score = self.model.probability(self.table, c, profile.data_type)
            verdict = "above" if score > self.threshold else "not above"
            rationale += f"; column-name model: {score:.2f}, {verdict} {self.threshold}"
        accepted = score is None or score > self.threshold
        return self.suggestion(
            c, "is_unique", rationale, Uniqueness(c), score=score, accepted=accepted
        )


@dataclass(frozen=True)
class NonNegative(Rule):
    """A numeric column whose minimum is 0 or more: ``is_non_negative``.

    >>> p = ColumnProfile("n", "int", "Integral", rows=5, non_null=5, approx_distinct=5, minimum=0)
    >>> NonNegative().suggest(p).call
    'is_non_negative("n")'
    """

    name: ClassVar[str] = "NonNegative"

    def suggest(self, profile: ColumnProfile) -> Suggestion | None:
        if not profile.is_numeric or profile.minimum is None or profile.minimum < 0:
            return None
        c = profile.column
        return self.suggestion(
            c, "is_non_negative", f"numeric, smallest value {profile.minimum:g}", non_negative(c)
        )


@dataclass(frozen=True)
class FractionRange(Rule):
    """A fractional column whose values all lie in [0, 1] (a ratio, a probability): ``has_max``
    of 1 (``is_non_negative`` covers the lower end).

    >>> p = ColumnProfile("ctr", "double", "Fractional", rows=9, non_null=9, approx_distinct=9,
    ...                   minimum=0.01, maximum=0.9)
    >>> FractionRange().suggest(p).call
    'has_max("ctr", lambda v: v <= 1.0)'
    """

    name: ClassVar[str] = "FractionRange"

    def suggest(self, profile: ColumnProfile) -> Suggestion | None:
        low, high = profile.minimum, profile.maximum
        if profile.data_type != FRACTIONAL or low is None or high is None:
            return None
        if not (low >= 0 and high <= 1):
            return None
        c = profile.column
        return self.suggestion(
            c,
            "has_max",
            f"fractional values between {low:g} and {high:g}: looks like a ratio in [0, 1]",
            Compliance(f"{c} at most 1", f"{as_double(c)} <= 1"),
            assertion="lambda v: v <= 1.0",
        )


@dataclass(frozen=True)
class CategoricalRange(Rule):
    """A low-cardinality column where at most `max_rare` of the distinct values were seen only
    once: ``is_contained_in`` the observed values (most frequent first).

    >>> p = ColumnProfile("lang", "string", "String", rows=9, non_null=9, approx_distinct=2,
    ...                   histogram={"en": 6, "pt": 3})
    >>> CategoricalRange().suggest(p).call
    'is_contained_in("lang", ["en", "pt"])'
    """

    max_rare: float = 0.1
    name: ClassVar[str] = "CategoricalRange"

    def suggest(self, profile: ColumnProfile) -> Suggestion | None:
        histogram = profile.histogram
        if not histogram or profile.data_type not in (STRING, INTEGRAL, BOOLEAN):
            return None
        rare = sum(1 for count in histogram.values() if count == 1)
        if rare > self.max_rare * len(histogram):
            return None
        c = profile.column
        values = list(histogram)
        allowed = ", ".join(sql_text(v) for v in values)
        return self.suggestion(
            c,
            "is_contained_in",
            f"{len(values)} distinct values, {rare} of them seen once",
            Compliance(
                f"{c} in observed values",
                f"{quoted(c)} IS NULL OR CAST({quoted(c)} AS STRING) IN ({allowed})",
            ),
            [typed(v, profile.spark_type) for v in values],
        )


def typed(text: str, spark_type: str) -> str | int | bool:
    """A histogram value (Spark's text form) as the Python value of the column's type.

    >>> typed("3", "int"), typed("true", "boolean"), typed("3", "string")
    (3, True, '3')
    """
    if spark_type == "boolean":
        return text == "true"
    if spark_type in INTEGRAL_TYPES:
        return int(text)
    return text


def default_rules(table: str = "", model: ColumnNameModel | None = None) -> list[Rule]:
    """The rules of the PVLDB 2018 paper (§3.3); the unique rule consults `model` for `table`."""
    return [
        CompleteIfComplete(),
        RetainCompleteness(),
        ConsistentType(),
        UniqueIfApproximatelyUnique(model, table),
        NonNegative(),
        FractionRange(),
        CategoricalRange(),
    ]
