"""Column names as users write them, resolved against a schema: the one place that quotes them.

The rule, for every analyzer, ``group_by`` and column-based check:

1. a name that is a top-level column is taken literally, whatever characters it has
   (``user.name``, ``first name``, ``a`b``, ``order``, ``größe``, ``1st``);
2. otherwise a dotted name that is a path of nested struct fields is that path (``a.b`` is field
   ``b`` of struct column ``a``, as in Deequ);
3. otherwise a path quoted as Spark SQL quotes it (```a`.`b```) is that path: the way to name
   field ``b`` of struct ``a`` when a top-level column is literally called ``a.b``;
4. otherwise the column does not exist, and the metric fails saying so.

Names are matched exactly (case included), as the schema spells them. `where` filters and
`Compliance` predicates are SQL written by the user and are not rewritten: quote names there
as Spark SQL does, in backticks, doubling a backtick inside a name.

>>> from anomaly.analyzers import Compliance, Mean
>>> Mean("first name", where="`order type` = 'web' AND `a``b` > 0").metric_id
"Mean(first name) where: `order type` = 'web' AND `a``b` > 0"
>>> Compliance("adult", "`user.age` >= 18 AND `a`.`b` IS NOT NULL").metric_id
'Compliance(adult: `user.age` >= 18 AND `a`.`b` IS NOT NULL)'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import DataType, StructType


def resolve(schema: StructType, name: str) -> tuple[str, ...] | None:
    """The field path `name` refers to in `schema`, or None when there is none.

    Examples
    --------
    >>> from pyspark.sql.types import LongType, StructField, StructType
    >>> inner = StructType([StructField("b", LongType()), StructField("c.d", LongType())])
    >>> schema = StructType([StructField("a.b", LongType()), StructField("a", inner)])
    >>> resolve(schema, "a.b"), resolve(schema, "a.c.d"), resolve(schema, "a.x")
    (('a.b',), ('a', 'c.d'), None)
    >>> resolve(schema, "`a`.`b`")  # the struct's field, not the top-level `a.b`
    ('a', 'b')
    """
    from pyspark.sql.types import StructType

    if name in schema.names:
        return (name,)  # the literal name wins over any nested reading of its dots
    quoted = _quoted_path(name)
    if quoted is not None:
        return quoted if _exists(schema, quoted) else None
    start = 0
    while (dot := name.find(".", start)) > 0:
        head, start = name[:dot], dot + 1
        if head in schema.names and isinstance(kind := schema[head].dataType, StructType):
            rest = resolve(kind, name[start:])
            if rest is not None:
                return (head, *rest)
    return None


def _quoted_path(name: str) -> tuple[str, ...] | None:
    """The parts of a fully quoted path (```a`.`b.c```), None when `name` is not one."""
    parts: list[str] = []
    i = 0
    while i < len(name) and name[i] == "`":
        end = _token_end(name, i)
        if end > len(name) or name[end - 1] != "`" or end - i < 2:
            return None
        parts.append(name[i + 1 : end - 1].replace("``", "`"))
        if end == len(name):
            return tuple(parts)
        if name[end] != ".":
            return None
        i = end + 1
    return None


def _exists(schema: StructType, path: Sequence[str]) -> bool:
    from pyspark.sql.types import StructType

    kind: object = schema
    for part in path:
        if not isinstance(kind, StructType) or part not in kind.names:
            return False
        kind = kind[part].dataType
    return True


def quote(path: str | Sequence[str]) -> str:
    """A name (or field path) as a Spark SQL identifier: each part in backticks.

    >>> quote("first name"), quote("a`b"), quote(("a", "b.c"))
    ('`first name`', '`a``b`', '`a`.`b.c`')
    """
    parts = (path,) if isinstance(path, str) else path
    return ".".join("`" + part.replace("`", "``") + "`" for part in parts)


def sql_name(schema: StructType, name: str) -> str:
    """`name` as a SQL identifier for `schema` (the literal name when it does not resolve)."""
    return quote(resolve(schema, name) or (name,))


def col(schema: StructType, name: str) -> Column:
    """The Spark column `name` refers to; use this, never ``F.col(name)``, for user names."""
    from pyspark.sql import functions as F

    return F.col(sql_name(schema, name))


def field_type(schema: StructType, name: str) -> DataType:
    """The Spark type of the column `name` refers to; `KeyError` when it does not exist."""
    path = resolve(schema, name)
    if path is None:
        raise KeyError(name)
    kind: DataType = schema
    for part in path:
        kind = kind[part].dataType  # type: ignore[index]  # a StructType on every step but last
    return kind


def missing_column(schema: StructType, names: Sequence[str]) -> str | None:
    """The first of `names` that does not resolve in `schema`, or None."""
    return next((name for name in names if resolve(schema, name) is None), None)


def nested_references(sql: str, schema: StructType, names: Sequence[str]) -> str:
    """`sql` with each quoted `names` reference (```a.b```) that is a nested path made one.

    Code that builds SQL for a user's column name (the checks' predicates) quotes it literally;
    this applies the second rule to those references. String literals are left as they are.

    >>> from pyspark.sql.types import LongType, StructField, StructType
    >>> schema = StructType([StructField("a", StructType([StructField("b", LongType())]))])
    >>> nested_references("`a.b` IN ('`a.b`')", schema, ["a.b"])
    "`a`.`b` IN ('`a.b`')"
    """
    paths = {quote(n): quote(p) for n in names if (p := resolve(schema, n)) and len(p) > 1}
    if not paths:
        return sql
    pieces: list[str] = []
    i = 0
    while i < len(sql):
        end = _token_end(sql, i)
        token = sql[i:end]
        pieces.append(paths.get(token, token))
        i = end
    return "".join(pieces)


def _token_end(sql: str, start: int) -> int:
    """End of the token at `start`: a quoted string or identifier, else one character."""
    quote_char = sql[start]
    if quote_char not in "`'\"":
        return start + 1
    i = start + 1
    while i < len(sql):
        if sql[i] == "\\" and quote_char != "`":
            i += 2
        elif sql[i] == quote_char:
            if quote_char == "`" and sql[i + 1 : i + 2] == "`":
                i += 2  # a doubled backtick is one backtick of the name
            else:
                return i + 1
        else:
            i += 1
    return len(sql)
