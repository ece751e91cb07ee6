"""Commands that send no alert need no alert variables (issue 32): ``history``, ``anomalies``,
``report``, ``plot`` and ``validate-config`` with ``-c anomaly.yml`` exited 3 when an alert's
``${SLACK_WEBHOOK_URL}`` was unset. An alert's references are resolved when it is sent."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from anomaly.cli import main
from anomaly.judging.report import ScanReport
from anomaly.judging.sinks import dispatch
from anomaly.service import load_config
from repository import AnomalyVerdict, MetricRecord, MetricsRepository, ResultKey
from tests.anomaly.service.conftest import day, write_config

CONFIG = """
repository: metrics.duckdb
sources:
  events: {path: events.parquet, time_column: day}
scans:
  daily: {source: events, metrics: [Size]}
alerts:
  slack:
    type: webhook
    url: ${SLACK_WEBHOOK_URL}
    headers: {Authorization: "Bearer ${SLACK_TOKEN:-${FALLBACK_TOKEN}}"}
"""


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A config whose alert needs unset variables, and a repository with five judged runs."""
    for name in ("SLACK_WEBHOOK_URL", "SLACK_TOKEN", "FALLBACK_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    repository = MetricsRepository(tmp_path / "metrics.duckdb")
    for d, size in enumerate([10.0, 11, 10, 11, 40]):
        verdict = AnomalyVerdict("Size(*)", "anomaly" if d == 4 else "normal", "RobustMAD",
                                 value=size, lower=8.0, upper=12.0, history_length=d)  # fmt: skip
        key = ResultKey(day(d), {"dataset": "events", "scan": "daily"})
        repository.save(key, [MetricRecord("Dataset", "*", "Size", "Size(*)", size)],
                        verdicts=[verdict])  # fmt: skip
    repository.close()
    return str(write_config(tmp_path, CONFIG))


def test_read_only_commands_need_no_alert_variables(
    config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["history", "-c", config, "Size(*)"]) == 0
    assert main(["anomalies", "-c", config]) == 0
    assert "Size(*)" in capsys.readouterr().out
    assert main(["report", config, "-o", str(tmp_path / "report.html")]) == 0
    assert main(["plot", "-c", config, "Size(*)", "-o", str(tmp_path / "size.png")]) == 0
    assert (tmp_path / "report.html").stat().st_size > 0
    assert (tmp_path / "size.png").stat().st_size > 0


def test_validate_config_warns_of_each_unset_alert_variable_and_passes(
    config: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate-config", config]) == 0
    printed = capsys.readouterr()
    assert printed.out.startswith(f"{config}: OK")
    assert printed.err.splitlines() == [
        "warning: line 10, alerts.slack.url: environment variable SLACK_WEBHOOK_URL is not set: "
        "alert 'slack' cannot be sent until it is (commands that send no alert do not need it)",
        "warning: line 11, alerts.slack.headers.Authorization: environment variable "
        "FALLBACK_TOKEN is not set: alert 'slack' cannot be sent until it is (commands that "
        "send no alert do not need it)",
    ]


def test_sending_resolves_the_variables_then(
    config: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    sinks = load_config(config).alerts
    failing = ScanReport("daily", day(5), error="source 'events': cannot read")
    with caplog.at_level(logging.ERROR, logger="anomaly.alerts"):
        assert dispatch(failing, sinks) == ["slack"]  # delivery fails; the scan does not
    assert caplog.messages == [
        "alert 'slack': url: environment variable SLACK_WEBHOOK_URL is not set (use "
        "${SLACK_WEBHOOK_URL:-default} for a default)"
    ]
    monkeypatch.setenv("SLACK_WEBHOOK_URL", "https://hooks.example.com/T1")
    monkeypatch.setenv("FALLBACK_TOKEN", "t0ken")
    sink = sinks["slack"].resolved()  # the environment of now, not of loading
    assert (sink.url, sink.headers) == (
        "https://hooks.example.com/T1",
        {"Authorization": "Bearer t0ken"},
    )


def test_an_explicit_environment_given_to_load_config_is_the_one_sending_uses(
    config: str,
) -> None:
    env = {"SLACK_WEBHOOK_URL": "https://hooks.example.com/T2", "SLACK_TOKEN": "s"}
    loaded = load_config(config, env=env)
    assert loaded.warnings == []
    assert loaded.alerts["slack"].resolved().headers == {"Authorization": "Bearer s"}


def test_a_malformed_alert_reference_is_still_an_error_at_load(tmp_path: Path) -> None:
    path = write_config(tmp_path, CONFIG.replace("${SLACK_WEBHOOK_URL}", "${SLACK WEBHOOK}"))
    assert main(["validate-config", str(path)]) == 3
