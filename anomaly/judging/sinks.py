"""Delivering alerts: to the log, to a webhook, to a command. Delivery never fails a scan, and no
alert is lost silently: one that cannot be delivered is logged and kept in the repository's
outbox (``repo.deliveries``), offered to its sink again by `redeliver` on later runs, and listed
in the report until it is delivered."""

from __future__ import annotations

import json
import logging
import os
import subprocess
from collections.abc import Mapping

from anomaly.config.alert_config import AlertSinkConfig
from anomaly.errors import ConfigurationError
from anomaly.judging.alerts import (
    alert_text,
    json_payload,
    outcome,
    severity,
    should_alert,
    slack_payload,
)
from anomaly.judging.report import ScanReport
from anomaly.judging.webhook import AlertDeliveryError, post_json
from anomaly.safe_text import terminal_safe
from repository import Deliveries, PendingDelivery

LOG = logging.getLogger("anomaly.alerts")

__all__ = ["AlertDeliveryError", "dispatch", "redeliver", "send"]


def send(name: str, sink: AlertSinkConfig, report: ScanReport) -> int:
    """Deliver `report` to one sink (regardless of its severity filter); returns the attempts
    it took. Its ``${VAR}`` references are resolved only now: only sending needs them."""
    if sink.type == "log":
        level = logging.ERROR if severity(report) == "error" else logging.WARNING
        LOG.log(level, "%s", alert_text(report))
        return 1
    env = {"ANOMALY_SCAN": report.scan, "ANOMALY_STATUS": outcome(report),
           "ANOMALY_SEVERITY": severity(report), "ANOMALY_SUMMARY": report.headline()}  # fmt: skip
    return _deliver(name, sink, body(sink, report), env)


def body(sink: AlertSinkConfig, report: ScanReport) -> str:
    """What a webhook or command sink is sent for `report` (JSON text)."""
    slack = sink.type == "webhook" and sink.format == "slack"
    return json.dumps(slack_payload(report) if slack else json_payload(report))


def dispatch(
    report: ScanReport, sinks: Mapping[str, AlertSinkConfig], outbox: Deliveries | None = None
) -> list[str]:
    """Send `report` to every sink whose ``min_severity`` it reaches; returns the names of
    the sinks that failed. Each failure is logged and, given an `outbox`, recorded there with
    the body to send later."""
    failed = []
    for name, sink in sinks.items():
        if not should_alert(report, sink.min_severity):
            continue
        try:
            send(name, sink, report)
        except AlertDeliveryError as error:
            failed.append(name)
            _keep(name, sink, report, error, outbox)
    return failed


def redeliver(sinks: Mapping[str, AlertSinkConfig], outbox: Deliveries, limit: int = 20) -> int:
    """Offer the outbox's pending alerts (oldest first, at most `limit` per sink) to their
    sinks again; a sink still failing is left for a later run. Returns how many got through."""
    delivered = 0
    for name, sink in sinks.items():
        if sink.type == "log":
            continue
        for pending in outbox.pending(name, limit):
            env = _environment(pending)
            try:
                attempts = _deliver(name, sink, pending.payload, env)
            except AlertDeliveryError as error:
                outbox.failed_again(pending.delivery_id, error.attempts, str(error))
                LOG.warning("%s (kept for a later run)", error)
                break
            outbox.delivered(pending.delivery_id, attempts)
            delivered += 1
            LOG.info("alert %r: delivered the kept alert %s", name, terminal_safe(pending.summary))
    return delivered


def _environment(pending: PendingDelivery) -> dict[str, str]:
    """A kept alert's environment for a command sink, as it was when the run sent it."""
    try:
        status = str(json.loads(pending.payload).get("status", ""))
    except (ValueError, AttributeError):
        status = ""  # a Slack body kept for a webhook sink now a command: no status in it
    return {"ANOMALY_SCAN": pending.scan, "ANOMALY_STATUS": status,
            "ANOMALY_SEVERITY": pending.severity, "ANOMALY_SUMMARY": pending.summary}  # fmt: skip


def _keep(
    name: str,
    sink: AlertSinkConfig,
    report: ScanReport,
    error: AlertDeliveryError,
    outbox: Deliveries | None,
) -> None:
    if outbox is None:
        LOG.error("%s", error)
        return
    try:
        outbox.record_failure(
            report.scan, name, report.time, severity(report), report.headline(),
            body(sink, report), attempts=error.attempts, error=str(error),
        )  # fmt: skip
    except Exception as problem:  # the repository is down too: the log is all that is left
        LOG.error(
            "%s; it cannot be kept for a later delivery either (%s); the alert was:\n%s",
            error, terminal_safe(problem), alert_text(report),
        )  # fmt: skip
        return
    LOG.error("%s (kept in the repository, offered again on the next run)", error)


def _deliver(name: str, sink: AlertSinkConfig, text: str, env: Mapping[str, str]) -> int:
    try:
        sink = sink.resolved()
    except ConfigurationError as error:
        raise AlertDeliveryError(f"alert {name!r}: {error}") from None
    if sink.type == "webhook":
        try:
            return post_json(
                sink.url or "", text.encode(), sink.headers, sink.timeout.total_seconds()
            )
        except AlertDeliveryError as error:
            raise AlertDeliveryError(f"alert {name!r}: {error}", error.attempts) from None
    _run(name, sink, text, env)
    return 1


def _run(name: str, sink: AlertSinkConfig, text: str, env: Mapping[str, str]) -> None:
    try:
        done = subprocess.run(
            sink.argv,
            input=text,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=sink.timeout.total_seconds(),
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise AlertDeliveryError(f"alert {name!r}: command {sink.argv[0]!r}: {error}") from None
    if done.returncode != 0:
        tail = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
        raise AlertDeliveryError(
            f"alert {name!r}: command {sink.argv[0]!r} exited {done.returncode}: "
            f"{terminal_safe(tail[0])}"
        )
