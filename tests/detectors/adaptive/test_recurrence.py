"""The quietest bands rank like a rolling window: recent levels can come back."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from detectors import Adaptive
from detectors.adaptive.recurrence import SHARE, window_floor

DAYS = pd.date_range("2026-01-05", periods=70, freq="D")


def weekly_counts(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    profile = np.where(DAYS.dayofweek >= 5, 600.0, 1000.0)
    return np.round(profile * rng.lognormal(0, 0.03, len(DAYS)))


@pytest.mark.parametrize("rate", [SHARE, 0.01, 0.1])
def test_at_the_default_rate_and_above_the_window_leaves_the_band_alone(rate: float) -> None:
    x = weekly_counts(1)[None, :]
    needed = np.zeros(x.shape, bool)
    needed[0, 20:] = True
    low, high, floor = window_floor(x, np.ones(x.shape, bool), needed, rate, "both")
    assert np.isnan(low).all() and np.isnan(high).all()
    assert (floor[needed] > 0).all() and (floor[needed] <= SHARE).all()


@pytest.mark.parametrize("side", ["both", "lower", "upper"])
def test_a_quieter_rate_never_narrows_the_window_band(side: str) -> None:
    x = weekly_counts(2)[None, :]
    needed = np.zeros(x.shape, bool)
    needed[0, 10:] = True
    every = np.ones(x.shape, bool)
    bands = [window_floor(x, every, needed, r, side)[:2] for r in (1e-4, 1e-6, 1e-9)]
    for (low, high), (quieter_low, quieter_high) in itertools.pairwise(bands):
        if side != "upper":
            assert (quieter_low[needed] <= low[needed]).all()
        if side != "lower":
            assert (quieter_high[needed] >= high[needed]).all()


def test_a_holiday_at_a_weekend_level_is_quiet_at_low_rates_a_lost_load_is_not() -> None:
    x = weekly_counts(3)
    monday = int(np.flatnonzero(DAYS.dayofweek == 0)[6])
    x[monday] = 610.0  # a holiday Monday at a Sunday's level: clean
    x[60] = 0.0  # a lost load
    detector = Adaptive(false_alarm_rate=1e-7).with_domain(0, None).at_times(DAYS)
    found = [a.index for a in detector.detect(x)]
    assert found == [60]
    loud = Adaptive(false_alarm_rate=1e-3).with_domain(0, None).at_times(DAYS)
    assert monday in [a.index for a in loud.detect(x)]  # the model alone still sees it
