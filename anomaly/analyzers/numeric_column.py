"""The base of analyzers that read one column as numbers in the shared scan.

Mean, Sum, StandardDeviation, Minimum, Maximum and the approximate quantiles each measure one
column, need it numeric (or text holding numbers) and read it through
:func:`anomaly.analyzers.numbers.number`; this is that part, written once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from anomaly.analyzers.base import S, ScanShareableAnalyzer
from anomaly.analyzers.numbers import number

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


class NumericColumnAnalyzer(ScanShareableAnalyzer[S]):
    """A scan-shareable analyzer of the numbers of one `column` (subclasses are dataclasses
    with the fields ``column`` and ``where``)."""

    column: str
    reads_numbers: ClassVar[bool] = True

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def check_schema(self, schema: StructType) -> str | None:
        return self.require_numeric(schema)

    def numbers(self, schema: StructType) -> Column:
        """The column as doubles, null outside the filter (aggregates skip nulls)."""
        return self.filtered(number(schema, self.column))
