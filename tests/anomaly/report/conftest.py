"""Fixtures of the report tests: a repository with every kind of content, and one headless
Chromium for the whole session (Debian's ``chromium`` and ``chromium-driver``)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from anomaly.report.chromium import chromium, chromium_missing
from repository import AnomalyVerdict, CheckOutcome, MetricRecord, MetricsRepository, ResultKey

DAY0 = datetime(2026, 1, 1, tzinfo=UTC)
DAYS = 40
XSS_GROUP = "<script>alert(1)</script>"
XSS_DATASET = '<img src=x onerror="window.__pwned=1">'
XSS_NOTE = '<img src=x onerror="window.__pwned=2"> restored from backup'
COUNTRIES = ["DE", "FR", XSS_GROUP]


def day(n: int) -> datetime:
    """Midnight UTC of day ``n`` after 2026-01-01."""
    return DAY0 + timedelta(days=n)


def fill_repository(repo: MetricsRepository) -> None:
    """40 days of two datasets: ``orders`` (Size and Mean per country, one group named like a
    script, drops on days 20 and 33) and an HTML-named dataset with a failing metric; verdicts,
    outcomes, annotations and scan-log rows."""
    for n in range(DAYS):
        records, verdicts = [], []
        for i, country in enumerate(COUNTRIES):
            base = 100.0 * (i + 1) + 5 * math.sin(n / 7 * 2 * math.pi)
            size = base * (0.4 if n in (20, 33) and country != "FR" else 1.0)
            group = {"country": country}
            records.append(MetricRecord("Dataset", "*", "Size", "Size(*)", size, group))
            records.append(MetricRecord("Column", "price", "Mean", "Mean(price)", 10 + i, group))
            if n >= 7:
                status = "anomaly" if size < 0.8 * base else "normal"
                verdicts.append(
                    AnomalyVerdict(
                        "Size(*)",
                        status,
                        "OnlineNormal",
                        size,
                        base - 12,
                        base + 12,
                        score=0.99,
                        detail=f"[OnlineNormal] {country}",
                        history_length=n,
                        group=group,
                    )
                )
                verdicts.append(
                    AnomalyVerdict(
                        "Mean(price)", "normal", "RobustMAD", 10.0 + i, 9.0 + i, None, group=group
                    )
                )
        outcomes = [
            CheckOutcome(
                "orders checks",
                "is_complete(price)",
                "Failure" if n % 10 == 9 else "Success",
                level="Error",
                metric_id="Completeness(price)",
                value=0.97,
            )
        ]
        repo.save(
            ResultKey(day(n), {"dataset": "orders", "scan": "orders_daily"}),
            records,
            verdicts=verdicts,
            outcomes=outcomes,
        )
        failing = n == DAYS - 1
        other = [
            MetricRecord(
                "Dataset",
                "*",
                "Size",
                "Size(*)",
                None if failing else 50.0 + n % 3,
                error="column 'x' does not exist" if failing else None,
            )
        ]
        judged = (
            [AnomalyVerdict("Size(*)", "error", "OnlineNormal", detail="could not compute")]
            if failing
            else []
        )
        repo.save(
            ResultKey(day(n), {"dataset": XSS_DATASET, "scan": "odd_daily"}), other, verdicts=judged
        )
    repo.annotate("incident", day(20), metric="Size(*)", group={"country": "DE"}, note=XSS_NOTE)
    repo.annotate("expected", day(33), day(34), tags={"dataset": "orders"}, note="migration")
    for scan, status, error in (("orders_daily", "ok", None), ("odd_daily", "failed", "boom")):
        log_id = repo.scan_log.start(scan, day(DAYS - 1) + timedelta(hours=6))
        repo.scan_log.finish(log_id, status, error, day(DAYS - 1) + timedelta(hours=6, seconds=9))


@pytest.fixture(scope="session")
def report_repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository file filled by `fill_repository` (shared: tests only read it)."""
    path = tmp_path_factory.mktemp("report") / "metrics.duckdb"
    repo = MetricsRepository(path)
    fill_repository(repo)
    return path


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where browser tests save screenshots (``ANOMALY_SCREENSHOTS`` or a temporary folder)."""
    chosen = os.environ.get("ANOMALY_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the session (`anomaly.report.chromium`)."""
    reason = chromium_missing()
    if reason is not None:
        pytest.skip(reason)
    with chromium() as driver:
        yield driver
