"""Operating curves: recall at matched false-alert rates, from the library and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anomaly.backtest.curve import Point, matched, operating_curve, sweep
from anomaly.errors import ConfigurationError
from detectors import Adaptive, OnlineNormal, RelativeRateOfChange, RobustMAD
from repository import MetricsRepository
from tests.anomaly.backtest.test_repository import repo_path, run_cli, stored  # noqa: F401

POINTS = [Point(1e-2, 1.2, 0.9, 0.5), Point(1e-3, 0.4, 0.6, 0.6), Point(1e-5, 0.08, 0.3, 0.4)]


@pytest.mark.parametrize(
    ("target", "expected"), [(0.05, (0.0, None)), (0.1, (0.3, 1e-5)), (0.4, (0.6, 1e-3)),
                             (5.0, (0.9, 1e-2))],
)  # fmt: skip
def test_recall_at_a_rate_is_the_best_of_the_points_at_most_that_noisy(
    target: float, expected: tuple[float, float | None]
) -> None:
    assert matched(POINTS, target) == expected


def test_each_detector_sweeps_its_own_sensitivity() -> None:
    rates = sweep(Adaptive(season=None))
    assert all(d.false_alarm_rate == r and d.season is None for r, d in rates.items())
    factors = sweep(RobustMAD(window=14))
    assert all(d.upper_deviation_factor == k == d.lower_deviation_factor for k, d in
               factors.items()) and {d.window for d in factors.values()} == {14}  # fmt: skip
    with pytest.raises(ValueError, match="no sensitivity sweep for RelativeRateOfChange"):
        sweep(RelativeRateOfChange(max_rate_increase=2.0))


def test_a_quieter_point_never_finds_more(repo_path: Path) -> None:  # noqa: F811
    with MetricsRepository(repo_path) as repo:
        curve = operating_curve(repo, {"normal": OnlineNormal()}, metrics="Size(*)")
    recalls = [curve.recall_at("normal", t) for t in (0.05, 0.1, 0.3, 1.0, 100.0)]
    assert recalls == sorted(recalls) and recalls[-1] == 1.0
    assert curve.incidents == 1 and curve.clean_checks > 0


def test_the_cli_prints_the_curve(repo_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    code = run_cli("-r", str(repo_path), "Size(*)", "-d", "OnlineNormal", "--curve")
    printed = capsys.readouterr().out
    assert code == 0 and "recall @0.05 FA/100" in printed and "OnlineNormal" in printed
    code = run_cli("-r", str(repo_path), "Size(*)", "-d", "Adaptive", "--curve", "--format",
                   "json")  # fmt: skip
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and len(payload["points"]["Adaptive"]) == len(sweep(Adaptive()))
    with pytest.raises(
        ConfigurationError, match="--curve: no sensitivity sweep for RelativeRateOfChange"
    ):
        run_cli(
            "-r",
            str(repo_path),
            "Size(*)",
            "-d",
            "RelativeRateOfChange(max_rate_increase=2.0)",
            "--curve",
        )
