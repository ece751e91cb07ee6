"""Spark SQL text for the profiler's expressions and the suggestions' predicates."""

from __future__ import annotations


def quoted(column: str) -> str:
    """`column` as a Spark SQL identifier (backticks, doubled inside).

    >>> quoted("a.b"), quoted("odd`name")
    ('`a.b`', '`odd``name`')
    """
    return "`" + column.replace("`", "``") + "`"


def sql_text(value: str) -> str:
    r"""A Spark SQL string literal.

    >>> print(sql_text("it's \\d"))
    'it\'s \\d'
    """
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def as_double(column: str) -> str:
    """SQL for the column as a double, with nulls (and unparsable text) as 0 so they pass.

    >>> as_double("n")
    'COALESCE(TRY_CAST(`n` AS DOUBLE), 0.0)'
    """
    return f"COALESCE(TRY_CAST({quoted(column)} AS DOUBLE), 0.0)"
