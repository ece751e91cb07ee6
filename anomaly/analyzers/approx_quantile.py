"""ApproxQuantile(s) of a numeric column from one mergeable KLL sketch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers.numbers import number
from anomaly.analyzers.numeric_column import NumericColumnAnalyzer
from anomaly.analyzers.sketch_state import KllState
from anomaly.errors import ConfigurationError

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


def _check_quantile(q: float) -> None:
    if not 0.0 <= q <= 1.0:
        raise ConfigurationError(f"quantile must be in [0, 1], got {q!r}")


class _KllAnalyzer(NumericColumnAnalyzer[KllState]):
    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        value = number(schema, self.column)
        # NaN has no rank: keep it out of the sketch (documented: quantiles of the non-NaN values).
        value = F.when(~F.isnan(value), value)
        return [F.kll_sketch_agg_double(self.filtered(value))]

    def state_from_row(self, values: Sequence[Any]) -> KllState:
        return KllState(bytes(values[0])) if values[0] is not None else KllState(None)

    def empty_state(self) -> KllState:
        return KllState.identity()

    def checked(self, state: KllState) -> KllState:
        if state.count == 0:
            raise self.nothing_to_measure("non-null values")
        return state


@dataclass(frozen=True)
class ApproxQuantile(_KllAnalyzer):
    """Approximate `quantile` of the non-null, non-NaN values of `column` (KLL, k=200).

    Examples
    --------
    >>> ApproxQuantile("ups", 0.9).metric_id
    'ApproxQuantile(ups, 0.9)'
    """

    column: str
    quantile: float
    where: str | None = None
    metric_name: ClassVar[str] = "ApproxQuantile"

    def __post_init__(self) -> None:
        _check_quantile(self.quantile)

    def id_arguments(self) -> list[str]:
        return [self.column, repr(float(self.quantile))]

    def compute_metric(self, state: KllState) -> float:
        return self.checked(state).quantile(self.quantile)


@dataclass(frozen=True)
class ApproxQuantiles(_KllAnalyzer):
    """Several approximate quantiles of `column` from one sketch; one record per quantile.

    Examples
    --------
    >>> ApproxQuantiles("ups", (0.5, 0.25)).metric_id
    'ApproxQuantiles(ups, 0.25, 0.5)'
    """

    column: str
    quantiles: tuple[float, ...]
    where: str | None = None
    metric_name: ClassVar[str] = "ApproxQuantiles"

    def __post_init__(self) -> None:
        if not self.quantiles:
            raise ConfigurationError("quantiles must name at least one quantile, got none")
        for q in self.quantiles:
            _check_quantile(q)
        # Order and duplicates do not change the metric, so they must not change its id.
        object.__setattr__(self, "quantiles", tuple(sorted({float(q) for q in self.quantiles})))

    def id_arguments(self) -> list[str]:
        return [self.column, *(repr(q) for q in self.quantiles)]

    def compute_metric(self, state: KllState) -> dict[str, float]:
        checked = self.checked(state)
        return {repr(q): checked.quantile(q) for q in self.quantiles}
