"""The Spark query of Accuracy: one existence join of source and target, one aggregation.

Each source row gets ``EXISTS (target rows satisfying the rule)``; Spark plans it as an
ExistenceJoin on the rule's equalities (null-safe hash/sort-merge keys) with the rest of the rule
as the join condition. A source row is counted once however many target rows match it, so
duplicates on the target side cannot inflate the matched count.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from typing import TYPE_CHECKING, Any

from pyspark.sql import functions as F

from anomaly.accuracy.plan import RulePlan
from anomaly.accuracy.state import AccuracyState
from anomaly.accuracy.translate import Compiler, comparable

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

SOURCE, TARGET = "__source", "__target"
MATCHED = "__accuracy_matched"


def qualified(alias: str, name: str) -> Column:
    """The column `name` of the DataFrame aliased `alias` (any characters in the name)."""
    return F.col(f"`{alias}`.`{name.replace('`', '``')}`")


def build_query(
    source: DataFrame,
    target: DataFrame,
    plan: RulePlan,
    groups: Sequence[str] = (),
    where: str | None = None,
    sample_size: int = 0,
    condition: Column | None = None,
) -> DataFrame:
    """The aggregation (one row per group) of `plan` on `source` vs `target`.

    `condition`, when given, must also hold for a target row to match (a correlated predicate
    on ``qualified(TARGET, ...)`` and ``qualified(SOURCE, ...).outer()``, e.g. a time bound).

    Columns: the group columns, ``total``, ``matched`` and, when `sample_size` > 0, ``sample``
    (up to `sample_size` structs ``(h, k)`` of unmatched key values ``k`` of smallest hash ``h``).
    Raises `RuleError` subclasses when the rule does not fit the schemas; starts no Spark job.
    """
    text = plan.rule.text
    schemas = {"source": source.schema, "target": target.schema}
    aliases = {"source": SOURCE, "target": TARGET}

    def plain(side: str, name: str) -> Column:
        return qualified(aliases[side], name)

    def correlated(side: str, name: str) -> Column:
        column = plain(side, name)
        return column.outer() if side == "source" else column

    rows, candidates = source.alias(SOURCE), target.alias(TARGET)
    if where:
        rows = rows.where(F.expr(where))
    for node in plan.source_filters:
        rows = rows.where(Compiler(text, schemas, plain).predicate(node))
    for node in plan.target_filters:
        candidates = candidates.where(Compiler(text, schemas, plain).predicate(node))
    matching = Compiler(text, schemas, correlated)
    predicates = list(map(matching.predicate, plan.conditions))
    if condition is not None:
        predicates.append(condition)
    flagged = rows.select(
        "*", candidates.where(reduce(lambda a, b: a & b, predicates)).exists().alias(MATCHED)
    )
    aggregates = [F.count(F.lit(1)).alias("total"), F.count_if(F.col(MATCHED)).alias("matched")]
    if sample_size:
        # Built inside CASE WHEN, so only for unmatched rows: the sample costs little when
        # most rows match.
        key = F.struct(*_keys(plan, Compiler(text, schemas, plain)))
        unmatched, hashed = ~F.col(MATCHED), F.xxhash64(key)
        entry = F.struct(hashed.alias("h"), key.alias("k"))
        sample = F.min_by(F.when(unmatched, entry), F.when(unmatched, hashed), sample_size)
        aggregates.append(sample.alias("sample"))
    return flagged.groupBy(*groups).agg(*aggregates)


def _keys(plan: RulePlan, compiler: Compiler) -> list[Column]:
    """The source side of each index equality, JSON values as text (they cannot be hashed)."""
    return [comparable(compiler.value(k.source)).alias(f"k{i}") for i, k in enumerate(plan.keys)]


def collect_states(
    query: DataFrame, groups: int, sample_size: int
) -> dict[tuple[Any, ...], AccuracyState]:
    """Run `query` (one Spark action) and turn its rows into states, by group key."""
    states = {}
    for row in query.collect():
        sample = tuple(
            (int(entry["h"]), tuple(_plain(v) for v in entry["k"]))
            for entry in (row["sample"] if sample_size else None) or ()
        )
        state = AccuracyState(int(row["matched"]), int(row["total"]), sample, sample_size)
        states[tuple(row[:groups])] = state
    return states


def _plain(value: Any) -> Any:
    """Spark Rows (struct keys) as dicts, so samples print and serialise plainly."""
    return value.asDict(recursive=True) if hasattr(value, "asDict") else value
