"""Alert sinks with real deliveries: a local HTTP server, a real command, the log."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest

from anomaly.config.alert_config import AlertSinkConfig
from anomaly.judging import ScanReport, dispatch
from anomaly.judging.alerts import slack_payload
from repository import AnomalyVerdict
from tests.anomaly.service.conftest import Hook, day


def report(severity: str = "error", anomalies: int = 1) -> ScanReport:
    verdicts = [
        AnomalyVerdict(
            metric_id="Size(*)",
            status="anomaly",
            detector="RobustMAD",
            value=2.0 + i,
            lower=8.0,
            upper=12.5,
            history_length=30,
            group={"country": f"C{i}"},
            severity=severity,
        )
        for i in range(anomalies)
    ]
    return ScanReport("daily", day(5), "day", verdicts, metrics=3, groups=anomalies)


def sink(**settings: object) -> AlertSinkConfig:
    return AlertSinkConfig.model_validate(settings)


def test_a_slack_compatible_body_reaches_the_webhook(hook: Hook) -> None:
    failed = dispatch(report(), {"slack": sink(type="webhook", url=hook.url)})
    assert failed == []
    [body] = hook.bodies
    assert set(body) == {"text", "blocks"}
    assert body["text"] == (
        ":rotating_light: anomaly scan daily 2026-03-06: 1 anomaly (3 metrics x 1 group)"
    )
    assert [b["type"] for b in body["blocks"]] == ["section", "section", "context"]
    assert body["blocks"][1]["text"]["type"] == "mrkdwn"
    assert (
        "ERROR     country=C0  Size(*)      2  [8, 12.5]       30  RobustMAD"
        in (body["blocks"][1]["text"]["text"])
    )


def test_a_json_webhook_with_headers_and_a_long_report(hook: Hook) -> None:
    settings = {"type": "webhook", "url": hook.url, "format": "json",
                "headers": {"Authorization": "Bearer s3cret"}}  # fmt: skip
    dispatch(report(anomalies=25), {"hook": sink(**settings)})
    [body] = hook.bodies
    assert hook.headers[0]["Authorization"] == "Bearer s3cret"
    assert (body["status"], body["severity"]) == ("anomaly", "error")  # what it is, and its level
    assert len(body["problems"]) == 25
    assert body["problems"][0] == {
        "severity": "error", "status": "anomaly", "metric": "Size(*)", "group": {"country": "C0"},
        "value": 2.0, "lower": 8.0, "upper": 12.5, "history": 30, "detector": "RobustMAD",
        "detail": None, "p_value": None,
    }  # fmt: skip
    slack = slack_payload(report(anomalies=25))["blocks"][1]["text"]["text"]
    assert slack.endswith("... and 5 more```")


def test_delivery_failures_are_logged_and_never_raised(caplog: pytest.LogCaptureFixture) -> None:
    with Hook(status=500) as broken:
        failed = dispatch(report(), {"down": sink(type="webhook", url=broken.url, timeout="1s")})
    assert failed == ["down"]
    assert "alert 'down': the webhook answered HTTP 500" in caplog.text
    unreachable = sink(type="webhook", url="http://127.0.0.1:9/hook", timeout="2s")
    assert dispatch(report(), {"nowhere": unreachable}) == ["nowhere"]
    assert "alert 'nowhere': cannot reach the webhook" in caplog.text
    script = [sys.executable, "-c", "import sys; sys.exit('no pager configured')"]
    assert dispatch(report(), {"pager": sink(type="command", command=script)}) == ["pager"]
    assert "alert 'pager': command" in caplog.text and "exited 1: no pager configured" in (
        caplog.text
    )


def test_a_command_gets_the_alert_on_stdin_and_in_its_environment(tmp_path: Path) -> None:
    out = tmp_path / "alert.txt"
    code = (
        "import os, sys; open(sys.argv[1], 'w').write(os.environ['ANOMALY_STATUS'] + ' | ' + "
        "os.environ['ANOMALY_SUMMARY'] + ' | ' + sys.stdin.read())"
    )
    dispatch(report(), {"script": sink(type="command", command=[sys.executable, "-c", code,
                                                                   str(out)])})  # fmt: skip
    status, summary, payload = out.read_text().split(" | ", 2)
    assert (status, summary) == ("anomaly", "daily 2026-03-06: 1 anomaly (3 metrics x 1 group)")
    assert json.loads(payload)["problems"][0]["group"] == {"country": "C0"}


def test_min_severity_and_the_log_sink(hook: Hook, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    sinks = {"errors": sink(type="webhook", url=hook.url, min_severity="error"),
             "log": sink(type="log")}  # fmt: skip
    dispatch(report(severity="warning"), sinks)
    assert hook.bodies == []  # a warning does not reach an error-only sink
    [record] = [r for r in caplog.records if r.name == "anomaly.alerts"]
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith("[WARNING] anomaly scan daily 2026-03-06: 1 anomaly")
    dispatch(ScanReport("daily", day(5)), sinks)
    assert len(caplog.records) == 1  # nothing found, nothing sent
    dispatch(ScanReport("daily", day(5), error="source 'events': cannot read"), sinks)
    assert hook.bodies[0]["text"] == (
        ":x: anomaly scan daily 2026-03-06 00:00:00: FAILED: source 'events': cannot read"
    )
