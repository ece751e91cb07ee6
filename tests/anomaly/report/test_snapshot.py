"""The report's snapshot: every series with its band and verdicts, open anomalies, freshness,
scans, tag filters, and columns the report does not know yet (alert budgets) passed through."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from anomaly.report.sections import ReportSection, register_section, unregister_section
from anomaly.report.snapshot import collect_snapshot
from repository import AnomalyVerdict, MetricRecord, MetricsRepository, ResultKey
from repository.keys import canonical_key
from tests.anomaly.report.conftest import DAYS, XSS_DATASET, XSS_GROUP, day


@pytest.fixture(scope="module")
def snapshot(report_repository: Path) -> dict:
    return collect_snapshot(MetricsRepository(report_repository))


def test_every_stored_series_is_a_chart_with_its_points_on_the_dataset_timeline(
    snapshot: dict, report_repository: Path
) -> None:
    repo = MetricsRepository(report_repository)
    stored = repo.load().to_pandas()
    keys = {(r.dataset, r.metric_id, r.group_key) for r in stored.itertuples()}
    charts = {(s["dataset"], s["metric"], canonical_key(s["group"])) for s in snapshot["series"]}
    assert charts == keys
    for series in snapshot["series"]:
        times = snapshot["timelines"][series["d"]]["times"]
        assert len(series["v"]) == len(series["lo"]) == len(series["hi"]) == len(series["st"])
        assert len(times) == len(series["v"])
        history = repo.history(series["metric"], tags={"dataset": series["dataset"]},
                               group=series["group"])  # fmt: skip
        shown = [v for v in series["v"] if v is not None]
        assert shown == pytest.approx(history.tolist(), rel=1e-5)


def test_bands_and_statuses_are_the_stored_verdicts(snapshot: dict) -> None:
    de = next(s for s in snapshot["series"]
              if s["metric"] == "Size(*)" and s["group"] == {"country": "DE"})  # fmt: skip
    assert de["st"][:7] == "-------" and de["st"][7:].count("a") == 2
    assert de["st"][20] == "a" and de["st"][33] == "a"
    assert (de["lo"][7], de["hi"][7]) == pytest.approx((88.0, 112.0))  # base 100 on day 7
    assert de["detectors"] == ["OnlineNormal"]
    mean = next(s for s in snapshot["series"]
                if s["metric"] == "Mean(price)" and s["group"] == {"country": "DE"})  # fmt: skip
    assert mean["hi"][10] is None and mean["lo"][10] == 9.0  # a one-sided band


def test_anomalies_are_every_problem_verdict_and_open_only_when_newest(
    snapshot: dict, report_repository: Path
) -> None:
    stored = MetricsRepository(report_repository).load_verdicts(statuses=["anomaly", "error"])
    assert len(snapshot["anomalies"]) == len(stored)
    assert Counter(a["status"] for a in snapshot["anomalies"]) == {"anomaly": 4, "error": 1}
    [failed] = [a for a in snapshot["anomalies"] if a["status"] == "error"]
    assert failed["open"] and failed["sid"] is not None and failed["dataset"] == XSS_DATASET
    assert not any(a["open"] for a in snapshot["anomalies"] if a["status"] == "anomaly")
    datasets = {d["dataset"]: d for d in snapshot["datasets"]}
    assert datasets[XSS_DATASET]["open"] == 1 and datasets["orders"]["open"] == 0
    assert datasets["orders"]["last"] == int(day(DAYS - 1).timestamp() * 1000)
    assert datasets["orders"]["series"] == 6 and datasets["orders"]["groups"] == 3


def test_annotations_attach_to_the_series_they_cover(snapshot: dict) -> None:
    kinds = {a["id"]: a["kind"] for a in snapshot["annotations"]}
    for series in snapshot["series"]:
        attached = sorted(kinds[i] for i in series["annotations"])
        orders = series["dataset"] == "orders"
        incident = orders and series["metric"] == "Size(*)" and series["group"] == {"country": "DE"}
        assert attached == (["expected"] if orders else []) + (["incident"] if incident else [])
        if orders:
            assert series["ann"][33] == "2" and series["ann"][34] == "2"  # bit 2: expected


def test_scans_show_their_last_run(snapshot: dict) -> None:
    scans = {s["scan"]: s for s in snapshot["scans"]}
    assert scans["odd_daily"]["status"] == "failed" and scans["odd_daily"]["error"] == "boom"
    assert scans["orders_daily"]["datasets"] == ["orders"]
    assert scans["orders_daily"]["ended"] - scans["orders_daily"]["started"] == 9000


def test_a_tag_filter_keeps_only_matching_runs(report_repository: Path) -> None:
    only = collect_snapshot(MetricsRepository(report_repository), tags={"scan": "odd_daily"})
    assert {s["dataset"] for s in only["series"]} == {XSS_DATASET}
    assert [d["dataset"] for d in only["datasets"]] == [XSS_DATASET]
    assert only["outcomes"] == [] and only["filters"] == {"scan": "odd_daily"}


def test_unknown_columns_of_the_scan_log_and_verdicts_are_shown(tmp_path: Path) -> None:
    repo = MetricsRepository(tmp_path / "m.duckdb")
    key = ResultKey(day(0), {"dataset": "d", "scan": "s"})
    repo.save(
        key,
        [MetricRecord("Dataset", "*", "Size", "Size(*)", 5.0)],
        verdicts=[AnomalyVerdict("Size(*)", "anomaly", "Adaptive", 5.0, 6.0, 9.0)],
    )
    log_id = repo.scan_log.start("s", day(0))
    repo.scan_log.finish(log_id, "warning")
    # What a later schema might add (the lead's alert budgets): shown without the report knowing.
    with repo._connector.transaction() as cur:
        cur.execute("ALTER TABLE scan_log ADD COLUMN alert_budget_used DOUBLE")
        cur.execute("UPDATE scan_log SET alert_budget_used = 0.25")
    snapshot = collect_snapshot(repo)
    assert snapshot["scanColumns"] == ["alert_budget_used"]
    assert snapshot["scans"][0]["extra"] == {"alert_budget_used": 0.25}


def test_sections_from_providers_and_a_failing_provider(tmp_path: Path) -> None:
    repo = MetricsRepository(tmp_path / "m.duckdb")
    # Its own name: replacing and then unregistering the built-in "schema" section would take it
    # away from every later test of this process.
    register_section(
        "custom",
        lambda repo, cur: [
            ReportSection(
                "schema", "Schema changes", ["column", "change"], [["price", "double -> string"]]
            )
        ],
    )
    register_section("broken", lambda repo, cur: 1 / 0)  # type: ignore[arg-type, return-value]
    try:
        snapshot = collect_snapshot(repo)
    finally:
        unregister_section("custom")
        unregister_section("broken")
    assert [s["title"] for s in snapshot["sections"]] == ["Schema changes"]
    assert snapshot["problems"] == ["section 'broken' failed: ZeroDivisionError: division by zero"]
    with pytest.raises(ValueError, match="row 0 has 1 cells, the section has 2 columns"):
        ReportSection("x", "X", ["a", "b"], [["only one"]])


def test_an_empty_repository_gives_an_empty_report(tmp_path: Path) -> None:
    snapshot = collect_snapshot(MetricsRepository(tmp_path / "m.duckdb"), title="Nothing yet")
    assert snapshot["series"] == [] and snapshot["anomalies"] == [] and snapshot["scans"] == []
    assert snapshot["title"] == "Nothing yet"
    json.dumps(snapshot, allow_nan=False)


def test_group_names_are_kept_as_they_are(snapshot: dict) -> None:
    labels = {s["label"] for s in snapshot["series"]}
    assert f"country={XSS_GROUP}" in labels
