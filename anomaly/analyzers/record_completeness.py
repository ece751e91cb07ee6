"""RecordCompleteness: Apache Griffin's completeness, the share of complete and valid records."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, cast

from anomaly.analyzers.columns import col, field_type
from anomaly.analyzers.multicolumn import normalise_columns
from anomaly.analyzers.row_share import RowShareAnalyzer

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class RecordCompleteness(RowShareAnalyzer):
    """Share of records whose `column_names` are all present and, if given, satisfy `valid`.

    Apache Griffin's completeness measure, per record rather than per column: a field is
    missing when it is null, NaN (float columns) or blank text (empty or only spaces); `valid`
    is a Spark SQL predicate the record must also satisfy (null counts as not satisfied).
    Per group with ``group_by``, as every analyzer.

    Examples
    --------
    >>> a = RecordCompleteness(("email", "country"), valid="length(country) = 2")
    >>> a.metric_id
    'RecordCompleteness(email, country: length(country) = 2)'
    >>> from anomaly.analyzers.state import MatchesState
    >>> a.metric(MatchesState(matches=9, rows=12)).value
    0.75
    """

    column_names: str | Sequence[str]
    valid: str | None = None
    where: str | None = None
    metric_name: ClassVar[str] = "RecordCompleteness"

    def __post_init__(self) -> None:
        object.__setattr__(self, "column_names", normalise_columns(self.column_names))

    @property
    def columns(self) -> tuple[str, ...]:
        return cast(tuple[str, ...], self.column_names)  # normalised in __post_init__

    @property
    def entity(self) -> str:
        return "Multicolumn" if len(self.columns) > 1 else "Column"

    def id_arguments(self) -> list[str]:
        names = list(self.columns)
        if self.valid:
            names[-1] = f"{names[-1]}: {self.valid}"
        return names

    def expressions(self, schema: StructType) -> list[str]:
        return [*([self.valid] if self.valid else []), *super().expressions(schema)]

    def complete(self, schema: StructType) -> Column:
        """True for a record with every column present (and valid)."""
        from pyspark.sql import functions as F

        condition = F.lit(True)
        for name in self.columns:
            value = col(schema, name)
            present = value.isNotNull()
            kind = field_type(schema, name).simpleString()
            if kind in ("float", "double"):
                present &= ~F.isnan(value)
            elif kind == "string":
                present &= F.trim(value) != ""
            condition &= present
        if self.valid:
            condition &= F.coalesce(F.expr(self.valid), F.lit(False))
        return condition

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        hit = F.when(self.complete(schema), 1).otherwise(0)
        return [F.sum(self.filtered(hit)), F.count(self.filtered(F.lit(1)))]
