"""``anomaly history`` and ``anomaly anomalies`` mark annotated points (a column that appears
only when a shown point is annotated), in every format."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from anomaly.cli import main
from repository import AnomalyVerdict, MetricRecord, MetricsRepository, ResultKey

from .conftest import day

FR = [10.0, 11, 2, 10, 11]


@pytest.fixture
def repo(tmp_path: Path) -> str:
    """Five daily runs of Size for DE and FR (FR judged; its day 2 is an annotated outage)."""
    path = tmp_path / "metrics.duckdb"
    repository = MetricsRepository(path)
    for d, fr in enumerate(FR):
        records = [
            MetricRecord("Dataset", "*", "Size", "Size(*)", fr, {"country": "FR"}),
            MetricRecord("Dataset", "*", "Size", "Size(*)", 20.0 + d, {"country": "DE"}),
        ]
        verdict = AnomalyVerdict("Size(*)", "anomaly" if d == 2 else "normal", "RobustMAD",
                                 value=fr, lower=8.0, upper=12.0, history_length=d,
                                 group={"country": "FR"})  # fmt: skip
        repository.save(ResultKey(day(d), {"dataset": "events", "scan": "daily"}), records,
                        verdicts=[verdict])  # fmt: skip
    repository.annotate("incident", day(2), metric="Size(*)", group={"country": "FR"})
    repository.annotate("excluded", day(2), day(2) + timedelta(hours=1), metric="Size(*)",
                        group={"country": "FR"}, tags={"scan": "daily"})  # fmt: skip
    repository.annotate("expected", day(4), tags={"dataset": "events"})
    repository.annotate("excluded", day(3), tags={"scan": "hourly"})  # other runs: no mark
    repository.close()
    return str(path)


def test_history_marks_annotated_points(repo: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "-r", repo, "Size(*)"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "timestamp   country=DE  country=FR  annotations",
        "2026-03-01          20          10",
        "2026-03-02          21          11",
        "2026-03-03          22           2  country=FR: incident, excluded",
        "2026-03-04          23          10",
        "2026-03-05          24          11  expected",
    ]
    assert main(["history", "-r", repo, "Size(*)", "--group", "country=FR", "--since",
                 "2026-03-03", "--until", "2026-03-04", "--format", "csv"]) == 0  # fmt: skip
    assert capsys.readouterr().out.splitlines() == [
        "time,metric,country,value,annotations",
        '2026-03-03T00:00:00Z,Size(*),FR,2.0,"incident, excluded"',
        "2026-03-04T00:00:00Z,Size(*),FR,10.0,",
    ]
    assert main(["history", "-r", repo, "Size(*)", "--group", "country=FR", "--format", "json",
                 "--since", "2026-03-03", "--until", "2026-03-03"]) == 0  # fmt: skip
    [point] = json.loads(capsys.readouterr().out)
    assert point["annotations"] == ["incident", "excluded"]
    # Without an annotated point shown, the output is what it always was.
    assert main(["history", "-r", repo, "Size(*)", "--until", "2026-03-02"]) == 0
    assert capsys.readouterr().out.splitlines()[0].split() == [
        "timestamp", "country=DE", "country=FR"]  # fmt: skip


def test_anomalies_mark_annotated_verdicts(repo: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["anomalies", "-r", repo, "--status", "all"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[-2:] == ["detector", "annotations"]
    assert [line.split("RobustMAD")[1].strip() for line in lines[1:]] == [
        "expected", "", "incident, excluded", "", ""]  # fmt: skip
    assert main(["anomalies", "-r", repo, "--format", "json"]) == 0
    [verdict] = json.loads(capsys.readouterr().out)
    assert (verdict["status"], verdict["annotations"]) == ("anomaly", ["incident", "excluded"])
    assert main(["anomalies", "-r", repo, "--status", "normal", "--until", "2026-03-04",
                 "--format", "json"]) == 0  # fmt: skip
    assert all("annotations" not in v for v in json.loads(capsys.readouterr().out))
