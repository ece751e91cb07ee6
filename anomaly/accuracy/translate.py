"""Translation of rule expressions to Spark columns, type-checked against the two schemas.

Predicates are two-valued (never null), following Griffin's treatment of null as a value
(``'id' != null`` is one of its filter conditions):

* ``=``, ``!=`` and ``IN`` are null-safe: null equals null and differs from every value;
* ``<``, ``>``, ``<=``, ``>=`` and ``BETWEEN`` are false when an operand is null;
* so ``NOT`` is the plain complement. Arithmetic on null, a division by zero or an overflow is null.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from functools import reduce
from typing import TYPE_CHECKING

from pyspark.sql import functions as F
from pyspark.sql import types as T

from anomaly.accuracy import nodes
from anomaly.accuracy.errors import RuleTypeError
from anomaly.accuracy.selection import select
from anomaly.accuracy.values import ORDERED, Ref, Value, as_text, same_shape

if TYPE_CHECKING:
    from pyspark.sql import Column

__all__ = ["Compiler", "Ref", "as_text", "comparable", "json_cast", "literal"]

_ORDERING: dict[str, Callable[[Column, Column], Column]] = {
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
}
_ARITHMETIC: dict[str, Callable[[Column, Column], Column]] = {
    "+": F.try_add,
    "-": F.try_subtract,
    "*": F.try_multiply,
    "/": F.try_divide,
    "%": F.try_mod,
}
_CASTABLE = frozenset({"number", "string", "boolean", "datetime", "time"})
_NESTED = frozenset({"array", "struct", "map"})


class Compiler:  # implements values.RuleCompiler
    """Compiles rule nodes against the `schemas` of ``source`` and ``target``.

    Raises `UnknownFieldError` or `RuleTypeError` (pointing into `text`) for rules the data
    cannot satisfy; no Spark job runs here, only column construction.
    """

    def __init__(self, text: str, schemas: Mapping[str, T.StructType], ref: Ref) -> None:
        self.text = text
        self.schemas = schemas
        self.ref = ref

    def type_error(self, message: str, node: nodes.Node) -> RuleTypeError:
        return RuleTypeError(message, self.text, node.pos)

    # -- predicates ------------------------------------------------------------------------------

    def predicate(self, node: nodes.Node) -> Column:
        """A boolean column that is never null (see the module docstring)."""
        if isinstance(node, nodes.Logical):
            left, right = self.predicate(node.left), self.predicate(node.right)
            return left & right if node.op == "AND" else left | right
        if isinstance(node, nodes.Not):
            return ~self.predicate(node.operand)
        if isinstance(node, nodes.Compare):
            return self.compare(node.op, self.value(node.left), self.value(node.right), node)
        if isinstance(node, nodes.InList):
            operand = self.value(node.operand)
            hits = [self.compare("=", operand, self.value(item), item) for item in node.items]
            found = reduce(lambda a, b: a | b, hits) if hits else F.lit(False)
            return ~found if node.negated else found
        if isinstance(node, nodes.Between):
            operand = self.value(node.operand)
            low = self.compare(">=", operand, self.value(node.low), node)
            inside = low & self.compare("<=", operand, self.value(node.high), node)
            return ~inside if node.negated else inside
        raise self.type_error(f"expected a condition, found the value {node}", node)

    def compare(self, op: str, left: Value, right: Value, node: nodes.Node) -> Column:
        """``left op right`` as a two-valued condition."""
        if "null" in (left.category, right.category):  # the literal null: works for any type
            other = right.column if left.category == "null" else left.column
            null = {"=": other.isNull(), "!=": other.isNotNull()}
            return null.get(op, F.lit(False))
        a, b = self.pair(left, right, op, node)
        if op == "=":
            return a.eqNullSafe(b)
        if op == "!=":
            return ~a.eqNullSafe(b)
        return F.coalesce(_ORDERING[op](a, b), F.lit(False))

    def pair(self, left: Value, right: Value, op: str, node: nodes.Node) -> tuple[Column, Column]:
        """The two columns to compare, with time literals and JSON values coerced."""
        kinds = {left.category, right.category}
        if kinds == {"json"}:
            return comparable(left), comparable(right)
        if "json" in kinds:
            json, other = (left, right) if left.category == "json" else (right, left)
            if other.category in _CASTABLE:
                cast = json_cast(json.column, other.dtype)
                return (cast, other.column) if json is left else (other.column, cast)
        elif "time" in kinds and len(kinds) == 2:
            other = right if left.category == "time" else left
            if other.category in ("datetime", "interval"):
                return _as_interval(left), _as_interval(right)
            if other.category == "number":
                return left.column, right.column
        elif len(kinds) == 1:
            kind = left.category
            if op not in ("=", "!=") and kind not in ORDERED:
                raise self.type_error(f"cannot order {left.describe()} with '{op}'", node)
            if kind == "map":
                raise self.type_error(
                    f"Spark cannot compare maps ({left.describe()}): compare their values, "
                    f"e.g. {left.text}['key']",
                    node,
                )
            if kind not in _NESTED or same_shape(left.dtype, right.dtype):  # type: ignore[arg-type]
                return comparable(left), comparable(right)
        raise self.type_error(f"cannot compare {left.describe()} with {right.describe()}", node)

    # -- values ----------------------------------------------------------------------------------

    def value(self, node: nodes.Node) -> Value:
        """A typed column for a math expression (literal, selection, arithmetic)."""
        if isinstance(node, nodes.Literal):
            return literal(node)
        if isinstance(node, nodes.Selection):
            return select(self, node)
        if isinstance(node, nodes.Unary):
            return self.unary(node)
        if isinstance(node, nodes.Binary):
            return self.arithmetic(node, self.value(node.left), self.value(node.right))
        raise self.type_error(f"expected a value, found the condition {node}", node)

    def unary(self, node: nodes.Unary) -> Value:
        operand = self.value(node.operand)
        text = str(node)
        if node.op == "+" and operand.category in ("number", "interval", "time"):
            return Value(operand.column, operand.dtype, text, operand.millis)
        if operand.millis is not None:
            return Value(F.lit(-operand.millis), None, text, -operand.millis)
        if operand.category in ("number", "interval"):
            return Value(-operand.column, operand.dtype, text)
        raise self.type_error(f"cannot apply '{node.op}' to {operand.describe()}", node)

    def arithmetic(self, node: nodes.Binary, left: Value, right: Value) -> Value:
        kinds, text, op = (left.category, right.category), str(node), node.op
        if "null" in kinds:
            return Value(F.lit(None), T.NullType(), text)
        if op == "+" and "string" in kinds:
            parts = [as_text(v.column) if v.category == "json" else v.column for v in (left, right)]
            return Value(F.concat(*(p.cast("string") for p in parts)), T.StringType(), text)
        if left.millis is not None and right.millis is not None and op in "+-":
            millis = left.millis + right.millis if op == "+" else left.millis - right.millis
            return Value(F.lit(millis), None, text, millis)
        temporal = _temporal(op, kinds)
        if temporal is not None:
            a, b = _as_interval(left), _as_interval(right)
            column = (a - b) if kinds == ("datetime", "datetime") else _ARITHMETIC[op](a, b)
            return Value(column, temporal, text)
        if all(k in ("number", "time", "json") for k in kinds):
            a, b = (_number(v) for v in (left, right))
            fractional = op == "/" or any(_fractional(v.dtype) for v in (left, right))
            dtype = T.DoubleType() if fractional else T.LongType()
            return Value(_ARITHMETIC[op](a, b), dtype, text)
        raise self.type_error(
            f"cannot apply '{op}' to {left.describe()} and {right.describe()}", node
        )


def literal(node: nodes.Literal) -> Value:
    """The typed column of a literal; a time literal keeps its milliseconds."""
    text = str(node)
    if node.kind == "time":
        return Value(F.lit(node.value), None, text, node.value)
    dtype: T.DataType = {
        "string": T.StringType(),
        "boolean": T.BooleanType(),
        "null": T.NullType(),
    }.get(node.kind) or (T.DoubleType() if isinstance(node.value, float) else T.LongType())
    return Value(F.lit(node.value), dtype, text)


def comparable(value: Value) -> Column:
    """`value` in a form Spark can compare, hash and collect: JSON inside arrays or structs as
    JSON text, a JSON value as text (see `as_text`)."""
    if value.category == "json":
        return as_text(value.column)
    if value.category in _NESTED and "variant" in value.dtype.simpleString():  # type: ignore[union-attr]
        return F.to_json(value.column)
    return value.column


def json_cast(column: Column, dtype: T.DataType | None) -> Column:
    """A JSON value as `dtype` (numbers without truncation), null where it does not convert."""
    if dtype is None or (isinstance(dtype, T.NumericType) and not isinstance(dtype, T.DecimalType)):
        target = "decimal(38,18)" if isinstance(dtype, T.LongType) else "double"
    elif isinstance(dtype, T.StringType | T.VarcharType | T.CharType):
        target = "string"
    else:
        target = dtype.simpleString()
    return F.try_variant_get(column, "$", target)


def _as_interval(value: Value) -> Column:
    if value.millis is None:
        return value.column
    return F.lit(datetime.timedelta(milliseconds=value.millis))


def _temporal(op: str, kinds: tuple[str, str]) -> T.DataType | None:
    """The result type of date/time arithmetic, None if `kinds` are not temporal."""
    spans = ("time", "interval")
    if op in "+-" and kinds[0] == "datetime" and kinds[1] in spans:
        return T.TimestampType()
    if op == "+" and kinds[1] == "datetime" and kinds[0] in spans:
        return T.TimestampType()
    if op == "-" and kinds == ("datetime", "datetime"):
        return T.DayTimeIntervalType()
    if op in "+-" and set(kinds) <= set(spans) and "interval" in kinds:
        return T.DayTimeIntervalType()
    return None


def _number(value: Value) -> Column:
    if value.category == "json":
        return F.try_variant_get(value.column, "$", "double")
    return value.column


def _fractional(dtype: T.DataType | None) -> bool:
    return isinstance(dtype, T.FractionalType | T.VariantType)
