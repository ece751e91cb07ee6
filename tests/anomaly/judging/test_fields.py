"""One JSON vocabulary: ``anomaly anomalies``/``history --format json`` and the HTTP API's
``/api/anomalies``/``/api/series`` rows use the same keys for the same things."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anomaly.cli import main
from anomaly.judging.fields import POINT_FIELDS, VERDICT_FIELDS
from anomaly.report.api import ANOMALY_PARAMS, SERIES_PARAMS, Params, anomaly_rows, series_rows
from repository import AnomalyVerdict, MetricRecord, MetricsRepository, ResultKey

from ..service.conftest import day

SIZES = [10.0, 11, 2, 10]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Four daily runs of Size for FR, the third an anomaly."""
    path = tmp_path / "metrics.duckdb"
    repository = MetricsRepository(path)
    for d, size in enumerate(SIZES):
        group = {"country": "FR"}
        verdict = AnomalyVerdict("Size(*)", "anomaly" if d == 2 else "normal", "RobustMAD",
                                 value=size, lower=8.0, upper=12.0, score=0.5, detail="why",
                                 history_length=d, group=group)  # fmt: skip
        repository.save(ResultKey(day(d), {"dataset": "events", "scan": "daily"}),
                        [MetricRecord("Dataset", "*", "Size", "Size(*)", size, group)],
                        verdicts=[verdict])  # fmt: skip
    repository.close()
    return path


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, object]]:
    assert main([*argv, "--format", "json"]) == 0
    return list(json.loads(capsys.readouterr().out))


def test_anomalies_in_the_cli_and_the_api_share_their_keys_and_values(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    [cli] = cli_json(capsys, "anomalies", "-r", str(repo))
    [api] = anomaly_rows(MetricsRepository(repo), Params({}, ANOMALY_PARAMS))
    assert tuple(cli) == tuple(api) == VERDICT_FIELDS
    shared = ["time", "run_time", "dataset", "scan", "metric", "group", "status", "detector",
              "detail", "history", "value", "lower", "upper", "score"]  # fmt: skip
    assert {k: cli[k] for k in shared} == {k: api[k] for k in shared}
    assert (cli["time"], cli["metric"], cli["group"], cli["history"]) == (
        "2026-03-03T00:00:00Z", "Size(*)", {"country": "FR"}, 2)  # fmt: skip


def test_history_in_the_cli_names_what_it_shares_with_the_api_series(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = cli_json(capsys, "history", "-r", str(repo), "Size(*)")
    api = series_rows(MetricsRepository(repo), Params({"metric": ["Size(*)"]}, SERIES_PARAMS))
    assert tuple(api[0]) == POINT_FIELDS
    assert set(cli[0]) <= set(POINT_FIELDS)
    assert [{k: row[k] for k in cli[0]} for row in api] == cli
    assert [row["value"] for row in cli] == SIZES
