"""What the report's charts are given, checked without a browser: the value axis follows the
values (a band of millions on a hundred rows a day is cut), bands are clipped to the metric's
domain, durations carry their unit, scan statuses say what the scan found, and the stored
schema changes are a section."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from anomaly.report.snapshot import collect_snapshot
from repository import AnomalyVerdict, MetricRecord, MetricsRepository, ResultKey

DAY0 = datetime(2026, 1, 1, tzinfo=UTC)
DAYS = 30


def day(n: int) -> datetime:
    return DAY0 + timedelta(days=n)


def size_of(n: int) -> float:
    return 25.0 if n == DAYS - 1 else 100.0 + (n % 7) * 3  # the last day: a partial load


def verdicts_of(n: int) -> list[AnomalyVerdict]:
    """Size: a band of millions in the first week, then one near the values; completeness: a
    band from -3 to 3; freshness: upper-only, the last day a day late."""
    early = n < 7
    size, late = size_of(n), 86_400.0 if n == DAYS - 1 else 1800.0
    detail = f"[Adaptive] Value {size} is not in bounds [70.25643525886017, 130.41012415509968]"
    return [
        AnomalyVerdict("Size(*)", "anomaly" if n == DAYS - 1 else "normal", "Adaptive", size,
                       -4_000_000.0 if early else 70.0, 5_000_000.0 if early else 130.0,
                       detail=detail),
        AnomalyVerdict("Completeness(price)", "normal", "Adaptive", 0.98, -3.0, 3.0),
        AnomalyVerdict("Freshness(event_time)", "anomaly" if late > 3600 else "normal",
                       "UpperOnly(Adaptive)", late, None, 3600.0),
    ]  # fmt: skip


def fill(repo: MetricsRepository) -> None:
    for n in range(DAYS):
        key = ResultKey(day(n), {"dataset": "events", "scan": "daily"})
        late = 86_400.0 if n == DAYS - 1 else 1800.0
        records = [
            MetricRecord("Dataset", "*", "Size", "Size(*)", size_of(n)),
            MetricRecord("Column", "price", "Completeness", "Completeness(price)", 0.98),
            MetricRecord("Dataset", "event_time", "Freshness", "Freshness(event_time)", late),
        ]
        last = n == DAYS - 1
        log = repo.scan_log.start("daily") if last else None
        repo.save(key, records, verdicts=verdicts_of(n))
        fields = [{"name": "id", "type": "long", "nullable": False}]
        if n >= 20:  # a column added on day 20
            fields.append({"name": "coupon", "type": "string", "nullable": True})
        repo.save_schema(key, {"type": "struct", "fields": fields})
        if log is not None:
            repo.scan_log.finish(log, "error")  # the level of the anomaly, as scans store it
    # A scan whose only problem is a metric that could not be computed, and one with none.
    log = repo.scan_log.start("other")
    repo.save(
        ResultKey(day(DAYS - 1), {"dataset": "other", "scan": "other"}),
        [MetricRecord("Dataset", "*", "Size", "Size(*)", None, error="no such table")],
        verdicts=[AnomalyVerdict("Size(*)", "error", "Adaptive", detail="could not compute")],
    )
    repo.scan_log.finish(log, "error")
    repo.scan_log.finish(repo.scan_log.start("quiet"), "warning", "no rows in the partition")


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> dict:
    repo = MetricsRepository(tmp_path_factory.mktemp("payload") / "metrics.duckdb")
    fill(repo)
    return collect_snapshot(repo)


def series(snapshot: dict, metric: str, dataset: str = "events") -> dict:
    [found] = [s for s in snapshot["series"] if s["metric"] == metric and s["dataset"] == dataset]
    return found


def test_the_size_axis_follows_the_values_not_a_band_of_millions(snapshot: dict) -> None:
    size = series(snapshot, "Size(*)")
    low, high = size["y"]
    values = [v for v in size["v"] if v is not None]
    assert low <= min(values) == 25.0 and max(values) <= high
    assert high < 200  # the band reached 5,000,000 in the first week
    assert max(h for h in size["hi"] if h is not None) == 5_000_000.0  # kept, drawn cut
    cut_above = [h > high for h in size["hi"] if h is not None]
    assert sum(cut_above) == 7


@pytest.mark.parametrize(
    ("metric", "kind", "bounds"),
    [("Size(*)", "count", (0.0, None)), ("Completeness(price)", "share", (0.0, 1.0)),
     ("Freshness(event_time)", "duration", (0.0, None))],
)  # fmt: skip
def test_bands_are_clipped_to_the_metric_domain(
    snapshot: dict, metric: str, kind: str, bounds: tuple[float, float | None]
) -> None:
    chart = series(snapshot, metric)
    assert chart["kind"] == kind
    edges = [e for e in chart["lo"] + chart["hi"] if e is not None]
    assert edges and min(edges) >= bounds[0]
    if bounds[1] is not None:
        assert max(edges) <= bounds[1]
    if metric == "Completeness(price)":  # stored as [-3, 3]
        assert set(chart["lo"]) == {0.0} and set(chart["hi"]) == {1.0}
        assert chart["y"][1] < 1.01  # and the axis follows the values, 0.98


def test_durations_carry_their_unit_and_other_metrics_none(snapshot: dict) -> None:
    assert series(snapshot, "Freshness(event_time)")["unit"] == "s"
    assert series(snapshot, "Freshness(event_time)")["y"][1] >= 86_400
    assert {s["unit"] for s in snapshot["series"] if s["kind"] != "duration"} == {None}


def test_scan_statuses_say_what_the_scan_found(snapshot: dict) -> None:
    scans = {s["scan"]: s for s in snapshot["scans"]}
    assert (scans["daily"]["status"], scans["daily"]["stored"]) == ("anomaly", "error")
    assert (scans["other"]["status"], scans["other"]["stored"]) == ("failed metric", "error")
    assert (scans["quiet"]["status"], scans["quiet"]["stored"]) == ("warning", "warning")
    assert scans["daily"]["recent"] == ["anomaly"]


def test_the_stored_schema_changes_are_a_section(snapshot: dict) -> None:
    sections = {s["key"]: s for s in snapshot["sections"]}
    changes = sections["schema-changes"]
    assert [row[1:7] for row in changes["rows"]] == [
        ["events", "daily", "added", "coupon", "-", "string"]
    ]
    assert changes["rows"][0][0] == "2026-01-21 00:00"
    assert [row[1:4] for row in sections["schemas"]["rows"]] == [["events", "daily", 2]]


def test_a_repository_without_schema_snapshots_has_no_schema_section(tmp_path: Path) -> None:
    repo = MetricsRepository(tmp_path / "metrics.duckdb")
    repo.save(ResultKey(day(0), {"dataset": "d"}), [MetricRecord("Dataset", "*", "Size",
                                                                "Size(*)", 1.0)])  # fmt: skip
    assert collect_snapshot(repo)["sections"] == []
