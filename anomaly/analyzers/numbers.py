"""Numbers from numeric or text columns, safe under ANSI mode on and off.

A CSV read without a schema holds its numbers as text. Spark's implicit and explicit casts of
text to numbers fail the whole job with ``CAST_INVALID_INPUT`` under ANSI mode (Spark 4's
default) and silently give null (or a truncated integer, in comparisons with an integer column)
without it. Everything that reads a column as numbers goes through here instead: text is read
with ``TRY_CAST(... AS DOUBLE)`` (surrounding blanks allowed, ``1e3``, ``NaN``, ``Infinity``), so
a value that does not parse is null in both modes, and the caller decides what that means: a
violation for a row-level constraint, a failed metric for an analyzer.

>>> number_sql("`price`")
'TRY_CAST(`price` AS DOUBLE)'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from anomaly.analyzers.columns import col, field_type

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType

TEXT = "string"


def number_sql(reference: str) -> str:
    """SQL reading the column `reference` (quoted) as a double; null where text does not parse."""
    return f"TRY_CAST({reference} AS DOUBLE)"


def is_text(schema: StructType, column: str) -> bool:
    """Whether `column` holds text (a string column)."""
    return field_type(schema, column).simpleString() == TEXT


def number(schema: StructType, column: str) -> Column:
    """`column` as a double: a plain cast for numeric columns, ``try_cast`` for text."""
    value = col(schema, column)
    return value.try_cast("double") if is_text(schema, column) else value.cast("double")


def parse_checks(
    schema: StructType, columns: Sequence[str], filtered: Callable[[Column], Column]
) -> list[Column]:
    """Per text column of `columns`: how many non-null values do not parse as numbers, and the
    smallest of them (an example for the message). Nothing for numeric columns."""
    from pyspark.sql import functions as F

    checks = []
    for column in columns:
        if is_text(schema, column):
            value = col(schema, column)
            bad = filtered(F.when(value.isNotNull() & value.try_cast("double").isNull(), value))
            checks += [F.count(bad), F.min(bad)]
    return checks


def parse_failure(schema: StructType, columns: Sequence[str], values: Sequence[Any]) -> str | None:
    """Why the metric fails when `values` (from `parse_checks`) found text that is no number.

    >>> from pyspark.sql.types import StringType, StructField, StructType
    >>> schema = StructType([StructField("price", StringType())])
    >>> print(parse_failure(schema, ["price"], [2, "n/a"]))
    2 values of text column 'price' do not parse as numbers (e.g. 'n/a'); text is read as numbers
    only when every value parses: clean those rows, leave them out with `where`, or read the data
    with a schema
    """
    texts = [c for c in columns if is_text(schema, c)]
    for i, column in enumerate(texts):
        count, example = values[2 * i], values[2 * i + 1]
        if count:
            what = "1 value" if count == 1 else f"{count} values"
            verb = "does" if count == 1 else "do"
            return (
                f"{what} of text column {column!r} {verb} not parse as numbers (e.g. "
                f"{example!r}); text is read as numbers only when every value parses: clean "
                "those rows, leave them out with `where`, or read the data with a schema"
            )
    return None
