"""The report and the live UI in a real browser (Debian's headless Chromium, via selenium):
charts drawn, one anomaly marker per stored anomaly verdict on every chart, filters and links
work, and names written like markup stay text. Screenshots go to the `screenshots` folder."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from anomaly.report.chromium import page_errors, wait_ready
from anomaly.report.page import write_report
from repository import MetricsRepository
from repository.keys import canonical_key
from tests.anomaly.report.conftest import XSS_DATASET, XSS_GROUP, XSS_NOTE
from tests.anomaly.service.conftest import write_config, write_events

# Every browser test on one xdist worker: one Chromium for the run, not one per worker.
pytestmark = pytest.mark.xdist_group("chromium")
ROOT = Path(__file__).resolve().parents[3]
CANVASES = """
const count = (root) => [...root.querySelectorAll('*')].reduce((n, e) => n
  + (e.tagName === 'CANVAS' && e.width > 0 ? 1 : 0) + (e.shadowRoot ? count(e.shadowRoot) : 0), 0);
return count(arguments[0]);"""


def draw_every_chart(browser: Any, view: str) -> list[dict[str, Any]]:
    """Scroll every chart of the dataset page into view (each is drawn lazily) and return, per
    chart, its series and the markers and canvases it drew."""
    cards = browser.find_elements("css selector", f"#view-{view} .chart")
    for card in cards:
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", card)
        deadline = time.monotonic() + 20
        while card.get_attribute("data-state") != "drawn":
            assert time.monotonic() < deadline, "a chart was never drawn"
            time.sleep(0.05)
    drawn = []
    for card in cards:
        series = browser.execute_script(
            "return Report.data.series[Number(arguments[0].dataset.sid)]", card
        )
        drawn.append(
            {
                "series": series,
                "markers": int(card.get_attribute("data-anomaly-markers")),
                "canvases": browser.execute_script(CANVASES, card),
            }
        )
    return drawn


def stored_anomalies(repo: MetricsRepository) -> Counter[tuple[str, str, str]]:
    verdicts = repo.load_verdicts(statuses=["anomaly"], tags={})
    datasets = repo.load_verdicts(statuses=["anomaly"], tags={"dataset": "orders"})
    assert len(datasets) == len(verdicts)  # every stored anomaly of the fixture is in orders
    return Counter(("orders", str(v.metric_id), str(v.group_key)) for v in verdicts.itertuples())


@pytest.mark.slow
def test_the_report_file(
    browser: Any, report_repository: Path, screenshots: Path, tmp_path: Path
) -> None:
    repo = MetricsRepository(report_repository)
    report = write_report(repo, tmp_path / "report.html", title="Report test")
    browser.get(report.as_uri())
    wait_ready(browser, "overview")
    assert page_errors(browser) == []
    assert browser.find_element("css selector", "h1").text == "Report test"
    assert browser.execute_script(CANVASES, browser.find_element("id", "timeline")) >= 1
    scans = browser.find_element("id", "scans").text
    assert "odd_daily" in scans and "boom" in scans and "failed" in scans
    browser.save_screenshot(str(screenshots / "report-overview.png"))

    # Every chart of every dataset: drawn, with exactly the stored anomalies as markers.
    expected = stored_anomalies(repo)
    seen: Counter[tuple[str, str, str]] = Counter()
    tabs = browser.find_elements("css selector", "nav.tabs a[data-view^=dataset-]")
    assert [t.text for t in tabs] == [XSS_DATASET, "orders"]  # the HTML-looking name is text
    for view in [t.get_attribute("data-view") for t in tabs]:
        browser.execute_script("location.hash = arguments[0]", view)
        wait_ready(browser, view)
        if view == "dataset-1":
            browser.save_screenshot(str(screenshots / "report-dataset.png"))
        for chart in draw_every_chart(browser, view):
            s = chart["series"]
            assert chart["canvases"] >= 1
            key = (s["dataset"], s["metric"], canonical_key(s["group"]))
            assert chart["markers"] == expected.get(key, 0), key
            seen[key] += chart["markers"]
    assert +seen == expected

    # A group, a dataset and a note written as markup are shown as text and never run.
    labels = [e.text for e in browser.find_elements("css selector", ".series-label")]
    assert f"country={XSS_GROUP}" in labels
    notes = [e.text for e in browser.find_elements("css selector", ".notes .note")]
    assert XSS_NOTE in notes
    assert browser.execute_script("return window.__pwned === undefined")
    assert browser.find_elements("css selector", "#app script, #app img") == []

    # Search on a dataset page hides the other series.
    browser.execute_script("location.hash = 'dataset-1'")
    wait_ready(browser, "dataset-1")
    search = browser.find_element("css selector", "#view-dataset-1 .series-search")
    search.send_keys("script")
    visible = browser.find_elements("css selector", "#view-dataset-1 .chart-card:not([hidden])")
    assert {e.find_element("css selector", ".series-label").text for e in visible} == {
        f"country={XSS_GROUP}"
    }
    assert page_errors(browser) == []


@pytest.mark.slow
def test_the_report_tables_filter_sort_and_link(
    browser: Any, report_repository: Path, screenshots: Path, tmp_path: Path
) -> None:
    report = write_report(MetricsRepository(report_repository), tmp_path / "report.html")
    browser.get(report.as_uri() + "#anomalies")
    wait_ready(browser, "anomalies")
    table = browser.find_element("id", "anomaly-table")

    def rows() -> list[list[str]]:
        return [
            [td.text for td in tr.find_elements("tag name", "td")]
            for tr in table.find_elements("css selector", "tbody tr:not(.below)")
        ]

    assert len(rows()) == 5
    status = browser.find_element("css selector", "#view-anomalies select[data-filter=status]")
    status.find_element("css selector", "option[value=error]").click()
    assert [r[5] for r in rows()] == ["error"]
    status.find_element("css selector", "option[value='']").click()
    text = browser.find_element("css selector", "#view-anomalies .filter-text")
    text.send_keys("country=DE")
    assert [r[4] for r in rows()] == ["country=DE", "country=DE"]
    text.clear()
    text.send_keys(" ")  # an input event with an empty filter: all rows again
    table.find_element("css selector", "th[data-key=value]").click()
    values = [float(r[6]) for r in rows() if r[6] != "-"]
    assert values == sorted(values)
    browser.save_screenshot(str(screenshots / "report-anomalies.png"))

    link = table.find_element("css selector", "a.chart-link")
    link.click()
    view = browser.execute_script("return location.hash")
    sid = view[3:].split("@")[0]
    wait_ready(
        browser, f"dataset-{browser.execute_script('return Report.data.series[' + sid + '].d')}"
    )
    card = browser.find_element("id", f"s-{sid}")
    assert card.is_displayed() and "flash" in card.get_attribute("class")

    browser.execute_script("location.hash = 'checks'")
    wait_ready(browser, "checks")
    level = browser.find_element("css selector", "#view-checks select[data-filter=status]")
    level.find_element("css selector", "option[value=Failure]").click()
    assert len(browser.find_elements("css selector", "#outcome-table tbody tr:not(.below)")) == 4
    browser.save_screenshot(str(screenshots / "report-checks.png"))
    assert page_errors(browser) == []


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


LIVE = """
spark: {master: "local[1]", conf: {spark.sql.shuffle.partitions: 1}}
sources:
  events: {path: events.parquet}
