"""Compliance: the fraction of rows satisfying a SQL predicate."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from anomaly.analyzers.columns import nested_references
from anomaly.analyzers.row_share import RowShareAnalyzer

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class Compliance(RowShareAnalyzer):
    """Fraction of rows where `predicate` (Spark SQL) is true; null counts as not satisfied.

    The predicate is SQL: quote awkward names in it yourself (```first name` > 0``). `columns`
    (optional, as Deequ's) names the columns it reads: a missing one fails with a clear message,
    and a reference to one of them in backticks (```a.b```) is read as a nested field path when
    that is what the name resolves to (see `anomaly.analyzers.columns`). They are not part of the
    identity.

    Examples
    --------
    >>> a = Compliance("positive price", "price > 0")
    >>> a.metric_id, a.instance
    ('Compliance(positive price: price > 0)', 'positive price')
    >>> Compliance("adult", "`user.age` >= 18", columns=["user.age"]).columns
    ('user.age',)
    """

    name: str
    predicate: str
    where: str | None = None
    columns: tuple[str, ...] = field(default=(), compare=False)
    metric_name: ClassVar[str] = "Compliance"

    def __post_init__(self) -> None:
        names = (self.columns,) if isinstance(self.columns, str) else tuple(self.columns)
        object.__setattr__(self, "columns", names)

    @property
    def entity(self) -> str:
        return "Column"

    @property
    def instance(self) -> str:
        return self.name

    def id_arguments(self) -> list[str]:
        return [f"{self.name}: {self.predicate}"]

    def sql(self, schema: StructType) -> str:
        """The predicate to evaluate on `schema` (declared nested columns as paths)."""
        return nested_references(self.predicate, schema, self.columns)

    def expressions(self, schema: StructType) -> list[str]:
        return [self.sql(schema), *super().expressions(schema)]

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        hit = F.when(F.expr(self.sql(schema)), 1).otherwise(0)
        return [F.sum(self.filtered(hit)), F.count(self.filtered(F.lit(1)))]
