"""Read-only commands import only what they use: no pyspark or numba (nor scipy, statsmodels
or pandas), whether the package is imported or a read-only sub-command runs; ``history -r``
not even the config's models (pydantic, YAML); ``serve --ui`` without scheduled scans starts no
JVM. Import checks in a fresh interpreter, not timings (``bench/cli_latency.py`` times them)."""

from __future__ import annotations

import importlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from repository import AnomalyVerdict, MetricRecord, MetricsRepository, ResultKey

from .service.conftest import day, write_config

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pyspark", "numba", "scipy", "statsmodels", "pandas")
CONFIG_MODELS = ("pydantic", "pydantic_core", "yaml")
PROBE = """
import json, sys
{body}
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & set({heavy}))))
"""
CONFIG = """
repository: metrics.duckdb
sources:
  events: {path: events.parquet, time_column: day}
scans:
  daily: {source: events, metrics: [Size]}
alerts:
  console: {type: log}
"""


def loaded(body: str, cwd: Path, among: tuple[str, ...] = HEAVY) -> list[str]:
    """The packages of `among` a fresh interpreter has loaded after running `body`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = PROBE.format(body=body, heavy=among)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout.splitlines()[-1]))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A config and a small repository with a judged series (no Spark)."""
    directory = tmp_path_factory.mktemp("readonly")
    repository = MetricsRepository(directory / "metrics.duckdb")
    for d, size in enumerate([10.0, 11, 2, 10]):
        verdict = AnomalyVerdict("Size(*)", "anomaly" if d == 2 else "normal", "Adaptive",
                                 value=size, lower=8.0, upper=12.0, history_length=d)  # fmt: skip
        repository.save(ResultKey(day(d), {"dataset": "events", "scan": "daily"}),
                        [MetricRecord("Dataset", "*", "Size", "Size(*)", size)],
                        verdicts=[verdict])  # fmt: skip
    repository.close()
    write_config(directory, CONFIG)
    return directory


@pytest.mark.parametrize(
    "body",
    [
        "import anomaly",
        "import anomaly.cli; anomaly.cli.build_parser()",
        "import detectors, repository, anomaly.config, anomaly.service, anomaly.report",
    ],
)
def test_importing_the_package_loads_no_spark_nor_numba(body: str, tmp_path: Path) -> None:
    assert loaded(body, tmp_path) == []


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["history", "-r", "metrics.duckdb", "Size(*)"], []),
        (["history", "-c", "anomaly.yml", "Size(*)", "--format", "csv"], []),
        (["anomalies", "-r", "metrics.duckdb", "--format", "json"], []),
        (["anomalies", "-c", "anomaly.yml"], []),
        (["validate-config", "anomaly.yml"], []),
        (["report", "anomaly.yml", "-o", "report.html"], []),
        (["plot", "-r", "metrics.duckdb", "Size(*)", "-o", "size.png"], []),
        (["--help"], []),
    ],
    ids=lambda argv: " ".join(argv[:2]) if isinstance(argv, list) and argv else "",
)
def test_read_only_commands_load_no_spark_nor_pandas(
    argv: list[str], expected: list[str], project: Path
) -> None:
    body = f"from anomaly.cli import main\nassert main({argv!r}) == 0"
    assert loaded(body, project) == expected


@pytest.mark.parametrize(
    ("argv", "among"),
    [
        (["history", "-r", "metrics.duckdb", "Size(*)", "--format", "json"], CONFIG_MODELS),
        (["anomalies", "-r", "metrics.duckdb", "--status", "all"], CONFIG_MODELS),
        (["plot", "-r", "metrics.duckdb", "Size(*)", "-o", "size.png"], CONFIG_MODELS),
        # With -c only the config's repository key is read: YAML, but no models.
        (["history", "-c", "anomaly.yml", "Size(*)"], CONFIG_MODELS[:2]),
        (["anomalies", "-c", "anomaly.yml"], CONFIG_MODELS[:2]),
        (["report", "anomaly.yml", "-o", "report.html"], CONFIG_MODELS[:2]),
    ],
    ids=lambda value: " ".join(value[:2]) if isinstance(value, list) else "",
)
def test_query_commands_load_no_config_models(
    argv: list[str], among: tuple[str, ...], project: Path
) -> None:
    body = f"from anomaly.cli import main\nassert main({argv!r}) == 0"
    assert loaded(body, project, among) == []


def test_the_public_names_still_import_and_win_over_same_named_submodules() -> None:
    import anomaly
    import anomaly.service
    import anomaly.service.backfill  # the submodule named like the exported function
    import detectors
    import repository.backends

    assert callable(anomaly.service.backfill) and anomaly.service.backfill.__name__ == "backfill"
    for package in (anomaly, anomaly.service, detectors, repository, repository.backends):
        missing = [name for name in package.__all__ if not hasattr(package, name)]
        assert missing == [], package.__name__
        assert set(package.__all__) <= set(dir(package))
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        _ = anomaly.Nope  # type: ignore[attr-defined]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_ui_without_scheduled_scans_starts_no_spark(project: Path) -> None:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "anomaly", "serve", "anomaly.yml", "--ui", f"127.0.0.1:{port}"],
        cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        deadline, page = time.monotonic() + 60, ""
        while not page:
            assert process.poll() is None and time.monotonic() < deadline
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
                    page = answer.read().decode()
            except OSError:
                time.sleep(0.2)
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        assert children == []  # no JVM was started
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=30)
    assert process.returncode == 0, output
    assert "serving the UI only (no Spark)" in output
    assert "pyspark" not in output.lower() and "Traceback" not in output


def test_the_suggest_formats_of_the_parser_are_the_renderers() -> None:
    # The package exports the function `render`, which answers for the submodule's name.
    cli = importlib.import_module("anomaly.suggestion.cli")
    render = importlib.import_module("anomaly.suggestion.render")
    assert cli.FORMATS == render.FORMATS
