"""The report's charts and tables read in a real browser (headless Chromium) at 1,400 px and at
a laptop's 1,024 px: the Size(*) chart's y-range follows the values under a band of millions,
statuses say "anomaly", the schema changes show, counts are singular, and the anomalies'
detail stays on screen."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from anomaly.report.chromium import page_errors, wait_ready
from anomaly.report.page import write_report
from repository import MetricsRepository
from tests.anomaly.report.test_chart_payload import fill

# Every browser test on one xdist worker: one Chromium for the run, not one per worker.
pytestmark = pytest.mark.xdist_group("chromium")


def drawn(browser: Any, metric: str) -> Any:
    """The drawn chart of `metric` (scrolled into view and drawn)."""
    [card] = [
        c
        for c in browser.find_elements("css selector", ".chart-card")
        if c.find_element("xpath", "ancestor::div[@class='metric-block']//h3").text.startswith(
            metric
        )
    ]
    chart = card.find_element("css selector", ".chart")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", chart)
    deadline = time.monotonic() + 30
    while chart.get_attribute("data-state") != "drawn":
        assert time.monotonic() < deadline, f"the chart of {metric} was never drawn"
        time.sleep(0.05)
    return chart


@pytest.mark.slow
@pytest.mark.parametrize("width", [1400, 1024])
def test_charts_and_tables_read_at_desktop_and_laptop_widths(
    browser: Any, tmp_path: Path, screenshots: Path, width: int
) -> None:
    repo = MetricsRepository(tmp_path / "metrics.duckdb")
    fill(repo)
    report = write_report(repo, tmp_path / "report.html", title="Charts")
    browser.set_window_size(width, 1000)
    try:
        browser.get(report.as_uri())
        wait_ready(browser, "overview")
        # The "newest data" card holds one line; the scan that found an anomaly says so.
        card = browser.find_elements("css selector", ".card-value")[-1]
        assert "days ago" in card.text and card.size["height"] < 40
        scans = browser.find_element("id", "scans")
        badges = {b.text for b in scans.find_elements("css selector", ".badge")}
        assert {"anomaly", "failed metric", "warning"} <= badges and "error" not in badges

        browser.execute_script("location.hash = 'dataset-0'")
        wait_ready(browser, "dataset-0")
        size = drawn(browser, "Size(*)")
        low, high = json.loads(size.get_attribute("data-y-range"))
        assert low <= 25 and 121 <= high < 200  # values 25 .. 121; the band reached 5,000,000
        assert int(size.get_attribute("data-cut-markers")) == 7
        completeness = json.loads(
            drawn(browser, "Completeness(price)").get_attribute("data-y-range")
        )
        assert completeness[1] < 1.01  # the band, stored as [-3, 3], is clipped to [0, 1]
        browser.save_screenshot(str(screenshots / f"charts-size-{width}.png"))

        browser.execute_script("location.hash = 'anomalies'")
        wait_ready(browser, "anomalies")
        details = browser.find_elements("css selector", "#anomaly-table tr.below td > div")
        shown = " ".join(d.text for d in details)
        assert "[70.26, 130.4]" in shown and "70.256" not in shown  # 4 significant digits
        assert details and all(
            browser.execute_script("return arguments[0].getBoundingClientRect().right", d) <= width
            for d in details
        )
        values = [
            tr.find_elements("tag name", "td")[6].text
            for tr in browser.find_elements("css selector", "#anomaly-table tr:not(.below)")[1:]
        ]
        assert "24 h" in values  # the freshness anomaly, 86,400 s

        browser.execute_script("location.hash = 'monitors'")
        wait_ready(browser, "monitors")
        changes = browser.find_element("id", "section-schema-changes").text
        assert "coupon" in changes and "added" in changes
        counts = [
            e.text for e in browser.find_elements("css selector", "#view-monitors .row-count")
        ]
        assert counts == ["1 row", "1 row"]
        assert page_errors(browser) == []
    finally:
        browser.set_window_size(1400, 1000)
