"""Findings in words: which column, what changed, since when, and the history judged on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from anomaly.judging.report import Finding, ScanReport
from anomaly.monitors.explain import explain, what
from anomaly.monitors.schema_diff import SCHEMA_DETECTOR
from repository import AnomalyVerdict, MetricRecord, MetricsRepository, ResultKey

TAGS = {"dataset": "orders", "scan": "orders"}
METRIC = "ColumnHealth(email)[completeness]"


def day(n: int) -> datetime:
    return datetime(2026, 3, 1, tzinfo=UTC) + timedelta(days=n)


@pytest.mark.parametrize(
    ("metric", "value", "expected"),
    [
        ("ColumnHealth(email)[completeness]", 0.5, ("completeness of column email", "50.0%")),
        ("ColumnHealth(status)[share:ok]", 0.9, ("share of 'ok' in column status", "90.0%")),
        ("ColumnHealth(price)[mean]", 12.5, ("mean of column price", "12.5")),
        ("ColumnHealth(ts)[latest]", 0.0, ("latest of column ts", "1970-01-01 00:00:00 UTC")),
        ("Timeliness(ts, loaded_at)[p95]", 5400.0,
         ("p95 latency from ts to loaded_at", "1h30m")),
        ("Timeliness(ts, loaded_at, threshold: 60s)[late_share]", 0.25,
         ("late_share latency from ts to loaded_at", "25.0%")),
        ("Freshness(*)", 90.0, ("lag of the files' last change", "1m30s")),
        ("Size(*)", 1234.0, ("row count", "1,234")),
        ("Mean(x)", None, ("Mean(x)", "-")),
    ],
)  # fmt: skip
def test_what_a_metric_measures(
    metric: str, value: float | None, expected: tuple[str, str]
) -> None:
    assert what(metric, value) == expected


def test_a_finding_says_what_since_when_and_on_which_history() -> None:
    repo = MetricsRepository(":memory:")
    for n in range(5):
        value = 0.99 if n < 3 else 0.5
        status = "normal" if n < 3 else "anomaly"
        key = ResultKey(day(n), TAGS)
        record = MetricRecord("Column", "email", "ColumnHealth.completeness", METRIC, value)
        verdict = AnomalyVerdict(METRIC, status, "Adaptive", value=value, lower=0.97, upper=1.0)
        repo.save(key, [record], verdicts=[verdict])
    verdict = AnomalyVerdict(METRIC, "anomaly", "Adaptive", value=0.5, lower=0.97, upper=1.0)
    report = ScanReport("orders", day(4), "day", [Finding(verdict, "warning")])
    lines = explain(report.findings[0], report, repo, TAGS)
    assert lines == [
        "2026-03-05 WARNING ColumnHealth(email)[completeness]: completeness of column email is "
        "50.0%, expected 97.0% .. 100.0%",
        "    judged by Adaptive on 4 earlier runs, 2026-03-01 .. 2026-03-04; anomalous since "
        "2026-03-04 (2 runs in a row)",
    ]


def test_a_schema_finding_shows_both_schemas_around_the_change() -> None:
    repo = MetricsRepository(":memory:")
    fields = [{"name": f"c{i}", "type": "long", "nullable": True} for i in range(9)]
    repo.save_schema(ResultKey(day(0), TAGS), {"type": "struct", "fields": fields})
    changed = [*fields[:4], {**fields[4], "type": "string"}, *fields[5:]]
    repo.save_schema(ResultKey(day(1), TAGS), {"type": "struct", "fields": changed})
    detail = "column c4 retyped: bigint -> string. Previous schema (...): ..."
    verdict = AnomalyVerdict("Schema(c4)", "anomaly", SCHEMA_DETECTOR, detail=detail)
    report = ScanReport("orders", day(1), "day", [Finding(verdict, "error")])
    assert explain(report.findings[0], report, repo, TAGS) == [
        "2026-03-02 ERROR Schema(c4): column c4 retyped: bigint -> string",
        "    before (2026-03-01): ..., c2 bigint?, c3 bigint?, c4 bigint?, c5 bigint?, "
        "c6 bigint?, ... (9 columns)",
        "    after  (2026-03-02): ..., c2 bigint?, c3 bigint?, c4 string?, c5 bigint?, "
        "c6 bigint?, ... (9 columns)",
    ]
