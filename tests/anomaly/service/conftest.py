"""Fixtures of the service tests: small Parquet event files, config files, a local webhook."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pytest

from anomaly.service import ScanReport, ScanRunner, ServiceConfig, load_config

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DAY0 = datetime(2026, 3, 1, tzinfo=UTC)


def day(n: int) -> datetime:
    """Midnight UTC of day ``n`` after 2026-03-01."""
    return DAY0 + timedelta(days=n)


def write_events(path: Path, days: int = 6, drop_day: int | None = None) -> Path:
    """Events on ``days`` days for DE (about 20 a day) and FR (about 10), prices 10..14 with a
    null every 10th row; on ``drop_day`` FR has only 2 rows. Columns: ts, day, country, price."""
    rows = []
    for d in range(days):
        for country, n in (("DE", 20 + d % 3), ("FR", 10 + d % 2)):
            count = 2 if (d == drop_day and country == "FR") else n
            for i in range(count):
                price = None if i % 10 == 9 else 10.0 + i % 5
                ts = day(d) + timedelta(minutes=37 * i)
                rows.append({"ts": ts, "day": ts.date(), "country": country, "price": price})
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_parquet(path, index=False, coerce_timestamps="us")
    return path


def write_config(directory: Path, text: str, name: str = "anomaly.yml") -> Path:
    """A config file in `directory`."""
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


SCAN_CONFIG = """
repository: metrics.duckdb
sources:
  events: {{path: events.parquet, time_column: ts}}
scans:
  daily:
    source: events
    group_by: country
    min_history: 3
    detector: {{type: RobustMAD, min_history: 3}}
    metrics:
      - Size
      - {{analyzer: Completeness, column: price, severity: warning}}
      - {{analyzer: Mean, column: price, detector: none}}
{alerts}
"""


def scan_config(directory: Path, alerts: str = "") -> Path:
    """The daily scan of ``events.parquet`` in `directory` (Size judged by RobustMAD)."""
    return write_config(directory, SCAN_CONFIG.format(alerts=alerts))


class Hook:
    """A local HTTP server on 127.0.0.1 that records POSTed JSON bodies."""

    def __init__(self, status: int = 200) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                hook.bodies.append(json.loads(self.rfile.read(length)))
                hook.headers.append(dict(self.headers))
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Hook:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def stop_when(
    argv: list[str],
    cwd: Path,
    marker: str,
    *,
    after: float = 0.0,
    group: bool = False,
    signals: int = 1,
) -> tuple[int, str]:
    """Run ``anomaly ARGV`` in `cwd` until it prints `marker`, then send it SIGTERM `after`
    seconds later (to its whole process group with `group`, as systemd and Docker do), `signals`
    times a second apart; returns its exit code and output."""
    root = Path(__file__).resolve().parents[3]
    process = subprocess.Popen(
        [sys.executable, "-m", "anomaly", *argv], stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONPATH": str(root)},
        cwd=cwd, start_new_session=group,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(x) for x in process.stdout or []])
    reader.start()
    seen: list[str] = []
    try:
        deadline = time.monotonic() + 240
        while not any(marker in line for line in seen):
            assert time.monotonic() < deadline, "".join(seen)
            seen.append(lines.get(timeout=240))
        for pause in [after] + [1.0] * (signals - 1):
            time.sleep(pause)
            if group:
                os.killpg(process.pid, signal.SIGTERM)
            else:
                process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=180)
    finally:
        if process.poll() is None and group:
            os.killpg(process.pid, signal.SIGKILL)
        elif process.poll() is None:
            process.kill()
        reader.join()
    while not lines.empty():
        seen.append(lines.get())
    return code, "".join(seen)


@pytest.fixture
def hook() -> Iterator[Hook]:
    """A webhook receiver answering 200."""
    with Hook() as server:
        yield server


class DailyScans:
    """The daily scan run day by day over six days of events (FR drops to 2 rows on day 5)."""

    def __init__(self, directory: Path, config: ServiceConfig, reports: list[ScanReport],
                 hook: Hook, command_output: Path) -> None:  # fmt: skip
        self.directory = directory
        self.config = config
        self.reports = reports
        self.hook = hook
        self.command_output = command_output


@pytest.fixture(scope="session")
def daily_scans(
    spark: SparkSession, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[DailyScans]:
    """Six scans, one per day, into a DuckDB file, alerting a local webhook and a command."""
    directory = tmp_path_factory.mktemp("daily")
    write_events(directory / "events.parquet", days=6, drop_day=5)
    output = directory / "alert.json"
    copy = f"import sys; open({str(output)!r}, 'a').write(sys.stdin.read() + chr(10))"
    with Hook() as server:
        alerts = (
            "alerts:\n"
            f"  hook: {{type: webhook, url: '{server.url}'}}\n"
            f"  script: {{type: command, command: [{sys.executable!r}, '-c', {copy!r}]}}\n"
        )
        config = load_config(scan_config(directory, alerts))
        runner = ScanRunner(config, spark=spark)
        reports = [runner.run("daily", period=day(d)) for d in range(6)]
        yield DailyScans(directory, config, reports, server, output)
