"""How fast the read-only commands answer: time to the first line of output, before and after.

Each command runs on the demo's repository and config in a fresh interpreter (what a user's
shell does), ``--runs`` times, alternating the two checkouts so both see the same load; the
median is reported. ``before`` is a checkout given with ``--before`` (e.g. the main branch),
``after`` this one; the floor is ``python3 -c pass``, which no command can beat. The Slack
variable is unset, as on a laptop that never set it. On a loaded machine the wall times swell,
so the CPU seconds of each run are recorded too, and each command also runs under
``python3 -X importtime`` (median of the runs): the modules it imports (a count no load
changes), their summed import time and the biggest top-level packages. Prints a table and
writes bench/results/cli_latency.json.

    python bench/cli_latency.py --demo /tmp/demo [--before /path/to/main] [--runs 5]

Without ``--demo`` a demo is generated first (``anomaly demo``, minutes of Spark).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import print_table, write_results

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {
    "import anomaly": ["-c", "import anomaly"],
    "history": ["-m", "anomaly", "history", "-r", "metrics.duckdb", "Size(*)"],
    "history -c": ["-m", "anomaly", "history", "-c", "anomaly.yml", "Size(*)"],
    "anomalies": ["-m", "anomaly", "anomalies", "-c", "anomaly.yml"],
    "validate-config": ["-m", "anomaly", "validate-config", "anomaly.yml"],
    "report": ["-m", "anomaly", "report", "anomaly.yml", "-o", "{tmp}/report.html"],
    "plot": ["-m", "anomaly", "plot", "-r", "metrics.duckdb", "Size(*)", "-o", "{tmp}/p.png"],
}
FLOOR = ["-c", "pass"]


def first_line(argv: list[str], checkout: Path, demo: Path) -> tuple[float, float, float]:
    """Seconds to the first line on stdout (the exit, for commands that print none), to the
    exit, and of CPU (user + system: what a loaded machine swells least), of ``python3 ARGV``
    with `checkout` first on the path."""
    env = {k: v for k, v in os.environ.items() if k != "SLACK_WEBHOOK_URL"}
    env["PYTHONPATH"] = str(checkout)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, *argv], cwd=demo, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # fmt: skip
    assert process.stdout is not None
    line = process.stdout.readline()
    first = time.perf_counter() - start
    process.stdout.read()
    code = process.wait()
    if code != 0:
        raise SystemExit(f"{' '.join(argv)} (in {checkout}) exited {code}")
    total = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return (first if line else total), total, cpu


IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def import_times(argv: list[str], checkout: Path, demo: Path) -> dict[str, Any]:
    """Seconds ``python3 -X importtime ARGV`` spent importing (the sum of every module's own
    time), and the top-level packages that took longest (their cumulative seconds)."""
    env = {k: v for k, v in os.environ.items() if k != "SLACK_WEBHOOK_URL"}
    env["PYTHONPATH"] = str(checkout)
    done = subprocess.run([sys.executable, "-X", "importtime", *argv], cwd=demo, env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip
    own, modules, packages = 0, 0, dict[str, int]()
    for line in done.stderr.splitlines():
        found = IMPORT_LINE.match(line)
        if found:
            own, modules = own + int(found[1]), modules + 1
            if "." not in found[4]:
                packages[found[4]] = packages.get(found[4], 0) + int(found[2])
    top = sorted(packages.items(), key=lambda item: -item[1])[:6]
    return {"import_s": own / 1e6, "modules": modules,
            "top_packages_s": {name: us / 1e6 for name, us in top}}  # fmt: skip


def demo_directory(given: str | None) -> Path:
    if given:
        return Path(given)
    directory = Path(tempfile.mkdtemp(prefix="cli-latency-demo-"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "anomaly", "demo", "--dir", str(directory), "-q"],
                   check=True, env=env)  # fmt: skip
    return directory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", help="a directory written by `anomaly demo`")
    parser.add_argument("--before", help="another checkout to compare with (e.g. main)")
    parser.add_argument("--runs", type=int, default=5, help="runs per command and checkout")
    args = parser.parse_args()
    demo = demo_directory(args.demo)
    checkouts = {"after": ROOT, **({"before": Path(args.before)} if args.before else {})}
    tmp = tempfile.mkdtemp(prefix="cli-latency-")
    runs: dict[str, dict[str, list[tuple[float, float, float]]]] = {}
    profiles: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for _ in range(args.runs):  # round-robin: every command and checkout sees the same load
        for name, argv in {"python3 -c pass": FLOOR, **COMMANDS}.items():
            filled = [a.format(tmp=tmp) for a in argv]
            for label, checkout in checkouts.items():
                runs.setdefault(name, {}).setdefault(label, []).append(
                    first_line(filled, checkout, demo)
                )
                profiles.setdefault(name, {}).setdefault(label, []).append(
                    import_times(filled, checkout, demo)
                )
    imports = {  # the run of median import time, per command and checkout
        name: {label: sorted(found, key=lambda p: p["import_s"])[len(found) // 2]
               for label, found in by_checkout.items()}
        for name, by_checkout in profiles.items()
    }  # fmt: skip
    rows: list[list[Any]] = []
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for name, by_checkout in runs.items():
        medians: dict[str, dict[str, Any]] = {
            label: {
                "first_line_s": statistics.median(t[0] for t in times),
                "exit_s": statistics.median(t[1] for t in times),
                "cpu_s": statistics.median(t[2] for t in times),
                **imports.get(name, {}).get(label, {}),
            }
            for label, times in by_checkout.items()
        }
        results[name] = medians
        after = medians["after"]["first_line_s"]
        before = medians.get("before", {}).get("first_line_s")
        ratio = f"{before / after:.1f}x" if before else "-"
        cpu = [medians.get(label, {}).get("cpu_s", "-") for label in ("before", "after")]
        modules = [medians.get(label, {}).get("modules", "-") for label in ("before", "after")]
        rows.append([name, before if before is not None else "-", after, ratio, *cpu, *modules])
    floor = results["python3 -c pass"]["after"]["first_line_s"]
    for row in rows:
        row.append(f"{float(row[2]) - floor:.2f}")
    print(f"median of {args.runs} runs; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")  # fmt: skip
    headers = ["command", "before s", "after s", "speed-up", "CPU before s", "CPU after s",
               "modules before", "modules after"]  # fmt: skip
    print_table([*headers, "after - floor s"], rows)
    path = write_results(
        "cli_latency",
        {"runs": args.runs, "load_average": os.getloadavg()[0], "demo": str(demo),
         "before": args.before, "median_seconds": results},
    )  # fmt: skip
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
