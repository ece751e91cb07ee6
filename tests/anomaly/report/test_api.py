"""The live UI over real HTTP (uvicorn on a free loopback port): the JSON API's answers, 400s
with a message for bad parameters, 405 for every write method, the token, the Host check, and
that serving never changes the repository file."""

from __future__ import annotations

import http.client
import json
import logging
import os
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anomaly.report.serving import UIServer, parse_address
from repository import MetricRecord, MetricsRepository, ResultKey
from tests.anomaly.report.conftest import XSS_DATASET, XSS_GROUP

TOKEN = "s3cret-token-for-tests"


@pytest.fixture(scope="module")
def server(report_repository: Path) -> Iterator[UIServer]:
    ui = UIServer(MetricsRepository(report_repository), "127.0.0.1", 0).start()
    yield ui
    ui.stop()


def request(
    server: UIServer, path: str, method: str = "GET", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def get_json(server: UIServer, path: str) -> Any:
    status, _, body = request(server, path)
    assert status == 200, body
    return json.loads(body)


def test_series_are_points_with_the_verdicts_band(server: UIServer) -> None:
    rows = get_json(server, "/api/series?metric=Size(*)&group=country=DE&dataset=orders")
    assert len(rows) == 40 and rows[0]["time"] == "2026-01-01T00:00:00Z"
    assert rows[0]["status"] is None and rows[7]["status"] == "normal"
    assert (rows[7]["lower"], rows[7]["upper"]) == (88.0, 112.0)
    assert [r["time"][:10] for r in rows if r["status"] == "anomaly"] == [
        "2026-01-21",
        "2026-02-03",
    ]
    everything = get_json(server, "/api/series?metric=Size(*)")
    assert {json.dumps(r["group"]) for r in everything} == {
        '{"country": "DE"}',
        '{"country": "FR"}',
        json.dumps({"country": XSS_GROUP}),
        "{}",
    }
    since = get_json(
        server, "/api/series?metric=Size(*)&dataset=orders&since=2026-02-01&until=2026-02-02"
    )
    assert len(since) == 6  # two days x three countries, both bounds inclusive


def test_anomalies_outcomes_annotations_and_datasets(server: UIServer) -> None:
    anomalies = get_json(server, "/api/anomalies")
    assert [a["status"] for a in anomalies].count("anomaly") == 4
    assert anomalies[0]["status"] == "error" and anomalies[0]["dataset"] == XSS_DATASET
    assert len(get_json(server, "/api/anomalies?status=all&limit=3")) == 3
    assert get_json(server, "/api/anomalies?status=error&scan=orders_daily") == []
    failures = get_json(server, "/api/outcomes?status=Failure")
    assert [f["time"][:10] for f in failures] == [
        "2026-02-09",
        "2026-01-30",
        "2026-01-20",
        "2026-01-10",
    ]
    kinds = [a["kind"] for a in get_json(server, "/api/annotations")]
    assert kinds == ["incident", "expected"]
    assert get_json(server, "/api/annotations?kind=expected")[0]["note"] == "migration"
    datasets = {d["dataset"] for d in get_json(server, "/api/datasets")}
    assert datasets == {"orders", XSS_DATASET}
    assert set(get_json(server, "/api")["endpoints"]) >= {"/api/series", "/api/anomalies"}


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/api/series", "metric is required"),
        ("/api/series?metric=Size(*)&metric=x", "metric may be given once, got 2 values"),
        ("/api/series?metric=Size(*)&colour=red", "unknown parameter 'colour'"),
        ("/api/series?metric=Size(*)&group=DE", "group takes COLUMN=VALUE, got 'DE'"),
        ("/api/series?metric=Size(*)&since=last%20week", "since: invalid time 'last week'"),
        ("/api/anomalies?since=2026-03-01&until=2026-02-01", "since (2026-03-01T00:00:00+00:00)"),
        ("/api/anomalies?limit=0", "limit must be an integer from 1 to 10000, got '0'"),
        ("/api/anomalies?limit=ten", "limit must be an integer from 1 to 10000, got 'ten'"),
        ("/api/anomalies?limit=%C2%B2", "limit must be an integer from 1 to 10000, got '²'"),
        ("/api/series?metric=Size(*)&limit=%D9%A3", "limit must be an integer from 1 to 10000"),
        ("/api/series?metric=Size%00(*)", "parameter 'metric' holds a NUL character"),
        ("/api/outcomes?check=a&check=b%00", "parameter 'check' holds a NUL character"),
        ("/api/anomalies?x%00=1", "parameter 'x' holds a NUL character"),
        ("/api/anomalies?status=anomaly,", "status must not be empty"),
        ("/api/outcomes?dataset=", "dataset must not be empty"),
        ("/api/annotations?kind=bug", "kind must be one of incident, expected, excluded; got"),
        ("/api/snapshot?x=1", "/api/snapshot takes no parameters"),
        ("/?debug=1", "the page (use /?token=... only to log in) takes no parameters"),
    ],
)  # fmt: skip
def test_bad_parameters_are_400_with_a_message(server: UIServer, path: str, message: str) -> None:
    status, headers, body = request(server, path)
    assert status == 400 and headers["content-type"] == "application/json"
    assert message in json.loads(body)["error"]


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
@pytest.mark.parametrize("path", ["/", "/api/series", "/api/annotations", "/api/nothing"])
def test_there_are_no_write_routes(server: UIServer, method: str, path: str) -> None:
    status, headers, body = request(server, path, method)
    assert status == 405 and headers["allow"] == "GET, HEAD"
    assert json.loads(body) == {"error": f"this UI is read-only: {method} is not allowed"}


