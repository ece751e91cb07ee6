"""Size: the number of rows (matching the optional filter)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers.base import ScanShareableAnalyzer
from anomaly.analyzers.slot import Slot, SlotAnalyzer, SlotValues
from anomaly.analyzers.state import CountState

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class Size(ScanShareableAnalyzer[CountState], SlotAnalyzer[CountState]):
    """Number of rows.

    Examples
    --------
    >>> Size().metric_id, Size(where="country = 'DE'").metric_id
    ('Size(*)', "Size(*) where: country = 'DE'")
    >>> Size().metric(CountState(3).merge(CountState(4))).value
    7.0
    """

    where: str | None = None
    metric_name: ClassVar[str] = "Size"

    @property
    def columns(self) -> tuple[str, ...]:
        return ()

    def id_arguments(self) -> list[str]:
        return ["*"]

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        return [F.count(self.filtered(F.lit(1)))]

    def state_from_row(self, values: Sequence[Any]) -> CountState:
        return CountState(int(values[0] or 0))

    def slot(self, schema: StructType) -> Slot | None:
        from pyspark.sql import functions as F

        return Slot(flag=F.expr(self.where)) if self.where else None

    def state_from_slot(self, values: SlotValues, schema: StructType) -> CountState:
        return CountState(values.flagged if self.where else values.rows)

    def empty_state(self) -> CountState:
        return CountState.identity()

    def compute_metric(self, state: CountState) -> float:
        return float(state.rows)
