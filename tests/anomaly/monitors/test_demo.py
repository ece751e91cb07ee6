"""The monitors demo: 60 days of a 30-column table with injected problems, three lines of config."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from anomaly.cli import main
from anomaly.monitors.demo_data import PROBLEMS


@pytest.mark.slow
def test_the_monitors_demo_finds_every_injected_problem(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--monitors", "--dir", str(tmp_path), "-q"]) == 0
    out = capsys.readouterr().out
    pattern = r"Findings \((\d+) of (\d+) injected problems found, (\d+) other alarms?\)"
    found = re.search(pattern, out)
    assert found, out
    caught, injected, others = map(int, found.groups())
    assert caught == injected == len(PROBLEMS)
    assert others <= 1  # the bound: at most one alarm that no injected problem explains
    config = [
        line for line in (tmp_path / "anomaly.yml").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]  # fmt: skip
    assert "monitors: auto" in "\n".join(config)