def test_pages_assets_and_headers(server: UIServer) -> None:
    status, headers, body = request(server, "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"
    assert b'<script src="assets/bokeh.min.js">' in body
    assert XSS_GROUP.encode() not in body  # only the escaped JSON form is in the page
    status, headers, body = request(server, "/assets/bokeh-api.min.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    assert request(server, "/assets/..%2Fserver.py")[0] == 404
    assert request(server, "/nothing")[0] == 404
    assert request(server, "/api/health", "HEAD")[0] == 200


def test_only_loopback_host_names_are_served(server: UIServer) -> None:
    status, _, _ = request(server, "/api/health", headers={"Host": "attacker.example:80"})
    assert status == 400  # a DNS-rebinding page cannot read the UI
    assert request(server, "/api/health", headers={"Host": "localhost"})[0] == 200


def test_serving_never_writes_the_repository(report_repository: Path, server: UIServer) -> None:
    before = os.stat(report_repository)
    for path in ("/", "/api/snapshot", "/api/series?metric=Mean(price)", "/api/anomalies",
                 "/api/outcomes", "/api/annotations"):  # fmt: skip
        assert request(server, path)[0] == 200
    after = os.stat(report_repository)
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)


def test_the_page_follows_new_runs(tmp_path: Path) -> None:

    repo = MetricsRepository(tmp_path / "m.duckdb")
    repo.save(
        ResultKey(0, {"dataset": "first"}), [MetricRecord("Dataset", "*", "Size", "Size(*)", 1.0)]
    )
    ui = UIServer(MetricsRepository(tmp_path / "m.duckdb"), "127.0.0.1", 0).start()
    try:
        assert [d["dataset"] for d in get_json(ui, "/api/datasets")] == ["first"]
        repo.save(
            ResultKey(0, {"dataset": "second"}),
            [MetricRecord("Dataset", "*", "Size", "Size(*)", 2.0)],
        )
        assert [d["dataset"] for d in get_json(ui, "/api/datasets")] == ["first", "second"]
    finally:
        ui.stop()


def test_a_token_guards_everything_but_health(
    report_repository: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    ui = UIServer(MetricsRepository(report_repository), "127.0.0.1", 0, token=TOKEN).start()
    try:
        status, headers, _ = request(ui, "/api/anomalies")
        assert status == 401 and headers["www-authenticate"] == "Bearer"
        assert request(ui, "/api/anomalies", headers={"Authorization": "Bearer wrong"})[0] == 401
        assert request(ui, "/api/health")[0] == 200
        ok = request(ui, "/api/anomalies", headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok[0] == 200
        status, headers, _ = request(ui, f"/?token={TOKEN}")
        assert status == 303 and headers["location"] == "/"
        cookie = headers["set-cookie"].split(";")[0]
        assert "httponly" in headers["set-cookie"].lower()
        assert request(ui, "/", headers={"Cookie": cookie})[0] == 200
        assert request(ui, "/?token=guess")[0] == 401
    finally:
        ui.stop()
    assert TOKEN not in caplog.text


def test_addresses() -> None:
    assert parse_address("0.0.0.0:9000") == ("0.0.0.0", 9000)
    with pytest.raises(ValueError, match=r"PORT from 0 to 65535, got '127\.0\.0\.1:99999'"):
        parse_address("127.0.0.1:99999")
    taken = UIServer(MetricsRepository(":memory:"), "127.0.0.1", 0).start()
    try:
        with pytest.raises(ValueError, match=f"cannot listen on 127.0.0.1:{taken.port}"):
            UIServer(MetricsRepository(":memory:"), "127.0.0.1", taken.port)
    finally:
        taken.stop()


def test_urllib_sees_json_errors(server: UIServer) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(server.url + "api/series")
    assert caught.value.code == 400


def test_a_writer_holding_the_file_gives_a_503_not_a_crash(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "m.duckdb"
    MetricsRepository(path).save(
        ResultKey(0, {"dataset": "d"}), [MetricRecord("Dataset", "*", "Size", "Size(*)", 1.0)]
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys\nfrom repository import MetricsRepository\n"
            f"repo = MetricsRepository({str(path)!r})\n"
            "with repo.session():\n"
            "    repo.annotate('incident', 0)\n"  # a write: the session now holds it alone
            "    print('holding', flush=True)\n"
            "    sys.stdin.readline()\n"  # held until the test has had its 503 (was 4 s)
        )],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        cwd=Path(__file__).resolve().parents[3],
    )  # fmt: skip
    ui = UIServer(MetricsRepository(path, lock_timeout=0.5), "127.0.0.1", 0).start()
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        status, _, body = request(ui, "/api/anomalies")
        assert status == 503
        assert "the repository cannot be read now" in json.loads(body)["error"]
        assert "lock_timeout" in json.loads(body)["error"]
        assert holder.stdin is not None
        holder.stdin.write("done\n")
        holder.stdin.close()
        holder.wait(timeout=30)
        assert request(ui, "/api/anomalies")[0] == 200  # once the writer is done
    finally:
        ui.stop()
        holder.kill()


def test_an_ipv6_loopback_bind_answers_its_host_name() -> None:
    try:
        ui = UIServer(MetricsRepository(":memory:"), "::1", 0).start()
    except ValueError as error:
        pytest.skip(f"no IPv6 loopback here: {error}")
    try:
        assert ui.url.startswith("http://[::1]:")
        assert json.loads(urllib.request.urlopen(ui.url + "api/health").read()) == {"status": "ok"}
    finally:
        ui.stop()


def test_the_cookie_holds_a_session_derived_from_the_token(report_repository: Path) -> None:
    from anomaly.report.server import COOKIE

    ui = UIServer(MetricsRepository(report_repository), "127.0.0.1", 0, token=TOKEN).start()
    other = UIServer(MetricsRepository(report_repository), "127.0.0.1", 0, token=TOKEN).start()
    try:
        status, headers, _ = request(ui, f"/?token={TOKEN}")
        assert status == 303 and TOKEN not in headers["set-cookie"]
        assert "max-age=" in headers["set-cookie"].lower()
        cookie = headers["set-cookie"].split(";")[0]
        expiry, _, mac = cookie.partition("=")[2].partition(".")
        for given, expected in (
            (cookie, 200),
            (f"{COOKIE}={TOKEN}", 401),  # the raw token is no session
            (f"{COOKIE}={int(expiry) + 86_400}.{mac}", 401),  # nor is a later expiry
        ):
            assert request(ui, "/api/anomalies", headers={"Cookie": given})[0] == expected, given
        assert request(other, "/api/anomalies", headers={"Cookie": cookie})[0] == 401
    finally:
        ui.stop()
        other.stop()


def test_wrong_tokens_earn_the_client_a_growing_lockout(report_repository: Path) -> None:

    from anomaly.report.access import FREE_FAILURES

    ui = UIServer(MetricsRepository(report_repository), "127.0.0.1", 0, token=TOKEN).start()
    right = {"Authorization": f"Bearer {TOKEN}"}
    try:
        wrong = [request(ui, "/api/anomalies", headers={"Authorization": "Bearer guess"})[0]]
        wrong += [request(ui, "/?token=guess")[0] for _ in range(FREE_FAILURES)]
        assert wrong == [401] * (FREE_FAILURES + 1)
        status, headers, body = request(ui, "/api/anomalies", headers=right)
        assert status == 429 and headers["retry-after"] == "1"  # even the right token waits
        assert "too many wrong tokens" in json.loads(body)["error"]
        assert request(ui, "/api/health")[0] == 200
        time.sleep(1.2)
        assert request(ui, "/api/anomalies", headers=right)[0] == 200
        assert request(ui, "/?token=guess")[0] == 401  # a right token cleared the count
    finally:
        ui.stop()
