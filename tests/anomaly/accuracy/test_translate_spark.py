"""Rule expressions on Spark: null semantics, operators, selections, JSON, and schema errors.

All predicates are evaluated in ONE select over a frame holding a source and a target row side
by side (columns ``s_*`` and ``t_*``), so the semantics are checked without any join.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING, Any

import pytest
from pyspark.sql import functions as F
from pyspark.sql import types as T

from anomaly.accuracy import RuleTypeError, UnknownFieldError, parse_rule
from anomaly.accuracy.translate import Compiler

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

SIDE_DDL = (
    "id int, name string, amount double, ts timestamp, day date, ms bigint, flag boolean, "
    "tags array<string>, person struct<name: string, address: struct<city: string>>, "
    "attrs map<string, int>, items array<struct<name: string, v: int>>, doc string"
)
DAY = dt.datetime(2024, 1, 1)
DOC = json.dumps({"a": {"b": [1, 2]}, "s": json.dumps({"u": 5}), "n": 1.5})
ANN = {
    "id": 1, "name": "ann", "amount": 10.0, "ts": DAY, "day": dt.date(2023, 12, 31), "ms": 1000,
    "flag": True, "tags": ["a", "b", "c"], "person": {"name": "ann", "address": {"city": "Oslo"}},
    "attrs": {"k": 1}, "items": [{"name": "x", "v": 1}, {"name": "URL", "v": 7}], "doc": DOC,
}  # fmt: skip
NOTHING: dict[str, Any] = {}
# Three (source, target) pairs: equal but for time; source all null; different values.
PAIRS = [
    (ANN, {**ANN, "ts": DAY + dt.timedelta(hours=24), "ms": 1000 + 86_400_000}),
    (NOTHING, {"name": "bob", "amount": 3.0}),
    (
        {"id": 2, "name": "x", "amount": 5.0, "ts": DAY, "ms": 0, "tags": [],
         "person": {"name": None, "address": None}, "doc": '{"a": 1'},
        {"id": 3, "name": "y", "amount": 0.0, "ts": DAY + dt.timedelta(hours=12), "ms": 5,
         "tags": ["q"], "person": {"name": None, "address": None}, "doc": '{"a": {"b": [9]}}'},
    ),
]  # fmt: skip

# (predicate, expected value on each pair)
CASES = [
    # = and != are null-safe; ordering comparisons with null are false; NOT is the complement
    ("$source.id = $target.id", [True, True, False]),
    ("$source.name = $target.name", [True, False, False]),
    ("$source.name != $target.name", [False, True, True]),
    ("$source.id != null", [True, False, True]),
    ("$source.id = null", [False, True, False]),
    ("$source.amount < $target.amount", [False, False, False]),
    ("NOT $source.amount < $target.amount", [True, True, True]),
    ("$source.amount >= $target.amount", [True, False, True]),
    ("$source.id = 1 OR $source.amount > 4", [True, False, True]),
    # IN / BETWEEN
    ("$source.id IN (1, 2)", [True, False, True]),
    ("$source.id IN (1, null)", [True, True, False]),
    ("$source.id NOT IN (1, 2)", [False, True, False]),
    ("$source.id IN ()", [False, False, False]),
    ("$source.amount BETWEEN (5, 10)", [True, False, True]),
    ("$source.amount NOT BETWEEN 6 AND 20", [False, True, True]),
    # arithmetic: null propagates, division by zero is null, + concatenates strings
    ("$source.amount * 2 - 10 = $target.amount + 0", [True, False, True]),
    ("$source.amount / $target.amount = 1", [True, False, False]),
    ("$source.amount / $target.amount = null", [False, True, True]),
    ("$source.id % 2 = 1 AND -$source.id = -1", [True, False, False]),
    ("$source.name + '!' = 'ann!'", [True, False, False]),
    ("'n=' + $source.id = 'n=1'", [True, False, False]),
    # time literals: intervals next to timestamps, milliseconds next to numbers
    ("$source.ts + 24h = $target.ts", [True, True, False]),  # null + 24h = null
    ("$target.ts - $source.ts <= 12h", [False, False, True]),
    ("$source.ms + 24h = $target.ms", [True, True, False]),
    ("$source.ts + 1d - 1h - 23h = $source.ts", [True, True, True]),
    ("$source.day < $source.ts", [True, False, False]),
    ("$source.flag = true", [True, False, False]),
    # arrays: 0-based, negative from the end, out of range is null, expressions as index
    ("$source.tags[0] = 'a' AND $source.tags[-1] = 'c'", [True, False, False]),
    ("$source.tags[5] = null", [True, True, True]),
    ("$source.tags[$source.id] = 'b'", [True, False, False]),
    ("$source.tags[(0, 1)] = $target.tags[(0, 1)]", [True, True, False]),
    ("$source.tags[*] = $target.tags", [True, True, False]),
    # structs and maps
    ("$source.person.address.city = 'Oslo'", [True, False, False]),
    ("$source['person']['name'] = $target.person.name", [True, True, True]),
    ("$source.attrs.k = 1 AND $source.attrs['k'] = 1", [True, False, False]),
    ("$source.attrs['zz'] = null", [True, True, True]),
    ("$source.items.name = $target.items.name", [True, True, True]),
    # filters: the first item whose field compares true
    ("$source.items['name' = 'URL'].v = 7", [True, False, False]),
    ("$source.items['v' > $source.id].name = 'URL'", [True, False, False]),
    # JSON strings: keys, indexes, nested json(), typed comparison, malformed -> null
    ("$source.doc.json().a.b[1] = 2", [True, False, False]),
    ("$source.doc.json().s.json().u = 5", [True, False, False]),
    ("$source.doc.json().n = 1.5 AND $source.doc.json().n > 1", [True, False, False]),
    ("$source.doc.json().a = $target.doc.json().a", [True, True, False]),
    ("$source.doc.json()['missing'] = null", [True, True, True]),
    ("$source.doc.json() = null", [False, True, True]),
    ("$source.doc.json().a.b[*] = $target.doc.json().a.b[*]", [True, True, False]),
    ("$source.doc.json().a.b = $target.doc.json()['a']['b']", [True, True, False]),
]


@pytest.fixture(scope="module")
def schema(spark: SparkSession) -> T.StructType:
    """The columns of each side (DDL parsing needs the JVM)."""
    return T.StructType.fromDDL(SIDE_DDL)


def wide(spark: SparkSession, schema: T.StructType) -> DataFrame:
    fields = [T.StructField(f"{p}_{f.name}", f.dataType) for p in "st" for f in schema.fields]
    rows = [tuple(side.get(f.name) for side in pair for f in schema.fields) for pair in PAIRS]
    return spark.createDataFrame(rows, T.StructType(fields))


def compiler(text: str, schema: T.StructType) -> Compiler:
    def ref(side: str, name: str) -> Column:
        return F.col(f"{side[0]}_{name}")

    return Compiler(text, {"source": schema, "target": schema}, ref)


def test_predicates_evaluate_as_documented(spark: SparkSession, schema: T.StructType) -> None:
    columns = [
        compiler(rule, schema).predicate(parse_rule(rule).mapping).alias(f"c{i}")
        for i, (rule, _) in enumerate(CASES)
    ]
    rows = wide(spark, schema).select(*columns).collect()  # one Spark job for every case
    wrong = {
        rule: [row[i] for row in rows]
        for i, (rule, expected) in enumerate(CASES)
        if [row[i] for row in rows] != expected
    }
    assert not wrong


# (rule, error class, message fragment, column)
ERRORS = [
    ("$source.nope = 1", UnknownFieldError, "unknown field 'nope' of $source; its columns", 9),
    ("$source.person.nope = 1", UnknownFieldError, "its fields are ['name', 'address']", 16),
    ("$source.items['nope' = 1].v = 1", UnknownFieldError, "unknown field 'nope'", 15),
    ("$source.name.foo() = 1", UnknownFieldError, "unknown function foo()", 14),
    ("$source = 1", UnknownFieldError, "select a field of $source", 1),
    (
        "$source.name = $target.id",
        RuleTypeError,
        "cannot compare $source.name (string) with $target.id (int)",
        14,
    ),
    (
        "$source.id + 'a' = 1",
        RuleTypeError,
        "cannot compare ($source.id + 'a') (string) with 1 (bigint)",
        18,
    ),
    (
        "$source.ts + 1 = $target.ts",
        RuleTypeError,
        "cannot apply '+' to $source.ts (timestamp) and 1 (bigint)",
        12,
    ),
    ("$source.tags < $target.tags", RuleTypeError, "cannot order $source.tags", 14),
    ("$source.tags = $target.items", RuleTypeError, "cannot compare", 14),
    ("$source.id.json() = 1", RuleTypeError, "json() parses strings, not $source.id (int)", 12),
    ("$source.json() = 1", RuleTypeError, "string columns are ['name', 'doc']", 9),
    ("$source.name[0] = 1", RuleTypeError, "$source.name (string) is not an array", 14),
    ("$source.tags[$target.id] = 'a'", RuleTypeError, "cannot use values of the other", 14),
    ("$source.tags['x' = 1] = 1", RuleTypeError, "has no fields", 14),
    ("$source.attrs = $target.attrs", RuleTypeError, "Spark cannot compare maps", 15),
    ("$source.attrs[1] = 1", RuleTypeError, "keys of $source.attrs (map<string,int>) are not", 15),
    ("$source.tags[(1, 0.5)] = 1", RuleTypeError, "must be a non-negative integer", 18),
    ("$source.tags['a'] = 1", RuleTypeError, "has no fields", 14),
]


@pytest.mark.parametrize(("rule", "kind", "message", "column"), ERRORS, ids=[e[0] for e in ERRORS])
def test_schema_errors_point_at_the_column(
    schema: T.StructType, rule: str, kind: type[Exception], message: str, column: int
) -> None:
    with pytest.raises(kind) as caught:
        compiler(rule, schema).predicate(parse_rule(rule).mapping)
    assert message in str(caught.value)
    assert caught.value.column == column, str(caught.value)  # type: ignore[attr-defined]
