"""Alert bodies: Slack's limits and escaping, statuses that say what happened, and log lines
that data cannot forge (findings 8 and 20 of docs/security.md)."""

from __future__ import annotations

import json
import logging
from dataclasses import replace

import pytest

from anomaly.config.alert_config import AlertSinkConfig
from anomaly.judging import ScanReport, dispatch
from anomaly.judging.alerts import (
    SLACK_BLOCK_LIMIT,
    SLACK_TEXT_LIMIT,
    json_payload,
    outcome,
    slack_payload,
)
from repository import AnomalyVerdict
from tests.anomaly.judging.test_sinks import report
from tests.anomaly.service.conftest import day

HOSTILE = "<!channel> & <https://evil.example|click> ```)\n"


def with_groups(base: ScanReport, value: str) -> ScanReport:
    findings = [replace(v, group={"country": f"{value}{i}"}) for i, v in enumerate(base.findings)]
    return replace(base, findings=findings)


def sections(payload: dict[str, object]) -> list[str]:
    blocks = payload["blocks"]
    assert isinstance(blocks, list)
    return [b["text"]["text"] for b in blocks if b["type"] == "section"]


@pytest.mark.faults
@pytest.mark.parametrize("width", [10, 400, 5_000, 50_000])
@pytest.mark.parametrize("rows", [1, 20, 300])
def test_slack_sections_and_blocks_stay_within_slacks_limits(width: int, rows: int) -> None:
    payload = slack_payload(with_groups(report(anomalies=rows), "g" * width))
    texts = sections(payload)
    assert max(len(t) for t in texts) <= SLACK_TEXT_LIMIT
    assert len(payload["blocks"]) <= SLACK_BLOCK_LIMIT  # type: ignore[arg-type]
    lines = [x for t in texts[1:] for x in t.removeprefix("```").removesuffix("```").split("\n")]
    shown = min(rows, 20)
    assert len(lines) == 1 + shown + (rows > 20)  # the header, the rows, "... and N more"
    if width <= 400:  # nothing cut: every row is there whole
        assert all(f"country={'g' * width}{i} " in lines[1 + i] for i in range(shown))
    else:
        assert all(x.endswith("…") for x in lines[1 : 1 + shown])


@pytest.mark.faults
def test_data_cannot_ping_a_channel_or_break_out_of_the_code_block() -> None:
    hostile = with_groups(report(anomalies=3), HOSTILE)
    failed = replace(hostile, error=f"source 'x': cannot read {HOSTILE}")
    for payload in (slack_payload(hostile), slack_payload(failed)):
        text = json.dumps(payload)
        assert "<!channel>" not in text and "<https://" not in text
        assert "&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;" in text
        for section in sections(payload)[1:]:
            assert section.startswith("```") and section.endswith("```")
            assert section.count("```") == 2  # the data's own backticks cannot close it
        assert payload["text"] == payload["text"].strip() and "\n" not in payload["text"]


@pytest.mark.parametrize(
    ("findings", "error", "notes", "expected"),
    [
        ([("anomaly", "error")], None, [], ("anomaly", "error")),
        ([("anomaly", "warning")], None, [], ("anomaly", "warning")),
        ([("error", "error")], None, [], ("failed metric", "error")),
        ([], "cannot read", [], ("failed", "error")),
        ([], None, ["no rows"], ("note", "warning")),
        ([("ok", "error")], None, [], ("ok", "ok")),
    ],
)
def test_the_structured_alert_says_what_was_found_and_at_which_level(
    findings: list[tuple[str, str]], error: str | None, notes: list[str], expected: tuple[str, str]
) -> None:
    verdicts = [AnomalyVerdict("Size(*)", s, "RobustMAD", severity=sev) for s, sev in findings]
    scan = ScanReport("daily", day(5), "day", verdicts, error=error, notes=notes)
    body = json_payload(scan)
    assert (body["status"], body["severity"]) == expected
    assert outcome(scan) == expected[0]
    context = slack_payload(scan)["blocks"][-1]["elements"][0]["text"]
    assert context == f"status *{expected[0]}*, severity *{expected[1]}*"


@pytest.mark.faults
def test_a_newline_or_escape_in_a_group_value_cannot_forge_a_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    forged = "FR\n2026-03-06 00:00:00 INFO anomaly.service: daily: all clear\x1b[2J"
    log = {"log": AlertSinkConfig.model_validate({"type": "log"})}
    dispatch(with_groups(report(anomalies=2), forged), log)
    [record] = [r for r in caplog.records if r.name == "anomaly.alerts"]
    message = record.getMessage()
    assert record.levelno == logging.ERROR
    assert "\x1b" not in message
    assert not any(line.startswith("2026-03-06") for line in message.splitlines())
    assert "country=FR\\n2026-03-06 00:00:00 INFO anomaly.service: daily: all clear\\x1b[2J0" in (
        message
    )
    assert len(message.splitlines()) == 1 + 1 + 2  # headline, table header, two rows
