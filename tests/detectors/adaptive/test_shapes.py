"""Adaptive on shapes that need care: cumulative sizes, counts that are zero at night, business
hours with gaps, schedules that repeat to the unit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from detectors import Adaptive, Status, detect_series
from detectors.adaptive.transform import Transform, Transforms

DAYS = pd.date_range("2024-01-01", periods=120, freq="D", tz="UTC")
HOURS = pd.date_range("2024-01-01", periods=28 * 24, freq="h", tz="UTC")


def flagged(values: np.ndarray, times: pd.DatetimeIndex) -> list[int]:
    result = detect_series(pd.Series(values, index=times), Adaptive(), anomalies_only=False)
    return [int(i) for i in np.flatnonzero(result["status"] == Status.ANOMALY.value)]


def table_size(seed: int = 3) -> np.ndarray:
    """A table that only grows: a weekday batch of about 1% of its start, half on weekends."""
    rng = np.random.default_rng(seed)
    weekend = np.where(np.asarray(DAYS.dayofweek) >= 5, 0.5, 1.0)
    return np.round(1e6 + np.cumsum(1e4 * weekend * rng.lognormal(0, 0.05, len(DAYS))))


def test_a_growing_table_is_judged_on_its_increments() -> None:
    sizes = table_size()
    assert flagged(sizes, DAYS) == []
    stalled = sizes.copy()
    stalled[90:] -= stalled[90] - stalled[89]  # nothing was appended on day 90
    assert flagged(stalled, DAYS) == [90]
    doubled = sizes.copy()
    doubled[70:] += doubled[70] - doubled[69]  # day 70's batch was loaded twice
    assert flagged(doubled, DAYS) == [70]
    result = detect_series(pd.Series(doubled, index=DAYS), Adaptive())
    assert "increments" in result["detail"].iloc[0]


def test_a_one_day_truncation_alerts_once_not_again_when_the_table_is_back() -> None:
    sizes = table_size()
    truncated = sizes.copy()
    truncated[80] = 1_000.0
    assert flagged(truncated, DAYS) == [80]


def test_a_table_truncated_for_good_alerts_once_and_grows_on_from_there() -> None:
    sizes = table_size()
    restarted = sizes.copy()
    restarted[80:] -= restarted[79] - 5_000.0  # emptied on day 80, batches continue
    assert flagged(restarted, DAYS) == [80]


def flights_per_hour(seed: int = 5) -> np.ndarray:
    """A schedule: 20-35 an hour by day, none from 1 to 5 at night, one or two either side."""
    rng = np.random.default_rng(seed)
    hour = np.asarray(HOURS.hour)
    day = np.where((hour >= 6) & (hour <= 23), 20 + 15 * np.sin(np.pi * (hour - 6) / 18), 0.0)
    edge = np.isin(hour, [0, 5])
    return rng.poisson(np.where(edge, 1.0, day)).astype(float)


def test_zero_at_night_is_never_too_high_and_a_missing_midday_load_is_found() -> None:
    counts = flights_per_hour()
    nights = np.flatnonzero(np.isin(np.asarray(HOURS.hour), [1, 2, 3, 4, 5]))
    assert not set(flagged(counts, HOURS)) & set(nights.tolist())
    broken = counts.copy()
    noon = 20 * 24 + 12
    broken[noon] = 0.0
    assert noon in flagged(broken, HOURS)


def test_business_hours_with_gaps_are_judged_after_one_calendar_week() -> None:
    times = HOURS[(HOURS.dayofweek < 5) & (HOURS.hour >= 9) & (HOURS.hour <= 17)]
    rng = np.random.default_rng(2)
    calls = rng.poisson(400 + 200 * np.sin(np.pi * (np.asarray(times.hour) - 9) / 8)).astype(float)
    result = detect_series(pd.Series(calls, index=times), Adaptive(), anomalies_only=False)
    judged = times[result["status"].isin([Status.OK.value, Status.ANOMALY.value]).to_numpy()]
    # Judged from the second week (45 points in), not only after 168 points (the fourth).
    assert judged[0] < times[0] + pd.Timedelta(days=8)
    partial = calls.copy()
    late = int(np.flatnonzero(times >= times[0] + pd.Timedelta(days=10))[0]) + 4
    partial[late] = round(partial[late] * 0.4)
    assert late in flagged(partial, times)


def test_a_schedule_that_repeats_to_the_unit_is_quiet_and_a_lost_hour_is_found() -> None:
    rng = np.random.default_rng(8)
    week = np.round(rng.uniform(10, 40, 168))
    counts = np.tile(week, 4)
    jitter = rng.random(len(counts)) < 0.05
    counts[jitter] += rng.choice([-1.0, 1.0], jitter.sum())
    assert flagged(counts, HOURS) == []
    broken = counts.copy()
    noon = 3 * 168 + 12
    broken[noon] = 0.0
    assert flagged(broken, HOURS) == [noon]


@pytest.mark.parametrize(
    ("first_day", "kind"),
    [
        ([0, 0, 1, 0, 2, 5, 30, 60, 80, 90, 95, 90, 85, 80, 70, 60, 50, 40, 30, 20, 10, 5, 2, 1],
         Transform.SQRT),
        ([900, 800, 850, 870, 900, 1000, 3000, 6000, 8000] + [9000] * 15, Transform.LOG),
    ],
    ids=["quiet nights: square root", "busy all day: log"],
)  # fmt: skip
def test_counts_choose_their_scale_on_a_whole_first_day(first_day: list[int], kind: int) -> None:
    assert Transforms.choose(np.array([first_day], dtype=float), 24).kinds[0] == kind
