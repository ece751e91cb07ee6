"""The monitors demo's table with one row group per day vs one for the whole table.

For each day after the demo's backfill, the table as it stood that day is written twice: one
row group per day (``write_as_of``: a daily scan's filter on the time column reads only its
day's row group) and one row group for the whole table (the layout before). The day's metric
pass (one ``AnalysisRunner`` call on the day's partition) runs on each, side by side in
alternating order; the first day warms the JVM and is not counted. Every metric but the KLL
quantiles (randomised compactions: they vary from run to run in either layout) must be equal.

Prints the table and writes bench/results/demo_row_groups.json.

    python bench/demo_row_groups.py [--days 6]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from common import print_table, write_results
from monitors_demo_day import demo_runner, metrics_that_differ

from anomaly.config.settings import ScanSettings
from anomaly.demo_monitors import SCAN, _day
from anomaly.monitors.demo_data import BACKFILLED, as_of, orders, write_as_of
from anomaly.service.scan import ScanRunner
from anomaly.sources.reading import read_source, restrict_to_period

LAYOUTS = ("per day", "one")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=6, help="days counted (after one warm-up)")
    args = parser.parse_args()
    table = orders()
    roots = {layout: Path(tempfile.mkdtemp(prefix="row-groups-")) for layout in LAYOUTS}
    runners = {layout: demo_runner(root) for layout, root in roots.items()}
    rows: list[list[Any]] = []
    for index, day in enumerate(range(BACKFILLED, BACKFILLED + args.days + 1)):
        seconds, values, groups = {}, {}, {}
        for layout in LAYOUTS if index % 2 == 0 else LAYOUTS[::-1]:
            runner = runners[layout]
            data = roots[layout] / "data" / "orders"
            groups[layout] = _write(table, day, data, layout)
            runner.spark.catalog.refreshByPath(str(data))
            seconds[layout], values[layout] = _pass(runner, day)
        if index > 0:
            ratio = seconds["one"] / seconds["per day"]
            when = _day(day).date().isoformat()
            differ = metrics_that_differ(values["per day"], values["one"])
            row_groups = f"{groups['one']} / {groups['per day']}"
            rows.append([when, row_groups, seconds["one"], seconds["per day"], ratio, differ])
    headers = ["day", "row groups", "one s", "per day s", "ratio", "differ"]
    print_table(headers, rows)
    total = [sum(r[2] for r in rows), sum(r[3] for r in rows)]
    print(f"total: one {total[0]:.1f} s, per day {total[1]:.1f} s ({total[0] / total[1]:.2f}x)")
    payload = {"rows": [dict(zip(headers, r, strict=True)) for r in rows],
               "load_average": os.getloadavg()[0]}  # fmt: skip
    print(f"wrote {write_results('demo_row_groups', payload)}")


def _write(table: Any, day: int, data: Path, layout: str) -> int:
    """The table as of `day` in `layout`; returns its row groups."""
    if layout == "per day":
        write_as_of(table, day, data)
    else:
        data.mkdir(parents=True, exist_ok=True)
        for old in data.glob("*.parquet"):
            old.unlink()
        shown = pa.Table.from_pandas(as_of(table, day), preserve_index=False)
        path = data / f"orders-{day:02d}.parquet"
        pq.write_table(shown, path, coerce_timestamps="us", allow_truncated_timestamps=True)
    return int(pq.ParquetFile(next(data.glob("*.parquet"))).metadata.num_row_groups)


def _pass(runner: ScanRunner, day: int) -> tuple[float, dict[str, Any]]:
    """The day's monitor pass: seconds and metric values."""
    settings = ScanSettings.of(runner.config, SCAN)
    whole = read_source(runner.spark, SCAN, settings.source)
    monitor = runner.monitor(settings, whole)
    assert monitor is not None
    plans = settings.plans + monitor.plans
    df = restrict_to_period(whole, SCAN, settings.source, _day(day))
    started = time.perf_counter()
    context = runner.compute(SCAN, df, plans, [])
    seconds = time.perf_counter() - started
    return seconds, {f"{r.metric_id} {r.group}": r.value for r in context}


if __name__ == "__main__":
    main()
