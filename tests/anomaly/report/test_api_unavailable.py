"""The report server answers 503, not a queue or a crash, while it cannot serve: a scan that cannot
save, a scheduler that does not run, more requests in flight than its cap."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from anomaly.report.serving import UIServer
from repository import MetricRecord, MetricsRepository, ResultKey
from tests.anomaly.report.test_api import request


@contextlib.contextmanager
def a_stuck_save(repo: MetricsRepository) -> Iterator[threading.Thread]:
    """A read that does not end (what a deadlocked read was) and a scan's save waiting for it,
    so every read after it waits too; both end on exit. Yields the save's thread."""
    record = [MetricRecord("Dataset", "*", "Size", "Size(*)", 1.0)]
    held, release = threading.Event(), threading.Event()

    def endless_read() -> None:
        with repo.sql():
            held.set()
            release.wait(60)

    reader = threading.Thread(target=endless_read)
    scan = threading.Thread(target=repo.save, args=(ResultKey(1, {"dataset": "d"}), record))

    def probe_read() -> None:
        with repo.sql():
            pass

    reader.start()
    held.wait(10)
    scan.start()
    probes: list[threading.Thread] = []
    # On a busy machine the save's thread may not wait for the lock yet: until it does, reads
    # still pass. A read that stays stuck says the save is queued.
    while len(probes) < 100:
        probes.append(threading.Thread(target=probe_read))
        probes[-1].start()
        probes[-1].join(0.1)
        if probes[-1].is_alive():
            break
    try:
        yield scan
    finally:
        release.set()
        reader.join(30)
        scan.join(30)
        for probe in probes:
            probe.join(30)


def one_run(path: Path) -> MetricsRepository:
    repo = MetricsRepository(path)
    repo.save(ResultKey(0, {"dataset": "d"}), [MetricRecord("Dataset", "*", "Size", "Size(*)", 1)])
    return repo


def test_health_is_503_while_a_scan_cannot_save(tmp_path: Path) -> None:
    repo = one_run(tmp_path / "m.duckdb")
    ui = UIServer(repo, "127.0.0.1", 0, health_deadline=1.0).start()
    try:
        assert request(ui, "/api/health")[0] == 200
        with a_stuck_save(repo) as scan:
            deadline = time.monotonic() + 15
            status, _, body = request(ui, "/api/health")
            while status == 200 and time.monotonic() < deadline:
                status, _, body = request(ui, "/api/health")
            assert status == 503 and json.loads(body)["status"] == "unavailable"
            assert "scans cannot save their results" in json.loads(body)["problems"][0]
        assert not scan.is_alive() and len(repo.history("Size(*)")) == 2
        assert request(ui, "/api/health")[0] == 200
    finally:
        ui.stop()


def test_health_is_503_while_the_scheduler_does_not_run() -> None:
    from apscheduler.schedulers.background import BackgroundScheduler

    from anomaly.report.health import scheduler_running

    scheduler = BackgroundScheduler(timezone="UTC")
    checks = [scheduler_running(scheduler)]
    ui = UIServer(MetricsRepository(":memory:"), "127.0.0.1", 0, health_checks=checks).start()
    try:
        status, _, body = request(ui, "/api/health")
        assert status == 503 and "scheduler is not running" in json.loads(body)["problems"][0]
        scheduler.start()
        assert request(ui, "/api/health")[0] == 200
        scheduler.shutdown()
        assert request(ui, "/api/health")[0] == 503
    finally:
        ui.stop()


def test_requests_over_the_in_flight_cap_get_503_not_a_queue(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from anomaly.report.server import MAX_IN_FLIGHT

    repo = one_run(tmp_path / "m.duckdb")
    ui = UIServer(repo, "127.0.0.1", 0).start()
    try:
        with ThreadPoolExecutor(MAX_IN_FLIGHT + 8) as pool:
            with a_stuck_save(repo):
                answers = [
                    pool.submit(request, ui, "/api/anomalies") for _ in range(MAX_IN_FLIGHT + 8)
                ]
                refused: list[tuple[int, dict[str, str], bytes]] = []
                deadline = time.monotonic() + 30
                while len(refused) < 8 and time.monotonic() < deadline:
                    refused = [a.result() for a in answers if a.done()]
                    time.sleep(0.05)
                assert [r[0] for r in refused] == [503] * 8
                assert refused[0][1]["retry-after"] == "1"
            statuses = [a.result(timeout=60)[0] for a in answers]  # the save ended
        assert statuses.count(200) == MAX_IN_FLIGHT and len(statuses) == MAX_IN_FLIGHT + 8
    finally:
        ui.stop()
