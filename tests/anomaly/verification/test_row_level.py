"""Row-level results against a pandas reference: every row-level constraint kind, with nulls.

Each verdict column must equal a reference computed here from the documented semantics (SQL
three-valued logic for predicates; null = the row does not count), and the share of true
verdicts among the non-null ones must be the constraint's metric, per group for grouped checks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from pyspark.sql import DataFrame, SparkSession

from anomaly import Check, CheckLevel, VerificationResult, VerificationSuite, at_least

Verdict = bool | None
Reference = Callable[[pd.DataFrame], list[Verdict]]
COLUMNS = ["row", "id", "g", "email", "status", "amount", "price", "t", "start", "end"]
SCHEMA = (
    "row int, id int, g string, email string, status string, amount double, price string, "
    "t string, start int, end int"
)


def make_rows(n: int = 60, seed: int = 7) -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(seed)

    def pick(values: list[Any]) -> Any:
        return values[int(rng.integers(len(values)))]

    return [
        (
            i,
            pick([1, 2, 3, 5, 5, 7, 7, 7, None]) if i % 9 else 100 + i,  # id, duplicated
            pick(["a", "b", None]),  # g
            pick(["x@y.z", "bad", "p@q.r", None, ""]),  # email
            pick(["ok", "refund", "lost", None]),  # status
            pick([1.5, -2.0, 0.0, 12.0, None, 3.25]),  # amount
            pick(["1.5", " 2 ", "-3", "n/a", None, "1e2"]),  # price, text
            pick(["1", "2.5", "word", None, "7"]),  # t, text of mixed types
            pick([1, 2, None]),  # start
            pick([2, 1, None]),  # end
        )
        for i in range(n)
    ]


ROWS = make_rows()
FRAME = pd.DataFrame(ROWS, columns=COLUMNS).astype(object)
FRAME = FRAME.where(FRAME.notna(), None)


def number(text: Any) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def type_of(value: str | None) -> str | None:
    if value is None:
        return None
    if re.fullmatch(r"\s*[+-]?\d+\s*", value):
        return "Integral"
    return "Fractional" if number(value) is not None else "String"


def unique(d: pd.DataFrame, keys: list[str], counted: pd.Series) -> list[Verdict]:
    """Per row: its key occurs once among the counted rows (a key with a value); else None."""
    counted = counted & d[keys].notna().any(axis=1)
    tuples = [tuple(map(str, r)) for r in d[keys].itertuples(index=False)]
    counts = pd.Series([t for t, c in zip(tuples, counted, strict=True) if c]).value_counts()
    return [counts[t] == 1 if c else None for t, c in zip(tuples, counted, strict=True)]


def consistent_type(values: pd.Series) -> list[Verdict]:
    """Per value: it has the dominant type (integers count as decimals among decimals)."""
    kinds = [type_of(v) for v in values]
    seen = [k for k in kinds if k is not None]
    shares = {
        "Integral": seen.count("Integral"),
        "Fractional": seen.count("Integral") + seen.count("Fractional"),
        "String": seen.count("String"),
    }
    dominant = max(shares, key=lambda k: shares[k])  # Integral first: it wins a tie
    accepted = ("Integral", "Fractional") if dominant == "Fractional" else (dominant,)
    return [None if k is None else k in accepted for k in kinds]


def per_group(d: pd.DataFrame, verdicts: Reference) -> list[Verdict]:
    out: list[Verdict] = [None] * len(d)
    for _, part in d.groupby(d["g"].fillna("<null>"), sort=False):
        for index, verdict in zip(part.index, verdicts(part.reset_index(drop=True)), strict=True):
            out[index] = verdict
    return out


def inside(condition: pd.Series, verdicts: list[Verdict]) -> list[Verdict]:
    return [v if c else None for v, c in zip(verdicts, condition, strict=True)]


def everywhere(d: pd.DataFrame) -> pd.Series:
    return pd.Series(True, index=d.index)


Case = tuple[str, Callable[[Check], Check], Reference]
CASES: list[Case] = [
    ("is_complete(email)", lambda c: c.is_complete("email"),
     lambda d: [e is not None for e in d.email]),
    ("has_completeness(status)",
     lambda c: c.has_completeness("status", at_least(0.5), where="g = 'a'"),
     lambda d: inside(d.g == "a", [s is not None for s in d.status])),
    ("satisfies(big)", lambda c: c.satisfies("amount > 1 OR id > 6", "big"),
     lambda d: [(a is not None and a > 1) or (i is not None and i > 6)
                for a, i in zip(d.amount, d.id, strict=True)]),
    ("is_contained_in(status)", lambda c: c.is_contained_in("status", ["ok", "refund"]),
     lambda d: [s is None or s in ("ok", "refund") for s in d.status]),
    ("is_in_range(amount)", lambda c: c.is_in_range("amount", 0, 10),
     lambda d: [a is None or 0 <= a <= 10 for a in d.amount]),
    ("is_non_negative(price)", lambda c: c.is_non_negative("price"),
     lambda d: [p is None or ((number(p) or 0.0) >= 0 and number(p) is not None) for p in d.price]),
    ("is_less_than(start, end)", lambda c: c.is_less_than("start", "end"),
     lambda d: [s is not None and e is not None and s < e
                for s, e in zip(d.start, d.end, strict=True)]),
    ("has_pattern(email)", lambda c: c.has_pattern("email", r"^\S+@\S+$"),
     lambda d: [e is not None and re.search(r"^\S+@\S+$", e) is not None for e in d.email]),
    ("is_unique(id)", lambda c: c.is_unique("id"), lambda d: unique(d, ["id"], everywhere(d))),
    ("is_unique(row)", lambda c: c.is_unique("row"),  # unique: no count over the key needed
     lambda d: unique(d, ["row"], everywhere(d))),
    ("is_unique(id, g)", lambda c: c.is_unique("id", "g", where="status IS NOT NULL"),
     lambda d: unique(d, ["id", "g"], d.status.notna())),
    ("has_consistent_type(t)", lambda c: c.has_consistent_type("t"),
     lambda d: consistent_type(d.t)),
]  # fmt: skip
GROUPED: list[Case] = [
    ("is_unique(id)", lambda c: c.is_unique("id"),
     lambda d: per_group(d, lambda p: unique(p, ["id"], everywhere(p)))),
    ("has_consistent_type(t)", lambda c: c.has_consistent_type("t"),
     lambda d: per_group(d, lambda p: consistent_type(p.t))),
]  # fmt: skip


@pytest.fixture(scope="module")
def data(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame(ROWS, SCHEMA).cache()


@pytest.fixture(scope="module")
def result(spark: SparkSession, data: DataFrame) -> VerificationResult:
    plain, grouped = Check(CheckLevel.ERROR, "rows"), Check(CheckLevel.WARNING, "per g", ["g"])
    for _, build, _ in CASES:
        build(plain)
    for _, build, _ in GROUPED:
        build(grouped)
    return VerificationSuite(spark).on_data(data).add_checks([plain, grouped]).run()


@pytest.fixture(scope="module")
def verdicts(result: VerificationResult, data: DataFrame) -> pd.DataFrame:
    frame = result.row_level(data).toPandas().sort_values("row").reset_index(drop=True)
    return frame.astype(object).where(frame.notna(), None)


SHARED = {name for name, _, _ in GROUPED}
TABLE = [(n, f"{n} [rows]" if n in SHARED else n, "rows", r) for n, _, r in CASES] + [
    (n, f"{n} [per g]", "per g", r) for n, _, r in GROUPED
]


@pytest.mark.parametrize(("name", "column", "check", "reference"), TABLE, ids=[t[1] for t in TABLE])
def test_verdicts_match_the_reference_and_the_metric(
    verdicts: pd.DataFrame, result: VerificationResult, name: str, column: str, check: str,
    reference: Reference,
) -> None:  # fmt: skip
    got = [None if v is None else bool(v) for v in verdicts[column]]
    assert got == reference(FRAME)
    rows = [r for r in result.rows if r.check == check and r.constraint == name]
    assert len(rows) == (3 if check == "per g" else 1)  # groups a, b and null
    for row in rows:
        members = [not row.group or g == row.group["g"] for g in FRAME.g]
        counted = [v for v, m in zip(got, members, strict=True) if m and v is not None]
        assert sum(counted) / len(counted) == pytest.approx(row.value), (row.group, row.predicate)


def test_verdict_columns_follow_the_input(verdicts: pd.DataFrame) -> None:
    assert list(verdicts.columns[: len(COLUMNS)]) == COLUMNS
    assert len(verdicts) == len(ROWS)
    assert verdicts[COLUMNS].equals(FRAME)


@pytest.mark.parametrize("max_collected", [0, 1000], ids=["window", "broadcast"])
def test_both_ways_of_finding_duplicates_agree(data: DataFrame, max_collected: int) -> None:
    from pyspark.sql import functions as F

    from anomaly.verification.duplicates import unique_verdict

    counted = F.col("id").isNotNull() | F.col("g").isNotNull()
    joined, verdict = unique_verdict(data, ["id", "g"], counted, "dup", max_collected)
    got = joined.select("row", verdict.alias("v")).orderBy("row").collect()
    assert [r.v for r in got] == unique(FRAME, ["id", "g"], everywhere(FRAME))
