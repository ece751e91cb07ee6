"""Adaptive: seasons, level shifts, short histories, missing and infinite values, parameters."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from detectors import (
    Adaptive,
    InvalidParameterError,
    Status,
    detect_frame,
    detect_series,
    is_newest_anomalous,
    walk_forward,
)
from detectors.adaptive.seasons import periods_for_spacing, seasons_for_periods

RNG = np.random.default_rng(11)
DAYS = pd.date_range("2024-01-01", periods=140, freq="D", tz="UTC")


def weekly_counts(n: int = 140, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    week = np.where(np.arange(n) % 7 >= 5, 0.5, 1.0)
    return np.round(20_000 * week * rng.lognormal(0, 0.03, n))


def flagged(values: np.ndarray, times: pd.DatetimeIndex, detector: Adaptive) -> list[int]:
    result = detect_series(pd.Series(values, index=times), detector, anomalies_only=False)
    return [int(i) for i in np.flatnonzero(result["status"] == Status.ANOMALY.value)]


@pytest.mark.parametrize(
    ("spacing", "periods", "seasons"),
    [
        (86_400.0, (7,), (((1, 7),),)),
        (3_600.0, (24, 168), (((1, 24), (24, 7)), ((1, 168),))),
        (900.0, (96, 672), (((1, 96), (96, 7)), ((1, 672),))),
        (7 * 86_400.0, (52,), (((1, 52),),)),
        (365.25 * 86_400 / 12, (12,), (((1, 12),),)),
        (365.25 * 86_400, (), ()),
    ],
    ids=["daily", "hourly", "15 minutes", "weekly", "monthly", "yearly"],
)
def test_calendar_periods_follow_the_spacing(
    spacing: float, periods: tuple[int, ...], seasons: tuple[object, ...]
) -> None:
    assert periods_for_spacing(spacing) == periods
    assert seasons_for_periods(periods) == seasons


def test_timestamps_choose_the_season_and_a_weekday_partial_load_is_found() -> None:
    values = weekly_counts()
    values[100] *= 0.6  # a partial load on a weekday, still above any weekend
    assert flagged(values, DAYS, Adaptive()) == [100]
    detail = detect_series(pd.Series(values, index=DAYS), Adaptive())["detail"].iloc[0]
    assert "period 7" in detail and "log scale" in detail


def test_without_timestamps_the_period_comes_from_the_values() -> None:
    values = weekly_counts()
    assert Adaptive().periods(values) == (7,)
    assert Adaptive(season=None).periods(values) == ()
    values[100] *= 0.6
    assert [a.index for a in Adaptive().detect(values)] == [100]


def test_hourly_points_learn_hour_of_day_and_day_of_week() -> None:
    hours = pd.date_range("2024-03-04", periods=24 * 28, freq="h", tz="UTC")  # from a Monday
    rng = np.random.default_rng(3)
    day = 0.2 + np.clip(np.sin(np.pi * (np.asarray(hours.hour) - 6) / 16), 0, None)
    weekend = np.where(np.asarray(hours.dayofweek) >= 5, 0.4, 1.0)
    values = np.round(5_000 * day * weekend * rng.lognormal(0, 0.02, len(hours)))
    clean = flagged(values, hours, Adaptive())
    assert clean == []  # weekends and nights are the model's, not alerts
    values[24 * 23 + 12] *= 0.5  # noon on a weekday, half the rows
    assert flagged(values, hours, Adaptive()) == [24 * 23 + 12]


def test_a_lasting_level_shift_raises_one_alert_and_is_learnt() -> None:
    values = RNG.normal(100, 2, 120)
    values[60:] += 30
    assert [a.index for a in Adaptive(season=None).detect(values)] == [60]


def test_a_two_day_drop_then_recovery_alerts_only_on_the_drop() -> None:
    values = weekly_counts()
    values[90:92] = 0.0
    found = flagged(values, DAYS, Adaptive())
    assert found[0] == 90 and all(i in (90, 91) for i in found)


def test_a_two_day_drop_and_a_busier_day_after_it_mostly_alert_once() -> None:
    once = 0
    for seed in range(12):
        values = weekly_counts(seed=seed)
        values[87:89] *= 0.5  # a holiday Thursday and Friday (taken for a level shift on Friday)
        values[89] *= 1.1  # the Saturday after, busier than Saturdays: back, not a new shift
        once += flagged(values, DAYS, Adaptive()) == [87]
    assert once >= 9  # 10 of 12; 6 of 12 when the return did not restore the old model


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_lasting_change_of_one_weekday_is_flagged_once_and_learnt(seed: int) -> None:
    values = weekly_counts(seed=seed)
    saturdays = np.arange(75, 140, 7)  # DAYS starts on a Monday: day 75 is a Saturday
    values[saturdays] *= 1.6  # a new Saturday schedule from then on
    assert flagged(values, DAYS, Adaptive()) == [75]


def test_a_one_day_holiday_a_week_before_a_normal_day_teaches_the_weekday_nothing() -> None:
    values = weekly_counts()
    values[78] *= 0.5  # a holiday Tuesday, the Tuesday after is normal
    values[92] *= 0.5  # a partial load on a Tuesday two weeks later is found
    assert flagged(values, DAYS, Adaptive()) == [78, 92]


def test_a_moderate_lasting_shift_is_found_by_its_run_of_errors() -> None:
    rng = np.random.default_rng(5)
    values = rng.normal(50, 1, 150)
    values[100:] += 2.5  # no single point stands out: 2.5 standard deviations
    found = Adaptive(season=None).detect(values)
    assert found and 100 <= found[0].index < 108
    assert all(a.index < 115 for a in found)  # and it stops once learnt


def test_only_the_side_asked_for_is_judged() -> None:
    values = RNG.normal(0.99, 0.002, 80)
    values[70], values[75] = 0.9, 1.08
    assert [a.index for a in Adaptive(side="lower", season=None).detect(values)] == [70]
    assert [a.index for a in Adaptive(side="upper", season=None).detect(values)] == [75]
    evaluation = Adaptive(side="lower", season=None).evaluate(values, (75, 76))
    assert evaluation.upper[0] == math.inf


def test_a_minimum_practical_change_silences_tiny_moves_of_a_tiny_variance_metric() -> None:
    values = np.r_[np.full(40, 1_000_000.0), 1_000_050.0]
    assert [a.index for a in Adaptive(season=None).detect(values)] == [40]
    assert Adaptive(season=None, min_relative_change=0.001).detect(values) == []
    assert Adaptive(season=None, min_absolute_change=100).detect(values) == []


@pytest.mark.parametrize(
    ("history", "status"),
    [(3, Status.INSUFFICIENT_HISTORY), (4, Status.INSUFFICIENT_HISTORY), (5, Status.OK),
     (7, Status.OK)],
)  # fmt: skip
def test_short_histories_are_judged_from_five_points(history: int, status: Status) -> None:
    values = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 100.1, 99.9][: history + 1]
    assert Adaptive(season=None).evaluate(values, (history, history + 1)).status[0] is status
    if status is Status.OK:
        assert Adaptive(season=None).detect([*values[:history], 1000.0]) != []


def test_nan_is_missing_and_infinity_is_flagged_but_never_learnt() -> None:
    values = weekly_counts()
    values[80] = np.nan
    values[85] = np.inf
    evaluation = Adaptive().at_times(DAYS).evaluate(values)
    assert evaluation.status[80] is Status.MISSING
    assert evaluation.status[85] is Status.ANOMALY
    clean = Adaptive().at_times(DAYS).evaluate(np.where(np.isinf(values), np.nan, values))
    after = slice(86, None)
    np.testing.assert_allclose(evaluation.lower[after], clean.lower[after])


def test_constant_series_never_alert_and_any_change_of_them_does() -> None:
    assert Adaptive().detect([5.0] * 60) == []
    assert [a.index for a in Adaptive().detect([0.25] * 60 + [0.2501])] == [60]
    assert [a.index for a in Adaptive().detect([0.0] * 60 + [1.0])] == [60]


@pytest.mark.parametrize(("then", "flagged"), [(11.0, False), (13.0, False), (6.0, True)])
def test_a_constant_count_moves_by_whole_units(then: float, flagged: bool) -> None:
    # Twelve flights a day for a fortnight, then one fewer, is one unit, not a p-value of 0.
    found = Adaptive().at_times(DAYS[:15]).detect([12.0] * 14 + [then])
    assert (found != []) is flagged


def test_a_metric_that_sits_at_zero_learns_its_occasional_single_null() -> None:
    values = np.zeros(200)
    values[[20, 45, 77, 101, 130, 160]] = 1e-4  # one null row in 10,000, now and then
    values[190] = 0.02  # a null spike
    assert [a.index for a in Adaptive(season=None).detect(values)] == [20, 190]


def test_evaluate_walk_forward_newest_point_and_frames_agree() -> None:
    values = weekly_counts(100)
    values[70] *= 0.3
    detector = Adaptive().at_times(DAYS[:100])
    whole = detector.evaluate(values)
    forward = walk_forward(detector, values)
    np.testing.assert_array_equal(whole.codes, forward.codes)
    np.testing.assert_allclose(whole.p_value, forward.p_value)
    history = pd.Series(values[:70], index=DAYS[:70])
    verdict = is_newest_anomalous(history, (DAYS[70], values[70]), Adaptive())
    assert verdict.is_anomaly and verdict.p_value == pytest.approx(whole.p_value[70])
    frame = pd.DataFrame({"g": "a", "timestamp": DAYS[:100], "value": values})
    frame = pd.concat([frame, frame.assign(g="b", value=weekly_counts(100, seed=9))])
    # Judged with another group, a series also learns tail heaviness from it (pooling.py).
    rows = detect_frame(frame, Adaptive(share_tails=False), by="g", anomalies_only=False)
    a = rows[rows["g"] == "a"]
    np.testing.assert_array_equal(a["status"].to_numpy(), whole.to_frame()["status"].to_numpy())
    np.testing.assert_allclose(a["p_value"].to_numpy(), whole.p_value)


def test_excluded_points_are_judged_but_never_learnt() -> None:
    values = weekly_counts(100)
    values[60:63] = 0.0
    baseline = np.ones(100, dtype=bool)
    baseline[60:63] = False
    detector = Adaptive().at_times(DAYS[:100])
    excluded = walk_forward(detector, values, baseline=baseline)
    assert list(np.flatnonzero(excluded.codes == 1)) == [60, 61, 62]
    clean = detector.evaluate(np.where(baseline, values, np.nan))
    np.testing.assert_allclose(excluded.upper[70:], clean.upper[70:])


@pytest.mark.parametrize(
    ("parameters", "name"),
    [({"false_alarm_rate": 0.0}, "false_alarm_rate"),
     ({"false_alarm_rate": 1.5}, "false_alarm_rate"), ({"season": "weekly"}, "season"),
     ({"season": [1]}, "season"), ({"side": "down"}, "side"),
     ({"min_relative_change": -1}, "min_relative_change"), ({"min_history": 1}, "min_history"),
     ({"spacing": 0}, "spacing")],
)  # fmt: skip
def test_bad_parameters_name_themselves(parameters: dict[str, object], name: str) -> None:
    with pytest.raises(InvalidParameterError, match=name):
        Adaptive(**parameters)  # type: ignore[arg-type]


def test_times_of_another_shape_are_refused() -> None:
    detector = Adaptive().at_times(DAYS[:10])
    with pytest.raises(ValueError, match="bound to times"):
        detector.evaluate(np.ones(20))


def test_many_series_split_across_threads_judge_as_one_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import detectors.adaptive.kernels as kernels

    rng = np.random.default_rng(3)
    values = np.vstack([weekly_counts(120, seed) for seed in range(12)])
    values[rng.random(values.shape) < 0.02] *= 0.4  # partial loads here and there
    lengths, starts = np.full(12, 120), np.zeros(12, np.int64)
    detector = Adaptive().with_spacing(86_400)
    one = detector.evaluate_matrix(values, lengths, starts)
    monkeypatch.setattr(kernels, "THREAD_CELLS", 100)
    monkeypatch.setattr(kernels.os, "cpu_count", lambda: 4)
    split = detector.evaluate_matrix(values, lengths, starts)
    assert (one.codes == 1).any()
    for whole, parts in zip(one, split, strict=True):
        np.testing.assert_array_equal(whole, parts)
