"""Seed 002's example rules, and generated source/target pairs with known mismatches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The seed's examples, verbatim: 1. two hive tables, 2. JSON strings from Kafka.
EXAMPLE_1 = (
    "$source.user_id = $target.user_id AND $source.first_name = $target.first_name AND "
    "$source.last_name = $target.last_name AND $source.address = $target.address AND "
    "$source.email = $target.email AND $source.phone = $target.phone AND "
    "$source.post_code = $target.post_code"
)
EXAMPLE_2 = (
    "IF ( $source.__time + 24h <= $target.__time ) "
    "$source.json().seeds.json().url = "
    "$target.json().groups[0].attrsList['name' = 'URL'].values[0] AND "
    "$source.json().seeds.json().metadata.json().tracker.crawlRequestCreateTS = "
    "$target.json().groups[0].attrsList['name' = 'CRAWLMETADATA'].values[0]"
    ".json().tracker.crawlRequestCreateTS"
)
FIELDS = ["user_id", "first_name", "last_name", "address", "email", "phone", "post_code"]
Row = dict[str, Any]


def person(i: int) -> Row:
    return {
        "user_id": i, "first_name": f"f{i}", "last_name": f"l{i}", "address": f"{i} Main St",
        "email": f"u{i}@example.org", "phone": f"555-{i:04d}", "post_code": f"{10000 + i}",
    }  # fmt: skip


@dataclass(frozen=True)
class Case:
    """How a group of source rows is copied to the target, and whether they should match."""

    name: str
    matches: bool
    source_copies: int = 1


CASES = [
    Case("same", True),
    Case("missing", False),  # no target row
    Case("changed", False),  # the target's email differs
    Case("null_both", True),  # post_code null on both sides: null equals null
    Case("null_source", False),  # phone null in the source only
    Case("null_key", True),  # user_id null on both sides, the other fields equal
    Case("dup_target", True),  # three identical target rows
    Case("dup_target_one_good", True),  # two target rows, one changed, one equal
    Case("dup_target_all_bad", False),  # two target rows, both changed
    Case("dup_source", True, source_copies=2),  # each source row twice, one target row
]
PER_CASE = 6


def generate() -> tuple[list[Row], list[Row]]:
    """Source rows (with a ``case`` column) and target rows (with a ``loaded_at`` column)."""
    source: list[Row] = []
    target: list[Row] = []
    next_id = 0
    for case in CASES:
        for _ in range(PER_CASE):
            next_id += 1
            row = person(next_id)
            if case.name == "null_both":
                row["post_code"] = None
            if case.name == "null_key":
                row["user_id"] = None
            copy = dict(row)
            changed = {**row, "email": "changed@example.org"}
            if case.name == "null_source":
                row["phone"] = None
            copies = {
                "missing": [],
                "changed": [changed],
                "dup_target": [copy, copy, copy],
                "dup_target_one_good": [changed, copy],
                "dup_target_all_bad": [changed, {**row, "phone": "0"}],
            }.get(case.name, [copy])
            source += [{**row, "case": case.name}] * case.source_copies
            target += [{**c, "loaded_at": "2024-01-02"} for c in copies]
    # Target rows no source row asks for change nothing.
    target += [{**person(1000 + i), "loaded_at": "2024-01-02"} for i in range(5)]
    return source, target


def expected(source: list[Row]) -> dict[str, tuple[int, int]]:
    """Case -> (matched, total) by construction."""
    matches = {case.name: case.matches for case in CASES}
    counts: dict[str, tuple[int, int]] = {}
    for row in source:
        matched, total = counts.get(row["case"], (0, 0))
        counts[row["case"]] = (matched + matches[row["case"]], total + 1)
    return counts


def unmatched_keys(source: list[Row]) -> dict[str, set[tuple[Any, ...]]]:
    """Case -> the index key tuples of the source rows that must not match."""
    matches = {case.name: case.matches for case in CASES}
    keys: dict[str, set[tuple[Any, ...]]] = {}
    for row in source:
        if not matches[row["case"]]:
            keys.setdefault(row["case"], set()).add(tuple(row[f] for f in FIELDS))
    return keys
