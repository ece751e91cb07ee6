"""The ``anomaly`` command line: exit codes (0 ok, 1 warning, 2 error, 3 failure), outputs,
``--help`` everywhere, and no traceback for user errors. Most commands run in-process through
``main(argv)``; a few run as real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from anomaly.cli import build_parser, main
from repository import MetricsRepository

from .service.conftest import scan_config, write_config, write_events

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ["scan", "serve", "backfill", "history", "anomalies", "plot", "validate-config", "demo"]


def run(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m anomaly ARGV`` in a subprocess (a JVM it starts takes the test session's
    options from the environment: ``tests/conftest.py``'s ``child_jvm_env``)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "anomaly", *argv], capture_output=True, text=True, env=env,
        cwd=cwd, timeout=300, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def project(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Six days of events (FR drops on the last) with the first five backfilled."""
    directory = tmp_path_factory.mktemp("cli")
    write_events(directory / "events.parquet", days=6, drop_day=5)
    config = scan_config(directory)
    assert main(["backfill", str(config), "--until", "2026-03-05", "-q"]) == 0
    yield config


def test_help_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    for command in COMMANDS:
        assert command in text
        assert main([command, "--help"]) == 0
        assert "usage: anomaly " + command in capsys.readouterr().out
    assert "exit codes: 0 ok, 1 warnings, 2 anomalies" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["launch"], "invalid choice: 'launch'"),
        (["scan"], "the following arguments are required: CONFIG"),
        (["history", "Size(*)"], "one of the arguments -c/--config -r/--repository is required"),
        (["scan", "x.yml", "--at", "2026-01-01", "--partition", "2026-01-01"], "not allowed with"),
    ],
)
def test_usage_errors_exit_3(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 3
    assert message in capsys.readouterr().err


def test_config_errors_in_a_subprocess_exit_3_without_traceback(tmp_path: Path) -> None:
    good = scan_config(tmp_path)
    bad = write_config(tmp_path, good.read_text().replace("Size", "Sise"), "bad.yml")
    done = run("validate-config", str(good))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{good}: OK\n  repository  {tmp_path / 'metrics.duckdb'}")
    failed = run("validate-config", str(bad))
    assert failed.returncode == 3
    assert failed.stderr.startswith(f"anomaly validate-config: error: {bad}: line 12, ")
    assert "unknown analyzer 'Sise' (did you mean 'Size'?)" in failed.stderr
    assert "Traceback" not in failed.stderr + failed.stdout
    assert run("scan").returncode == 3


def test_scan_exit_codes(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = str(project)
    assert main(["scan", config, "--partition", "2026-03-05", "--no-alerts", "-q"]) == 0
    assert capsys.readouterr().out.startswith("daily 2026-03-05: 0 anomalies (3 metrics x 2")

    assert main(["scan", config, "--partition", "2026-03-06", "--no-alerts", "-q"]) == 2
    out, err = capsys.readouterr()
    reasons = err.splitlines()
    assert reasons[0] == "anomaly scan: exit 2 (anomalies or errors at ERROR level):"
    assert reasons[1].startswith("  daily 2026-03-06: ERROR anomaly Size(*) country=FR: 2, expe")
    assert reasons[2].startswith("  daily 2026-03-06: WARNING anomaly Completeness(price) countr")
    out = out.splitlines()
    assert out[0].startswith("daily 2026-03-06: 2 anomalies (3 metrics x 2 groups, ")
    assert out[1].split() == ["severity", "group", "metric", "value", "expected", "history",
                              "detector"]  # fmt: skip
    assert out[2].split()[:4] == ["ERROR", "country=FR", "Size(*)", "2"]
    assert out[3].split()[:3] == ["WARNING", "country=FR", "Completeness(price)"]

    scan_level = "source: events\n    severity: warning\n"
    text = project.read_text().replace("source: events\n", scan_level)
    warning = write_config(project.parent, text, "warning.yml")
    assert main(["scan", str(warning), "--partition", "2026-03-06", "--format", "json", "-q",
                 "--no-alerts"]) == 1  # fmt: skip
    out, err = capsys.readouterr()
    [report] = json.loads(out)
    assert (report["status"], report["problems"][0]["severity"]) == ("warning", "warning")
    assert err.startswith("anomaly scan: exit 1 (warnings):\n  daily 2026-03-06: WARNING anomaly")

    assert main(["scan", config, "--partition", "2026-03-09", "--no-alerts", "-q"]) == 1
    assert capsys.readouterr().err == (
        "anomaly scan: exit 1 (warnings): daily 2026-03-09: no rows in events for 2026-03-09\n"
    )

    missing = write_config(tmp_path, project.read_text().replace("events.parquet", "nope.parquet"))
    assert main(["scan", str(missing), "--partition", "2026-03-06", "-q"]) == 3
    out, err = capsys.readouterr()
    assert "FAILED: source 'events': cannot read parquet" in out
    assert err.startswith("anomaly scan: exit 3 (a scan failed): daily 2026-03-06: failed: source")
    assert main(["scan", config, "--scan", "dialy"]) == 3
    assert "unknown scan 'dialy' (did you mean 'daily'?)" in capsys.readouterr().err


@pytest.mark.slow  # a second JVM
def test_scan_in_a_subprocess_exits_2_on_an_anomaly(project: Path) -> None:
    done = run("scan", str(project), "--partition", "2026-03-06", "--no-alerts",
               cwd=project.parent)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "ERROR     country=FR  Size(*)" in done.stdout
    assert "daily: computing 3 metrics per country" in done.stderr  # progress
    assert "Traceback" not in done.stderr


def test_history_in_three_formats(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = str(project)
    assert main(["history", "-c", config, "Size(*)", "--until", "2026-03-03"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "timestamp   country=DE  country=FR",
        "2026-03-01          20          10",
        "2026-03-02          21          11",
        "2026-03-03          22          10",
    ]
    assert main(["history", "-c", config, "Size(*)", "--group", "country=FR", "--since",
                 "2026-03-04", "--until", "2026-03-05", "--format", "csv"]) == 0  # fmt: skip
    assert capsys.readouterr().out.splitlines() == [
        "time,metric,country,value",
        "2026-03-04T00:00:00Z,Size(*),FR,11.0",
        "2026-03-05T00:00:00Z,Size(*),FR,10.0",
    ]
    repo = str(MetricsRepository(project.parent / "metrics.duckdb").path)
    assert main(["history", "-r", repo, "--scan", "daily", "Mean(price)", "--format", "json",
                 "--since", "2026-03-05", "--until", "2026-03-05"]) == 0  # fmt: skip
    points = json.loads(capsys.readouterr().out)
    assert [(p["group"], p["time"], p["metric"]) for p in points] == [
        ({"country": "DE"}, "2026-03-05T00:00:00Z", "Mean(price)"),
        ({"country": "FR"}, "2026-03-05T00:00:00Z", "Mean(price)"),
    ]
    assert main(["history", "-c", config, "Size"]) == 3
    assert "unknown metric 'Size' (did you mean 'Size(*)'?); stored metrics: " in (
        capsys.readouterr().err
    )
    assert main(["history", "-r", str(project.parent / "nope.duckdb"), "Size(*)"]) == 3
    assert "does not exist" in capsys.readouterr().err


def test_anomalies_and_plot(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = str(project)
    assert main(["scan", config, "--partition", "2026-03-06", "--no-alerts", "-q"]) == 2
    capsys.readouterr()
    assert main(["anomalies", "-c", config]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["time", "scan", "group", "metric", "status", "value",
                                "expected", "history", "detector"]  # fmt: skip
    assert [line.split()[:5] for line in lines[1:]] == [
        ["2026-03-06", "daily", "country=FR", "Completeness(price)", "anomaly"],
        ["2026-03-06", "daily", "country=FR", "Size(*)", "anomaly"],
    ]
    assert main(["anomalies", "-c", config, "--status", "all", "--metric", "Size(*)",
                 "--group", "country=DE", "--format", "json", "--limit", "5"]) == 0  # fmt: skip
    rows = json.loads(capsys.readouterr().out)
    assert [r["status"] for r in rows] == ["normal"] * 3 + ["insufficient_history"] * 2
    assert {r["group"]["country"] for r in rows} == {"DE"}

    png = project.parent / "plots" / "size.png"
    assert main(["plot", "-c", config, "Size(*)", "--group", "country=FR", "-o", str(png)]) == 0
    assert capsys.readouterr().out == f"wrote {png}\n"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
@pytest.mark.parametrize("tuned", [False, True], ids=["default detector", "tuned config"])
def test_the_demo_finds_the_injected_incidents_and_nothing_else(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str], tuned: bool
) -> None:
    # The demo as a user runs it (90 days). At 60 days the default holds back the partial load:
    # with 40 days of history its p-value (8e-4) is no smaller than the noisiest normal day's.
    args = ["demo", "--dir", str(tmp_path), "-q", *(["--tuned"] * tuned)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Anomalies found (3 of 3 injected incidents, 0 other alarms)" in out
    for incident in ("partial load", "40% of prices missing", "prices x10"):
        assert incident in out
    config = (tmp_path / "anomaly.yml").read_text()
    assert ("detector:" in config) is tuned  # the default config names no detector at all
    assert (tmp_path / "plots" / "size.png").read_bytes()[:4] == b"\x89PNG"
    report = tmp_path / "report.html"
    assert f"Report: {report}" in out
    assert 1_000_000 < report.stat().st_size < 5_000_000  # BokehJS inside, under the 5 MB aim
    assert main(["validate-config", str(tmp_path / "anomaly.yml")]) == 0
    assert main(["demo", "--days", "10"]) == 3
    assert "--days must be at least 60" in capsys.readouterr().err


def test_the_parser_wires_the_suggest_command_when_present() -> None:
    parser = build_parser()
    actions = [a for a in parser._actions if a.dest == "command"]
    choices = set(actions[0].choices or [])  # type: ignore[arg-type]
    assert set(COMMANDS) <= choices
    try:
        import anomaly.suggestion.cli  # noqa: F401
    except ImportError:
        assert "suggest" not in choices
    else:
        assert "suggest" in choices


def test_monitor_help_says_it_judges_yesterday_and_how_to_judge_history(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--help"]) == 0
    (listed,) = [line for line in capsys.readouterr().out.splitlines() if "monitor  " in line]
    assert "judge yesterday's partition" in listed and "--at TIME" in listed
    assert main(["monitor", "--help"]) == 0
    description = capsys.readouterr().out.split("\n\n")[1]
    assert description.startswith("Judge yesterday's partition of PATH_OR_TABLE")
    assert "For historical data give --at" in " ".join(description.split())
