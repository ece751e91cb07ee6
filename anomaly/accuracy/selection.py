"""Selections (``$source.a.b[0]['k' = v].json()``) translated to typed Spark columns.

Fields of structs, keys of maps and keys of JSON values are all selected with ``.name`` or
``['name']``; ``[i]`` is 0-based (negative from the end); ``['f' op v]`` is the first array item
whose field ``f`` compares true with ``v``; ``json()`` parses a string into a JSON value
(Spark's VARIANT). Missing items, keys and malformed JSON give null, never an error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pyspark.sql import functions as F
from pyspark.sql import types as T

from anomaly.accuracy import nodes
from anomaly.accuracy.errors import RuleTypeError, UnknownFieldError
from anomaly.accuracy.values import RuleCompiler, Value, as_text, category, type_name

if TYPE_CHECKING:
    from pyspark.sql import Column

JSON_ARRAY = T.ArrayType(T.VariantType())


def select(compiler: RuleCompiler, node: nodes.Selection) -> Value:
    """The typed column of a selection; unknown fields and misuse raise with their position."""
    head = f"${node.head}"
    if not node.steps:
        raise UnknownFieldError(
            f"select a field of {head}, e.g. {head}.id or {head}['id']", compiler.text, node.pos
        )
    value = _root(compiler, node, node.steps[0])
    for step in node.steps[1:]:
        value = _Step(compiler, node, value).apply(step)
    return value


def _root(compiler: RuleCompiler, node: nodes.Selection, first: nodes.Node) -> Value:
    schema = compiler.schemas[node.head]
    text = f"${node.head}{first}"
    if isinstance(first, nodes.Field):
        field = find_field(schema, first.name)
        if field is None:
            raise UnknownFieldError(
                f"unknown field {first.name!r} of ${node.head}; its columns are {schema.names}",
                compiler.text,
                first.pos,
            )
        return Value(compiler.ref(node.head, field.name), field.dataType, text)
    if isinstance(first, nodes.Call) and first.name == "json" and not first.args:
        strings = [f.name for f in schema.fields if isinstance(f.dataType, T.StringType)]
        name = strings[0] if len(strings) == 1 else "value" if "value" in strings else None
        if name is None:
            raise RuleTypeError(
                f"${node.head}.json() parses the data source's only string column (or 'value'), "
                f"but its string columns are {strings}; use ${node.head}.<column>.json()",
                compiler.text,
                first.pos,
            )
        return Value(F.try_parse_json(compiler.ref(node.head, name)), T.VariantType(), text)
    raise UnknownFieldError(
        f"a selection starts with a field: ${node.head}.name or ${node.head}['name'], or with "
        f"${node.head}.json()",
        compiler.text,
        first.pos,
    )


def find_field(schema: T.StructType, name: str) -> T.StructField | None:
    """The field called `name`, matched case-insensitively when not exactly (as Spark does)."""
    exact = [f for f in schema.fields if f.name == name]
    loose = [f for f in schema.fields if f.name.lower() == name.lower()]
    return (exact or loose)[0] if exact or loose else None


class _Step:
    """Applies one step to the value selected so far."""

    def __init__(self, compiler: RuleCompiler, node: nodes.Selection, value: Value) -> None:
        self.compiler = compiler
        self.node = node
        self.value = value

    def fail(self, message: str, step: nodes.Node) -> RuleTypeError:
        return RuleTypeError(message, self.compiler.text, step.pos)

    def result(self, column: Column, dtype: T.DataType, step: nodes.Node) -> Value:
        return Value(column, dtype, f"{self.value.text}{step}")

    def apply(self, step: nodes.Node) -> Value:
        kind, dtype = self.value.category, self.value.dtype
        if isinstance(step, nodes.Call):
            return self.call(step)
        if isinstance(step, nodes.Field):
            return self.field(step)
        for expression in step.children():
            if expression.sides() - {self.node.head}:
                raise self.fail(
                    f"a selection of ${self.node.head} cannot use values of the other data source "
                    f"inside [...]: {expression}",
                    expression,
                )
        if kind == "json":
            return _Step(self.compiler, self.node, self.json_items()).apply(step)
        if isinstance(step, nodes.Index) and isinstance(dtype, T.MapType):
            key = self.compiler.value(step.index)
            if key.category != category(dtype.keyType):
                raise self.fail(
                    f"the keys of {self.value.describe()} are not {type_name(key.dtype)}s", step
                )
            return self.result(
                F.try_element_at(self.value.column, key.column), dtype.valueType, step
            )
        if not isinstance(dtype, T.ArrayType):
            raise self.fail(f"{self.value.describe()} is not an array: {step} needs one", step)
        if isinstance(step, nodes.AllItems):
            return self.result(self.value.column, dtype, step)
        if isinstance(step, nodes.Index):
            return self.result(self.item(step.index), dtype.elementType, step)
        if isinstance(step, nodes.Slice):
            first, last = (self.position(n, "a slice bound") for n in (step.start, step.end))
            length = max(last - first + 1, 0)
            return self.result(F.slice(self.value.column, first + 1, length), dtype, step)
        assert isinstance(step, nodes.Filter)
        return self.filter(step, dtype)

    def call(self, step: nodes.Call) -> Value:
        if step.name != "json" or step.args:
            raise UnknownFieldError(
                f"unknown function {step.name}() with {len(step.args)} argument(s); "
                "the supported function is json()",
                self.compiler.text,
                step.pos,
            )
        if self.value.category == "json":
            return self.result(F.try_parse_json(as_text(self.value.column)), T.VariantType(), step)
        if self.value.category != "string":
            raise self.fail(f"json() parses strings, not {self.value.describe()}", step)
        return self.result(F.try_parse_json(self.value.column), T.VariantType(), step)

    def field(self, step: nodes.Field) -> Value:
        extract, dtype = self.member(self.value, step)
        return self.result(extract(self.value.column), dtype, step)

    def member(
        self, value: Value, step: nodes.Field
    ) -> tuple[Callable[[Column], Column], T.DataType]:
        """How to take field `step` out of a column typed like `value`, and the field's type."""
        dtype = value.dtype
        if value.category == "json":
            path = self.json_path(step)
            return lambda c: F.try_variant_get(c, path, "variant"), T.VariantType()
        if isinstance(dtype, T.MapType) and isinstance(dtype.keyType, T.StringType):
            return lambda c: F.try_element_at(c, F.lit(step.name)), dtype.valueType
        element = dtype.elementType if isinstance(dtype, T.ArrayType) else dtype
        if not isinstance(element, T.StructType):
            raise self.fail(
                f"{value.describe()} has no fields: {step} needs a struct, a map with string "
                "keys or a JSON value",
                step,
            )
        found = find_field(element, step.name)
        if found is None:
            raise UnknownFieldError(
                f"unknown field {step.name!r} of {value.text}; its fields are {element.names}",
                self.compiler.text,
                step.pos,
            )
        name, result = found.name, found.dataType
        if isinstance(dtype, T.ArrayType):  # Spark extracts the field of every item
            result = T.ArrayType(result)
        return lambda c: c.getField(name), result

    def json_path(self, step: nodes.Field) -> str:
        """The variant path of one key: ``$['name']`` (``$["it's"]`` when it has a quote)."""
        if "'" not in step.name:
            return f"$['{step.name}']"
        if '"' not in step.name:
            return f'$["{step.name}"]'
        raise self.fail(f"JSON keys with both quote characters are not supported: {step}", step)

    def json_items(self) -> Value:
        column = F.try_variant_get(self.value.column, "$", "array<variant>")
        return Value(column, JSON_ARRAY, self.value.text)

    def item(self, index: nodes.Node) -> Column:
        if isinstance(index, nodes.Literal) and type(index.value) is int:
            fixed = index.value + 1 if index.value >= 0 else index.value  # Spark counts from 1
            return F.try_element_at(self.value.column, F.lit(fixed))
        value = self.compiler.value(index)
        if value.category != "number":
            raise self.fail(f"an array index must be a number, not {value.describe()}", index)
        position = F.when(value.column >= 0, value.column + 1).otherwise(value.column)
        return F.try_element_at(self.value.column, position.cast("int"))

    def position(self, node: nodes.Node, what: str) -> int:
        if not (isinstance(node, nodes.Literal) and type(node.value) is int and node.value >= 0):
            raise self.fail(f"{what} must be a non-negative integer, not {node}", node)
        return int(node.value)

    def filter(self, step: nodes.Filter, dtype: T.ArrayType) -> Value:
        wanted = self.compiler.value(step.value)
        item = Value(F.lit(None), dtype.elementType, f"each item of {self.value.text}")
        name = nodes.Field(step.pos, step.name)
        extract, field_type = self.member(item, name)
        text = f"{self.value.text}[*]{name}"

        def keep(element: Column) -> Column:
            field = Value(extract(element), field_type, text)
            return self.compiler.compare(step.op, field, wanted, step)

        first = F.try_element_at(F.filter(self.value.column, keep), F.lit(1))
        return self.result(first, dtype.elementType, step)
