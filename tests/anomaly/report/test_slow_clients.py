"""Fault injection: 1,100 slow and idle connections to the UI while scans keep running on time.

The UI runs in the scans' process, whose limit of open files is set to 1,024 (the usual default)
in a subprocess here. Before the connection cap, the idle connections took every descriptor and
every scan failed with "Too many open files", logging a traceback flood (issue 31, finding 2).
A "scan" here does what costs a scan descriptors: it opens a file and a socket pair and saves a
run to the repository, every 0.25 s.
"""

from __future__ import annotations

import contextlib
import json
import logging
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CONNECTIONS = 1100
HOLD = 8.0
PERIOD = 0.25

pytestmark = [pytest.mark.faults, pytest.mark.slow]


def serve(path: str) -> None:
    """The scans' process: the UI beside a loop of scans until a line on stdin; then prints what
    happened as JSON."""
    import threading

    from anomaly.report.connections import ConnectionLimits
    from anomaly.report.serving import UIServer
    from repository import MetricRecord, MetricsRepository, ResultKey

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    writer = MetricsRepository(path)
    limits = ConnectionLimits(header_timeout=2.0, keep_alive=2.0, stall_timeout=5.0)
    ui = UIServer(MetricsRepository(path), "127.0.0.1", 0, limits=limits).start()
    stop = threading.Event()

    def wait_for_stop() -> None:
        sys.stdin.readline()
        stop.set()

    threading.Thread(target=wait_for_stop, daemon=True).start()
    print(ui.port, flush=True)
    failures: list[str] = []
    late, runs, start = 0.0, 0, time.monotonic()
    while not stop.is_set():
        due = start + runs * PERIOD
        time.sleep(max(0.0, due - time.monotonic()))
        late = max(late, time.monotonic() - due)
        try:
            with open(path, "rb"), contextlib.closing(socket.socketpair()[0]):
                key = ResultKey(runs * 60_000, {"dataset": "orders"})
                writer.save(key, [MetricRecord("Dataset", "*", "Size", "Size(*)", float(runs))])
        except Exception as error:  # what the scans would have reported
            failures.append(f"{type(error).__name__}: {error}")
        runs += 1
    guard = ui.connections
    ui.stop()
    summary = {"runs": runs, "failures": failures[:5], "failed": len(failures), "late": late}
    summary.update(refused=guard.refused, timed_out=guard.timed_out)
    print(json.dumps(summary), flush=True)


def _open_clients(port: int) -> list[socket.socket]:
    """CONNECTIONS connections: half silent, half sending the start of a header."""
    clients = []
    for i in range(CONNECTIONS):
        client = socket.socket()
        client.setblocking(False)
        client.connect_ex(("127.0.0.1", port))
        clients.append(client)
        if i % 2:
            with contextlib.suppress(OSError):
                client.send(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    return clients


def _health(port: int) -> int:
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", "/api/health")
        return connection.getresponse().status
    except OSError:
        return 0
    finally:
        connection.close()


def test_1100_slow_connections_leave_the_scans_running_on_time(tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 3 * CONNECTIONS:
        pytest.skip(f"this test's own client needs {3 * CONNECTIONS} open files, hard limit {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 3 * CONNECTIONS), hard))
    log = tmp_path / "serve.log"
    with log.open("w") as errors:
        child = subprocess.Popen(
            [sys.executable, __file__, str(tmp_path / "metrics.duckdb")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True, cwd=ROOT,
        )  # fmt: skip
    clients: list[socket.socket] = []
    try:
        assert child.stdout is not None and child.stdin is not None
        port = int(child.stdout.readline())
        assert _health(port) == 200
        clients = _open_clients(port)
        deadline = time.monotonic() + HOLD
        while time.monotonic() < deadline:  # the slow ones trickle a byte a second
            time.sleep(1.0)
            for client in clients[1::2]:
                with contextlib.suppress(OSError):
                    client.send(b"X")
        statuses = [_health(port) for _ in range(3)]
        child.stdin.write("stop\n")
        child.stdin.flush()
        summary = json.loads(child.stdout.readline())
        child.wait(timeout=30)
    finally:
        for client in clients:
            client.close()
        child.kill()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    text = log.read_text()
    assert summary["failed"] == 0, summary["failures"]
    assert summary["runs"] >= HOLD / PERIOD / 2, summary  # the scans kept their pace
    assert summary["late"] < 5.0, summary  # (a loaded machine: generous)
    assert summary["refused"] + summary["timed_out"] >= CONNECTIONS // 2, summary
    assert 200 in statuses, statuses  # the UI itself still answers
    assert text.count("Traceback") == 0 and len(text) < 20_000, text[:2000]


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    serve(sys.argv[1])