scans:
  quick:
    source: events
    group_by: country
    schedule: {interval: 2s}
    metrics: [Size, {analyzer: Mean, column: price}]
"""


@pytest.mark.slow
def test_the_live_ui_while_the_scheduler_runs(
    browser: Any, tmp_path: Path, screenshots: Path
) -> None:
    write_events(tmp_path / "events.parquet", days=3)
    config = write_config(tmp_path, LIVE)
    port, token = free_port(), "tok-" + os.urandom(8).hex()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ANOMALY_UI_TOKEN": token}
    process = subprocess.Popen(
        [sys.executable, "-m", "anomaly", "serve", str(config), "--ui", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 240
        while True:  # the UI starts before the first scan; wait for one to finish
            assert process.poll() is None, process.stdout.read() if process.stdout else ""
            assert time.monotonic() < deadline
            try:
                request = urllib.request.Request(
                    base + "api/snapshot", headers={"Authorization": f"Bearer {token}"}
                )
                snapshot = json.load(urllib.request.urlopen(request, timeout=10))
                if any(s["status"] == "ok" for s in snapshot["scans"]):
                    break
            except OSError:
                pass
            time.sleep(0.5)
        post = urllib.request.Request(base + "api/series", method="POST", data=b"{}")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(post, timeout=10)
        assert refused.value.code == 405
        browser.get(base + f"?token={token}")  # logs in, then redirects to the page
        wait_ready(browser, "overview")
        assert browser.execute_script("return location.href") == base
        assert "quick" in browser.find_element("id", "scans").text
        browser.save_screenshot(str(screenshots / "ui-overview.png"))
        browser.execute_script("location.hash = 'dataset-0'")
        wait_ready(browser, "dataset-0")
        drawn = draw_every_chart(browser, "dataset-0")
        assert {c["series"]["label"] for c in drawn} == {"country=DE", "country=FR"}
        assert all(c["canvases"] >= 1 for c in drawn)
        assert page_errors(browser) == []
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            output, _ = process.communicate(timeout=120)
        finally:
            process.kill()
    assert process.returncode == 0, output
    assert f"UI at {base} (read-only)" in output
    assert token not in output
