"""Typed values of a compiled rule: a Spark column with its static type, grouped in categories."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from pyspark.sql import functions as F
from pyspark.sql import types as T

if TYPE_CHECKING:
    from pyspark.sql import Column

    from anomaly.accuracy import nodes

Ref = Callable[[str, str], "Column"]
"""(side, column name) -> the column of that side in the query being built."""

_CATEGORIES: tuple[tuple[type[T.DataType] | tuple[type[T.DataType], ...], str], ...] = (
    (T.NullType, "null"),
    (T.NumericType, "number"),
    ((T.StringType, T.VarcharType, T.CharType), "string"),
    (T.BooleanType, "boolean"),
    ((T.DateType, T.TimestampType, T.TimestampNTZType), "datetime"),
    ((T.DayTimeIntervalType, T.YearMonthIntervalType), "interval"),
    (T.VariantType, "json"),
    (T.BinaryType, "binary"),
    (T.ArrayType, "array"),
    (T.StructType, "struct"),
    (T.MapType, "map"),
)
ORDERED = frozenset({"number", "string", "boolean", "datetime", "interval", "time"})


def category(dtype: T.DataType | None) -> str:
    """The comparison category of a Spark type (``None`` stands for a time literal).

    >>> [category(t) for t in (T.IntegerType(), T.DecimalType(10, 2), T.VarcharType(3), None)]
    ['number', 'number', 'string', 'time']
    """
    if dtype is None:
        return "time"
    for kinds, name in _CATEGORIES:
        if isinstance(dtype, kinds):
            return name
    return "other"


@dataclass(frozen=True)
class Value:
    """A compiled value: its column, its Spark type (None for a time literal, whose `millis` is
    set) and the rule text it came from (for messages)."""

    column: Column
    dtype: T.DataType | None
    text: str
    millis: int | None = None

    @property
    def category(self) -> str:
        """``number``, ``string``, ``json``, ``time`` ... (see `category`)."""
        return category(self.dtype)

    def describe(self) -> str:
        """``$source.a (int)``: how messages name the value."""
        return f"{self.text} ({type_name(self.dtype)})"


def type_name(dtype: T.DataType | None) -> str:
    """A type as messages show it.

    >>> type_name(T.VariantType()), type_name(None), type_name(T.ArrayType(T.LongType()))
    ('JSON value', 'time literal', 'array<bigint>')
    """
    if dtype is None:
        return "time literal"
    if isinstance(dtype, T.VariantType):
        return "JSON value"
    return dtype.simpleString()


def same_shape(a: T.DataType, b: T.DataType) -> bool:
    """Equal types ignoring nullability (for arrays, structs and maps compared with ``=``)."""
    return a.simpleString() == b.simpleString()


def as_text(column: Column) -> Column:
    """A JSON value as text: strings unquoted, numbers and objects as JSON."""
    return F.try_variant_get(column, "$", "string")


class RuleCompiler(Protocol):
    """What translating a part of a rule needs of the whole: the rule's text (for messages),
    the two schemas, the column reference, and the compilation of values and comparisons
    (:class:`~anomaly.accuracy.translate.Compiler` is the one implementation)."""

    text: str
    schemas: Mapping[str, T.StructType]
    ref: Ref

    def value(self, node: nodes.Node) -> Value:
        """A typed column for a math expression."""
        ...

    def compare(self, op: str, left: Value, right: Value, node: nodes.Node) -> Column:
        """``left op right`` as a two-valued condition."""
        ...
