"""A weekly row's last two weeks, read by their seasonal differences."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from detectors import Adaptive
from detectors.adaptive import recurrence, season_window
from detectors.adaptive.season_window import recent_test, season_test, weekly_window
from detectors.adaptive.transform import Transforms
from detectors.adaptive.young_window import window_test
from detectors.evaluation import ANOMALY


def weekly_counts(seed: int, days: pd.DatetimeIndex) -> np.ndarray:
    rng = np.random.default_rng(seed)
    weekend = np.asarray(days.dayofweek) >= 5
    level = 5000.0 * np.where(weekend, 0.5, 1.0) * (1 + 0.005 * np.arange(len(days)))
    return rng.poisson(level * rng.lognormal(0, 0.04, len(days))).astype(float)


def test_a_weekly_rows_young_load_is_judged_against_its_weekdays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Day 16 (a Wednesday) of 60 growing weekly counts judged together, loaded 1.6 times: a
    # window of 14 days holds two weekends, so its spread is the weekly profile's and says
    # little; the seasonal differences of the same 14 days see the noise.
    days = pd.date_range("2026-03-02", periods=24, freq="D")
    x = np.stack([weekly_counts(seed, days) for seed in range(60)])
    x[:, 16] *= 1.6
    detector = Adaptive().with_domain(0, None).at_times(np.tile(days.to_numpy(), (len(x), 1)))

    def found() -> int:
        codes = detector.evaluate_matrix(x, np.full(len(x), 17), np.full(len(x), 16)).codes
        return int((codes[:, 16] == ANOMALY).sum())

    seasonal = found()
    monkeypatch.setattr(season_window, "MIN_DIFFS", len(days))  # never enough differences
    assert seasonal >= found() + 10


def test_noise_a_model_reads_as_weekly_keeps_the_plain_window() -> None:
    # 7 differences of noise spread wider than its 14 values: the plain window judges it
    # (the monitors demo's column means, read by their differences, raised a false alarm).
    rng = np.random.default_rng(3)
    x = 80.0 + 5.0 * rng.standard_normal((400, 21))
    cells = np.zeros(x.shape, bool)
    cells[:, 14:] = True
    learn = np.ones(x.shape, bool)
    transforms = Transforms.choose(x)
    seasonal = (transforms.forward(x), np.full(x.shape, 7), transforms, (7,))
    plain = window_test(x, learn, cells, 1e-3, "both")
    recent = recent_test(x, learn, cells, 1e-3, "both", None, seasonal)
    kept = np.isclose(recent[2], plain[2], equal_nan=True)[cells].mean()
    assert kept >= 0.95, kept


@pytest.mark.parametrize("rate", [0.01, 0.001])
def test_seasonal_differences_keep_a_weekly_trend_within_the_rate(rate: float) -> None:
    # The law the test rests on: normal noise around a weekly profile and a trend, judged on
    # days 11-27 by the seasonal window alone, is flagged at most at the rate (within noise).
    rng = np.random.default_rng(5)
    rows, width = 4_000, 28
    profile = np.resize([0.0, 0.1, 0.2, 0.1, 0.0, -2.0, -2.5], width)
    y = 10.0 + profile + 0.05 * np.arange(width) + 0.1 * rng.standard_normal((rows, width))
    cells = np.zeros(y.shape, bool)
    cells[:, 11:] = True
    low, high, p, used = season_test(
        y,
        np.ones(y.shape, bool),
        cells,
        np.full(y.shape, 7),
        rate,
        "both",
        np.full(y.shape, np.inf),
    )
    assert used[cells].all()
    outside = (y < low) | (y > high)
    np.testing.assert_array_equal(outside[cells], p[cells] < rate)
    assert 0.5 * rate <= outside[cells].mean() <= 1.5 * rate


@pytest.mark.parametrize(("cycles", "narrower"), [((7,), True), ((), False)])
def test_the_recurrence_window_of_weekly_rows_judged_together_is_their_differences(
    cycles: tuple[int, ...], narrower: bool
) -> None:
    # A window of 14 days holds two weekends: its normal at 0.0001 / SHARE reaches over the
    # weekly profile. The seasonal differences' band is the noise's (rows judged together,
    # whose cycles ``settling.cycles`` gives; a single series keeps the window).
    days = pd.date_range("2026-03-02", periods=28, freq="D")
    x = weekly_counts(7, days)[None, :]
    learn = np.ones(x.shape, bool)
    cells = np.zeros(x.shape, bool)
    cells[0, 16:] = True
    at = np.nonzero(cells)
    plain = recurrence.window_cells(x, learn, at, 1e-4, "both")
    transforms = Transforms.choose(x)
    seasonal = (transforms.forward(x), np.full(x.shape, 7), transforms, cycles)
    low, high, floor = weekly_window(learn, at, 1e-4, "both", seasonal, plain)
    assert ((high - low) < (plain[1] - plain[0])).all() == narrower
    assert (floor == plain[2]).all() != narrower
    empty = weekly_window(learn, at, 1e-2, "both", seasonal, plain)  # 0.01 / SHARE >= 1
    assert np.isnan(empty[0]).all() == narrower
