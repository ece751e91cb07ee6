"""Constraints of the consistency dimension (Schelter et al., PVLDB 2018, Table 1)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Self

from anomaly.analyzers import (
    Compliance,
    DataType,
    Distinctness,
    PatternMatch,
    Uniqueness,
    UniqueValueRatio,
)
from anomaly.analyzers.columns import quote
from anomaly.analyzers.numbers import number_sql
from anomaly.checks.assertions import IS_ONE, AssertionFn
from anomaly.checks.builder import ConstraintBuilder
from anomaly.metrics import MetricValue

NUMBER_TYPES = ("Integral", "Fractional")


def _sql_literal(value: object) -> str:
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    raise TypeError(f"allowed values must be str, int, float or bool, got {value!r}")


def dominant_type(value: MetricValue) -> tuple[str, float]:
    """The type most non-null values of a DataType metric have, and their share.

    Integral values count as Fractional too (``1`` and ``2.5`` are consistently numbers), so a
    column of integers is Integral and one of integers and decimals is Fractional.

    >>> dominant_type({"abs.Integral": 3.0, "abs.Fractional": 1.0, "abs.String": 1.0})
    ('Fractional', 0.8)
    >>> dominant_type({"abs.Integral": 3.0, "abs.Unknown": 5.0, "abs.String": 1.0})
    ('Integral', 0.75)
    """
    assert isinstance(value, Mapping)
    counts = {
        k.removeprefix("abs."): v
        for k, v in value.items()
        if k.startswith("abs.") and k != "abs.Unknown"
    }
    total = sum(counts.values())
    if total == 0:
        raise ValueError("the column has no non-null values to type")
    counts["Fractional"] = counts.get("Fractional", 0.0) + counts.get("Integral", 0.0)
    # Integral first: it wins a tie with Fractional (no decimals at all).
    order = ["Integral", "Fractional", *sorted(k for k in counts if k not in NUMBER_TYPES)]
    name = max((k for k in order if k in counts), key=lambda k: counts[k])
    return name, counts[name] / total


def dominant_type_ratio(value: MetricValue) -> float:
    """Largest share of one type among the non-null values of a DataType metric."""
    return dominant_type(value)[1]


def non_negative(column: str, where: str | None = None) -> Compliance:
    """The analyzer of ``is_non_negative``: the share of rows whose value is null or a number
    >= 0 (text read as numbers; text that is no number fails).

    >>> non_negative("amount").predicate
    '`amount` IS NULL OR TRY_CAST(`amount` AS DOUBLE) >= 0'
    """
    predicate = f"{quote(column)} IS NULL OR {number_sql(quote(column))} >= 0"
    return Compliance(f"{column} is non-negative", predicate, where, (column,))


class ConsistencyConstraints(ConstraintBuilder):
    """Uniqueness, ranges, types, predicates."""

    def is_unique(self, *columns: str, where: str | None = None, hint: str | None = None) -> Self:
        """The combination of `columns` has no duplicates (Uniqueness == 1)."""
        name = f"is_unique({', '.join(columns)})"
        return self._metric(name, Uniqueness(columns, where), IS_ONE, hint)

    def is_primary_key(self, *columns: str, hint: str | None = None) -> Self:
        """`columns` are complete and unique together."""
        return self.is_complete(*columns, hint=hint).is_unique(*columns, hint=hint)  # type: ignore[attr-defined]

    def has_uniqueness(
        self, columns: str | Sequence[str], assertion: AssertionFn, where: str | None = None,
        hint: str | None = None,
    ) -> Self:  # fmt: skip
        """Fraction of value tuples occurring once satisfies `assertion`."""
        analyzer = Uniqueness(columns, where)
        return self._metric(f"has_uniqueness({analyzer.instance})", analyzer, assertion, hint)

    def has_distinctness(
        self, columns: str | Sequence[str], assertion: AssertionFn, where: str | None = None,
        hint: str | None = None,
    ) -> Self:  # fmt: skip
        """Distinct value tuples / rows satisfies `assertion`."""
        analyzer = Distinctness(columns, where)
        return self._metric(f"has_distinctness({analyzer.instance})", analyzer, assertion, hint)

    def has_unique_value_ratio(
        self, columns: str | Sequence[str], assertion: AssertionFn, where: str | None = None,
        hint: str | None = None,
    ) -> Self:  # fmt: skip
        """Unique values / distinct values satisfies `assertion`."""
        analyzer = UniqueValueRatio(columns, where)
        return self._metric(
            f"has_unique_value_ratio({analyzer.instance})", analyzer, assertion, hint
        )

    def satisfies(
        self, predicate: str, name: str, assertion: AssertionFn = IS_ONE, where: str | None = None,
        hint: str | None = None,
    ) -> Self:  # fmt: skip
        """Fraction of rows where the SQL `predicate` holds satisfies `assertion` (all, default)."""
        analyzer = Compliance(name, predicate, where)
        return self._metric(f"satisfies({name})", analyzer, assertion, hint)

    def satisfies_if(
        self, condition: str, predicate: str, name: str | None = None, hint: str | None = None
    ) -> Self:
        """Every row where `condition` holds also satisfies `predicate`."""
        label = name or f"{condition} => {predicate}"
        analyzer = Compliance(label, f"NOT ({condition}) OR ({predicate})")
        return self._metric(f"satisfies_if({label})", analyzer, IS_ONE, hint)

    def is_contained_in(
        self, column: str, allowed_values: Iterable[object], assertion: AssertionFn = IS_ONE,
        where: str | None = None, hint: str | None = None,
    ) -> Self:  # fmt: skip
        """Values of `column` are in `allowed_values` (nulls pass, as in Deequ)."""
        values = list(allowed_values)
        if not values:
            raise ValueError(f"is_contained_in({column}): allowed_values must not be empty")
        listed = ", ".join(_sql_literal(v) for v in values)
        predicate = f"{quote(column)} IS NULL OR {quote(column)} IN ({listed})"
        analyzer = Compliance(f"{column} contained in {listed}", predicate, where, (column,))
        return self._metric(f"is_contained_in({column})", analyzer, assertion, hint)

    def is_in_range(
        self, column: str, lower: float, upper: float, include_bounds: bool = True,
        where: str | None = None, hint: str | None = None,
    ) -> Self:  # fmt: skip
        """Non-null values of `column` lie between `lower` and `upper` (text that is no number
        does not)."""
        low, high = (">=", "<=") if include_bounds else (">", "<")
        value = number_sql(quote(column))
        predicate = (
            f"{quote(column)} IS NULL OR ({value} {low} {lower!r} AND {value} {high} {upper!r})"
        )
        analyzer = Compliance(f"{column} in range", predicate, where, (column,))
        return self._metric(f"is_in_range({column})", analyzer, IS_ONE, hint)

    def is_non_negative(
        self, column: str, where: str | None = None, hint: str | None = None
    ) -> Self:
        """Non-null values of `column` are >= 0 (text that is no number is not)."""
        return self._metric(f"is_non_negative({column})", non_negative(column, where), IS_ONE, hint)

    def is_positive(self, column: str, where: str | None = None, hint: str | None = None) -> Self:
        """Non-null values of `column` are > 0 (text that is no number is not)."""
        predicate = f"{quote(column)} IS NULL OR {number_sql(quote(column))} > 0"
        analyzer = Compliance(f"{column} is positive", predicate, where, (column,))
        return self._metric(f"is_positive({column})", analyzer, IS_ONE, hint)

    def is_less_than(
        self, first: str, second: str, or_equal: bool = False, where: str | None = None,
        hint: str | None = None,
    ) -> Self:  # fmt: skip
        """In every row, `first` < `second` (<= with `or_equal`); nulls fail."""
        op = "<=" if or_equal else "<"
        predicate = f"{quote(first)} {op} {quote(second)}"
        analyzer = Compliance(f"{first} {op} {second}", predicate, where, (first, second))
        return self._metric(f"is_less_than({first}, {second})", analyzer, IS_ONE, hint)

    def has_pattern(
        self, column: str, pattern: str, assertion: AssertionFn = IS_ONE, where: str | None = None,
        hint: str | None = None,
    ) -> Self:  # fmt: skip
        """Fraction of values matching the regex `pattern` satisfies `assertion`."""
        analyzer = PatternMatch(column, pattern, where)
        return self._metric(f"has_pattern({column})", analyzer, assertion, hint)

    def has_consistent_type(
        self, column: str, assertion: AssertionFn = IS_ONE, where: str | None = None,
        hint: str | None = None,
    ) -> Self:  # fmt: skip
        """The largest share of one data type among non-null values (integers count as
        decimals too, see `dominant_type`) satisfies `assertion`."""
        return self._consistent_type("has_consistent_type", column, assertion, where, hint)

    def has_type_consistency(
        self, column: str, assertion: AssertionFn, where: str | None = None, hint: str | None = None
    ) -> Self:
        """Deprecated alias of :meth:`has_consistent_type` (warns; the constraint keeps this
        name, so stored outcomes of existing checks stay one series)."""
        warnings.warn(
            "has_type_consistency is deprecated: use has_consistent_type (the same constraint)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self._consistent_type("has_type_consistency", column, assertion, where, hint)

    def _consistent_type(
        self, call: str, column: str, assertion: AssertionFn, where: str | None, hint: str | None
    ) -> Self:
        analyzer = DataType(column, where)
        subject = f"dominant type ratio of {analyzer.metric_id}"
        name = f"{call}({column})"
        return self._metric(name, analyzer, assertion, hint, dominant_type_ratio, subject)
