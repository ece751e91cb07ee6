"""Constraints on statistics: size, extremes, moments, sketches, histograms.

From Table 1 of Schelter et al., PVLDB 2018.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Self

from anomaly.analyzers import (
    ApproxCountDistinct,
    ApproxQuantile,
    Correlation,
    CountDistinct,
    Entropy,
    Histogram,
    Maximum,
    Mean,
    Minimum,
    MutualInformation,
    Predictability,
    Size,
    StandardDeviation,
    Sum,
)
from anomaly.checks.assertions import AssertionFn
from anomaly.checks.builder import ConstraintBuilder
from anomaly.checks.distribution import Distribution
from anomaly.metrics import MetricValue


def _distribution(value: MetricValue) -> Distribution:
    assert isinstance(value, Mapping)
    return Distribution.of(value)


class StatisticsConstraints(ConstraintBuilder):
    """has_size, has_min, has_mean, has_histogram_values, ..."""

    def has_size(
        self, assertion: AssertionFn, where: str | None = None, hint: str | None = None
    ) -> Self:
        """The number of rows satisfies `assertion`."""
        return self._metric("has_size", Size(where), assertion, hint)

    def has_min(
        self, column: str, assertion: AssertionFn, where: str | None = None, hint: str | None = None
    ) -> Self:
        """The smallest value of `column` satisfies `assertion`."""
        return self._metric(f"has_min({column})", Minimum(column, where), assertion, hint)

    def has_max(
        self, column: str, assertion: AssertionFn, where: str | None = None, hint: str | None = None
    ) -> Self:
        """The largest value of `column` satisfies `assertion`."""
        return self._metric(f"has_max({column})", Maximum(column, where), assertion, hint)

    def has_mean(
        self, column: str, assertion: AssertionFn, where: str | None = None, hint: str | None = None
    ) -> Self:
        """The mean of `column` satisfies `assertion`."""
        return self._metric(f"has_mean({column})", Mean(column, where), assertion, hint)

    def has_sum(
        self, column: str, assertion: AssertionFn, where: str | None = None, hint: str | None = None
    ) -> Self:
        """The sum of `column` satisfies `assertion`."""
        return self._metric(f"has_sum({column})", Sum(column, where), assertion, hint)

    def has_standard_deviation(
        self, column: str, assertion: AssertionFn, where: str | None = None, hint: str | None = None
    ) -> Self:
        """The population standard deviation of `column` satisfies `assertion`."""
        analyzer = StandardDeviation(column, where)
        return self._metric(f"has_standard_deviation({column})", analyzer, assertion, hint)

    def has_approx_quantile(
        self, column: str, quantile: float, assertion: AssertionFn, where: str | None = None,
        hint: str | None = None,
    ) -> Self:  # fmt: skip
        """The approximate `quantile` of `column` satisfies `assertion`."""
        analyzer = ApproxQuantile(column, quantile, where)
        return self._metric(f"has_approx_quantile({column}, {quantile})", analyzer, assertion, hint)

    def has_count_distinct(
        self, columns: str | Sequence[str], assertion: AssertionFn, where: str | None = None,
        hint: str | None = None,
    ) -> Self:  # fmt: skip
        """The exact number of distinct value tuples satisfies `assertion`."""
        analyzer = CountDistinct(columns, where)
        return self._metric(f"has_count_distinct({analyzer.instance})", analyzer, assertion, hint)

    def has_approx_count_distinct(
        self, column: str, assertion: AssertionFn, where: str | None = None, hint: str | None = None
    ) -> Self:
        """The approximate number of distinct values (HLL) satisfies `assertion`."""
        analyzer = ApproxCountDistinct(column, where)
        return self._metric(f"has_approx_count_distinct({column})", analyzer, assertion, hint)

    def has_entropy(
        self, column: str, assertion: AssertionFn, where: str | None = None, hint: str | None = None
    ) -> Self:
        """The entropy of `column` satisfies `assertion`."""
        return self._metric(f"has_entropy({column})", Entropy(column, where), assertion, hint)

    def has_mutual_information(
        self, first: str, second: str, assertion: AssertionFn, where: str | None = None,
        hint: str | None = None,
    ) -> Self:  # fmt: skip
        """The mutual information of `first` and `second` satisfies `assertion`."""
        analyzer = MutualInformation(first, second, where)
        return self._metric(f"has_mutual_information({first}, {second})", analyzer, assertion, hint)

    def has_correlation(
        self, first: str, second: str, assertion: AssertionFn, where: str | None = None,
        hint: str | None = None,
    ) -> Self:  # fmt: skip
        """The Pearson correlation of `first` and `second` satisfies `assertion`."""
        analyzer = Correlation(first, second, where)
        return self._metric(f"has_correlation({first}, {second})", analyzer, assertion, hint)

    def has_predictability(
        self,
        target: str,
        inputs: str | Iterable[str],
        assertion: AssertionFn,
        measure: str = "f1",
        where: str | None = None,
        hint: str | None = None,
    ) -> Self:
        """How well `inputs` predict `target` (held-out weighted `measure` of a naive Bayes
        model, Schelter et al., PVLDB 2018, §3.1) satisfies `assertion`."""
        columns = [inputs] if isinstance(inputs, str) else list(inputs)
        analyzer = Predictability(target, columns, where, measure=measure)
        name = f"has_predictability({target}, {', '.join(columns)})"
        return self._metric(name, analyzer, assertion, hint)

    def has_histogram_values(
        self, column: str, assertion: AssertionFn, where: str | None = None, max_bins: int = 1000,
        hint: str | None = None,
    ) -> Self:  # fmt: skip
        """`assertion` holds on the `Distribution` of `column` (e.g. ``d.ratio("phone") < .2``)."""
        analyzer = Histogram(column, where, max_bins)
        return self._metric(
            f"has_histogram_values({column})", analyzer, assertion, hint, pick=_distribution
        )
