"""Benchmark of the HTML report: generation time and file size for 10, 100 and 1,000 series of
365 daily points, and how fast the page is interactive in headless Chromium.

For each size a repository holds one dataset with ``Size(*)`` and ``Mean(price)`` per group
(series / 2 groups), 365 daily runs, a verdict with a band on every point from day 8 on and
about 1% anomalies. Measured, in one run:

* generation: ``write_report`` (read + snapshot + page), beside the floor of reading the same
  points with ``repo.load().to_pandas()``;
* file size, beside the 1.4 MB of BokehJS it embeds (and the 4.8 MB plotly.min.js alone would
  take);
* in Chromium (a fresh page per load, median of 3): time from navigation to the overview being
  interactive (``body[data-ready]``: scripts run, timeline drawn), to the first dataset page of
  small multiples being interactive, and, as the naive baseline, drawing every chart of that
  page at once instead of as they scroll into view;
* the demo's report size (``anomaly demo``, 90 days; ``--skip-demo`` leaves it out), and with
  ``--screenshots DIR`` screenshots of the demo report for the docs.

Usage: ``python3 bench/report.py [--sizes 10 100 1000] [--skip-demo] [--screenshots DIR]``;
writes ``bench/results/report.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from common import print_table, timed, write_results

from anomaly.report.assets import CHART_LIBRARY, asset_bytes
from anomaly.report.chromium import chromium, page_errors, wait_ready
from anomaly.report.page import write_report
from repository import AnomalyVerdict, MetricRecord, MetricsRepository, ResultKey

DAYS = 365
START = datetime(2025, 1, 1, tzinfo=UTC)
EAGER_BUDGET_S = 60  # drawing every chart at once stops after this (1,000 charts take longer)
PLOTLY_MIN_JS = 4_815_814  # bytes of plotly/package_data/plotly.min.js in plotly 7.1.0


def build_repository(path: Path, series: int, seed: int = 7) -> MetricsRepository:
    """`series` series (two metrics per group) of 365 daily points with verdicts."""
    rng = np.random.default_rng(seed)
    groups = max(1, series // 2)
    repo = MetricsRepository(path)
    weekly = 1 + 0.1 * np.sin(np.arange(DAYS) / 7 * 2 * math.pi)
    for day in range(DAYS):
        records, verdicts = [], []
        for g in range(groups):
            group = {"country": f"C{g:04d}"}
            for metric, name, base in (
                ("Size(*)", "Size", 1000.0 + g),
                ("Mean(price)", "Mean", 50.0),
            ):
                expected = base * weekly[day]
                value = expected * (1 + rng.normal(0, 0.02))
                spike = rng.random() < 0.01
                if spike:
                    value *= 0.5
                entity, instance = ("Dataset", "*") if name == "Size" else ("Column", "price")
                records.append(MetricRecord(entity, instance, name, metric, float(value), group))
                if day >= 7:
                    status = "anomaly" if spike else "normal"
                    verdicts.append(AnomalyVerdict(
                        metric, status, "OnlineNormal", float(value), expected * 0.9,
                        expected * 1.1, history_length=day, group=group))  # fmt: skip
        key = ResultKey(START + timedelta(days=day), {"dataset": "orders", "scan": "daily"})
        repo.save(key, records, verdicts=verdicts)
    return repo


def browser_times(driver: Any, page: Path, repeat: int = 3) -> dict[str, float]:
    """Medians (ms since navigation) of: the overview ready; the first dataset page interactive
    (built, first chart drawn) and ready (every chart in view drawn); and, the naive way, every
    chart of that page drawn at once."""
    overview, interactive, dataset = [], [], []
    for _ in range(repeat):
        driver.get("about:blank")
        driver.get(page.as_uri())
        overview.append(wait_ready(driver, "overview", timeout=120))
        driver.get("about:blank")
        driver.get(page.as_uri() + "#dataset-0")
        interactive.append(wait_ready(driver, "dataset-0", 120, mark="interactive"))
        dataset.append(wait_ready(driver, "dataset-0", timeout=120))
        assert page_errors(driver) == [], page_errors(driver)
    driver.set_script_timeout(EAGER_BUDGET_S + 60)
    eager_ms, drawn, total = driver.execute_async_script(
        """
        const [budget, done] = [arguments[0], arguments[arguments.length - 1]];
        const start = performance.now();
        const charts = [...document.querySelectorAll('#view-dataset-0 .chart:not([data-state])')];
        (async () => {
          let drawn = 0;
          for (const chart of charts) {
            if (performance.now() - start > budget) break;
            await Report.charts.draw(chart);
            drawn += 1;
          }
          const all = document.querySelectorAll('#view-dataset-0 .chart').length;
          done([performance.now() - start + window.reportReadyAt,
                drawn + all - charts.length, all]);
        })();""",
        EAGER_BUDGET_S * 1000,
    )
    return {
        "overview_ms": statistics.median(overview),
        "dataset_interactive_ms": statistics.median(interactive),
        "dataset_page_ms": statistics.median(dataset),
        "all_charts_eager_ms": eager_ms,
        "eager_charts_drawn": drawn,
        "charts": total,
    }


def _eager(times: dict[str, float]) -> str:
    if times["eager_charts_drawn"] < times["charts"]:
        seconds, drawn = times["all_charts_eager_ms"] / 1000, times["eager_charts_drawn"]
        return f"> {seconds:.0f} s ({drawn:.0f} of {times['charts']:.0f} charts)"
    return f"{times['all_charts_eager_ms']:.0f} ms"


def demo_report(screenshots: Path | None) -> dict[str, Any]:
    from anomaly.demo import run_demo

    folder = Path(tempfile.mkdtemp(prefix="bench-report-demo-"))
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # the demo's own summary
        assert run_demo(directory=str(folder), quiet=True) == 0
    report = folder / "report.html"
    result = {"bytes": report.stat().st_size, "demo_seconds": time.perf_counter() - started}
    if screenshots is not None:
        take_screenshots(report, screenshots)
        result["screenshots"] = str(screenshots)
    return result


def take_screenshots(report: Path, folder: Path) -> None:
    """The overview, the first dataset page and the anomalies of `report`, as PNGs."""
    folder.mkdir(parents=True, exist_ok=True)
    with chromium() as driver:
        driver.set_window_size(1400, 900)
        for view, name in (("overview", "report-overview"), ("dataset-0", "report-dataset"),
                           ("anomalies", "report-anomalies")):  # fmt: skip
            driver.get(report.as_uri() + "#" + view)
            wait_ready(driver, view)
            time.sleep(0.5)  # let the last frame paint
            driver.save_screenshot(str(folder / f"{name}.png"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10, 100, 1000])
    parser.add_argument("--skip-demo", action="store_true")
    parser.add_argument("--screenshots", type=Path, help="save demo report screenshots here")
    args = parser.parse_args()
    library = sum(len(asset_bytes(name)) for name in CHART_LIBRARY)
    rows, results = [], []
    with tempfile.TemporaryDirectory() as folder, chromium() as driver:
        for size in args.sizes:
            started = time.perf_counter()
            repo = build_repository(Path(folder) / f"m{size}.duckdb", size)
            filled = time.perf_counter() - started
            floor, _ = timed(lambda repo=repo: repo.load().to_pandas(), repeat=3)
            output = Path(folder) / f"report{size}.html"
            generate, _ = timed(lambda repo=repo, output=output: write_report(repo, output), 3)
            size_bytes = output.stat().st_size
            times = browser_times(driver, output)
            result = {
                "series": size, "days": DAYS, "points": size * DAYS, "fill_seconds": filled,
                "generate_seconds": generate, "read_points_seconds": floor,
                "bytes": size_bytes, "library_bytes": library, **times,
            }  # fmt: skip
            results.append(result)
            rows.append([
                size, f"{generate:.2f} s", f"{floor:.2f} s", f"{size_bytes / 1e6:.1f} MB",
                f"{(size_bytes - library) / 1e6:.2f} MB", f"{times['overview_ms']:.0f} ms",
                f"{times['dataset_interactive_ms']:.0f} ms", f"{times['dataset_page_ms']:.0f} ms",
                _eager(times),
            ])  # fmt: skip
            print(f"{size} series done", file=sys.stderr)
    print_table(
        ["series x 365 d", "generate", "read points (floor)", "file", "of it data+code",
         "overview ready", "dataset page interactive", "charts in view drawn",
         "all charts eagerly"], rows,
    )  # fmt: skip
    demo = None if args.skip_demo else demo_report(args.screenshots)
    if demo is not None:
        print(f"\ndemo report: {demo['bytes'] / 1e6:.2f} MB (target < 5 MB; plotly.min.js alone "
              f"is {PLOTLY_MIN_JS / 1e6:.1f} MB)")  # fmt: skip
    load = os.getloadavg()
    print(f"\nload average during the run: {load[0]:.1f} (2 cores)")
    path = write_results("report", {
        "sizes": results, "demo": demo, "plotly_min_js_bytes": PLOTLY_MIN_JS,
        "load_average": load[0],
    })  # fmt: skip
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
