"""Small inputs: the monitors demo's daily scans with every slot stacked vs in one wide row.

For each day after the demo's backfill (the table as it stood that day, 1,500 of its 70,000
rows), the monitors' metric pass (one ``AnalysisRunner`` call) runs twice side by side, in
alternating order: once with the layout the stacked scan chooses (``wide_limit``: stacked, the
input being under ``SMALL_INPUT``) and once forced into one wide row (``WIDE_SLOTS``, the layout
before). The first day warms the JVM and is not counted. Every metric but the KLL quantiles
(randomised compactions: they vary from run to run in either layout) must be equal.

Prints the table and writes bench/results/small_input_layout.json.

    python bench/small_input_layout.py [--days 6]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from common import print_table, write_results
from monitors_demo_day import demo_runner, metrics_that_differ

import anomaly.engine.runner as engine
from anomaly.config.settings import ScanSettings
from anomaly.demo_monitors import SCAN, _day
from anomaly.engine.stacked_scan import WIDE_SLOTS, stacked_scan, wide_limit
from anomaly.monitors.demo_data import BACKFILLED, orders, write_as_of
from anomaly.service.scan import ScanRunner
from anomaly.sources.reading import read_source, restrict_to_period

LAYOUTS = ("chosen", "wide")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=6, help="days counted (after one warm-up)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="small-input-"))
    table, data = orders(), root / "data" / "orders"
    runner = demo_runner(root)
    settings = ScanSettings.of(runner.config, SCAN)
    rows: list[list[Any]] = []
    for index, day in enumerate(range(BACKFILLED, BACKFILLED + args.days + 1)):
        write_as_of(table, day, data)
        runner.spark.catalog.refreshByPath(str(data))
        seconds, values = {}, {}
        for layout in LAYOUTS if index % 2 == 0 else LAYOUTS[::-1]:
            seconds[layout], values[layout] = _pass(runner, settings, day, layout == "wide")
        chosen = wide_limit(_day_frame(runner, settings, day))
        differ = metrics_that_differ(values["chosen"], values["wide"])
        if index > 0:
            ratio = seconds["wide"] / seconds["chosen"]
            when = _day(day).date().isoformat()
            metrics = len(values["wide"])
            rows.append([when, chosen, seconds["wide"], seconds["chosen"], ratio, metrics, differ])
    headers = ["day", "chosen wide", "wide s", "chosen s", "ratio", "metrics", "differ"]
    print_table(headers, rows)
    total = [sum(r[2] for r in rows), sum(r[3] for r in rows)]
    print(f"total: wide {total[0]:.1f} s, chosen {total[1]:.1f} s ({total[0] / total[1]:.2f}x)")
    payload = {"rows": [dict(zip(headers, r, strict=True)) for r in rows],
               "load_average": os.getloadavg()[0]}  # fmt: skip
    print(f"wrote {write_results('small_input_layout', payload)}")


def _day_frame(runner: ScanRunner, settings: ScanSettings, day: int) -> Any:
    df = read_source(runner.spark, SCAN, settings.source)
    return restrict_to_period(df, SCAN, settings.source, _day(day))


def _pass(
    runner: ScanRunner, settings: ScanSettings, day: int, wide: bool
) -> tuple[float, dict[str, Any]]:
    """The day's monitor pass in the chosen layout or forced wide: seconds and metric values."""
    monitor = runner.monitor(settings, read_source(runner.spark, SCAN, settings.source))
    assert monitor is not None
    plans = settings.plans + monitor.plans
    df = _day_frame(runner, settings, day)
    forced = WIDE_SLOTS if wide else None
    engine.stacked_scan = lambda *a, **k: stacked_scan(*a, **k, wide=forced)
    try:
        started = time.perf_counter()
        context = runner.compute(SCAN, df, plans, [])
        seconds = time.perf_counter() - started
    finally:
        engine.stacked_scan = stacked_scan
    return seconds, {f"{r.metric_id} {r.group}": r.value for r in context}


if __name__ == "__main__":
    main()
