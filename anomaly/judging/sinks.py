"""Delivering alerts: to the log, to a webhook, to a command. Delivery never fails a scan."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import urllib.error
import urllib.request
from collections.abc import Mapping

from anomaly.config.alert_config import AlertSinkConfig
from anomaly.errors import AnomalyError, ConfigurationError
from anomaly.judging.alerts import alert_text, json_payload, should_alert, slack_payload
from anomaly.judging.report import ScanReport, ScanStatus

LOG = logging.getLogger("anomaly.alerts")


class AlertDeliveryError(AnomalyError):
    """An alert could not be delivered (the message says where and why); `dispatch` logs it.

    >>> str(AlertDeliveryError("alert 'slack': webhook answered HTTP 404 Not Found"))
    "alert 'slack': webhook answered HTTP 404 Not Found"
    """


def send(name: str, sink: AlertSinkConfig, report: ScanReport) -> None:
    """Deliver `report` to one sink (regardless of its severity filter); its ``${VAR}``
    references are resolved now, so only sending needs them."""
    try:
        sink = sink.resolved()
    except ConfigurationError as error:
        raise AlertDeliveryError(f"alert {name!r}: {error}") from None
    if sink.type == "log":
        level = logging.ERROR if report.status >= ScanStatus.ERROR else logging.WARNING
        LOG.log(level, "%s", alert_text(report))
    elif sink.type == "webhook":
        _post(name, sink, report)
    else:
        _run(name, sink, report)


def dispatch(report: ScanReport, sinks: Mapping[str, AlertSinkConfig]) -> list[str]:
    """Send `report` to every sink whose ``min_severity`` it reaches; returns the names of
    the sinks that failed (each failure is logged)."""
    failed = []
    for name, sink in sinks.items():
        if not should_alert(report, sink.min_severity):
            continue
        try:
            send(name, sink, report)
        except AlertDeliveryError as error:
            LOG.error("%s", error)
            failed.append(name)
    return failed


def _post(name: str, sink: AlertSinkConfig, report: ScanReport) -> None:
    payload = slack_payload(report) if sink.format == "slack" else json_payload(report)
    request = urllib.request.Request(
        sink.url or "",
        data=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json", **sink.headers},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=sink.timeout.total_seconds()) as response:
            response.read()
    except urllib.error.HTTPError as error:
        raise AlertDeliveryError(
            f"alert {name!r}: webhook answered HTTP {error.code} {error.reason}"
        ) from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise AlertDeliveryError(f"alert {name!r}: cannot reach the webhook: {reason}") from None


def _run(name: str, sink: AlertSinkConfig, report: ScanReport) -> None:
    env = {
        **os.environ,
        "ANOMALY_SCAN": report.scan,
        "ANOMALY_STATUS": report.status.label,
        "ANOMALY_SUMMARY": report.headline(),
    }
    try:
        done = subprocess.run(
            sink.argv,
            input=json.dumps(json_payload(report)),
            env=env,
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
            f"alert {name!r}: command {sink.argv[0]!r} exited {done.returncode}: {tail[0]}"
        )
