"""PySpark's DataFrame debugging on and off: the monitors demo's daily metric passes.

PySpark 4 records the Python call site of every ``Column`` and ``functions`` call in the JVM
(``spark.python.sql.dataFrameDebugging.enabled``, on by default) for the query context of its
error messages: py4j round trips on every expression the engine builds. ``anomaly.spark``'s
``DEFAULT_CONF`` turns it off. PySpark reads the setting once per process, so each setting runs
in a process of its own, alternately: six daily passes of the monitors demo (the table as of
that day, one ``AnalysisRunner`` call of its 30 columns' monitors) after one warm-up day.

Prints the table and writes bench/results/dataframe_debugging.json.

    python bench/dataframe_debugging.py [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import print_table, write_results

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = ("true", "false")
DAYS = 6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="runs of each setting")
    args = parser.parse_args()
    rows: list[list[Any]] = []
    for index in range(args.rounds):
        for flag in SETTINGS if index % 2 == 0 else SETTINGS[::-1]:
            env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'bench'}"}
            done = subprocess.run(
                [sys.executable, __file__, "--child", flag], env=env, cwd=ROOT,
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            found = json.loads(done.stdout.strip().splitlines()[-1])
            rows.append([index + 1, flag, found["seconds"], found["round_trips"]])
    headers = ["round", "debugging", "seconds", "py4j round trips"]
    print_table(headers, rows)
    for flag in SETTINGS:
        mine = [r for r in rows if r[1] == flag]
        print(f"debugging {flag}: {sum(r[2] for r in mine):.1f} s in {len(mine)} runs")
    payload = {"days": DAYS, "rows": [dict(zip(headers, r, strict=True)) for r in rows],
               "load_average": os.getloadavg()[0]}  # fmt: skip
    print(f"wrote {write_results('dataframe_debugging', payload)}")


def child(flag: str) -> None:
    """Six daily passes with the setting `flag`; prints seconds and py4j round trips as JSON."""
    import py4j.clientserver as client
    from demo_row_groups import _pass, _runner

    from anomaly.monitors.demo_data import BACKFILLED, orders, write_as_of
    from anomaly.spark import build_session

    key = "spark.python.sql.dataFrameDebugging.enabled"
    build_session(master="local[2]", conf={"spark.sql.shuffle.partitions": "2", key: flag})
    calls = [0]
    send = client.ClientServerConnection.send_command

    def counted(self: Any, command: str) -> Any:
        calls[0] += 1
        return send(self, command)

    client.ClientServerConnection.send_command = counted
    table, root = orders(), Path(tempfile.mkdtemp(prefix="debugging-"))
    runner, data = _runner(root), root / "data" / "orders"
    seconds, before = 0.0, 0
    for index, day in enumerate(range(BACKFILLED, BACKFILLED + DAYS + 1)):
        before = calls[0] if index == 1 else before
        write_as_of(table, day, data)
        runner.spark.catalog.refreshByPath(str(data))
        taken, _ = _pass(runner, day)
        seconds += taken if index > 0 else 0.0
    print(json.dumps({"seconds": round(seconds, 2), "round_trips": calls[0] - before}))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
    else:
        main()
