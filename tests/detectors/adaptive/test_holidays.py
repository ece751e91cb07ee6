"""Adaptive(holidays=...): the default is untouched; a holiday is judged on a wider band and never
learnt; a broken load on a holiday still alerts."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np
import pandas as pd
import pytest

from detectors import Adaptive, InvalidParameterError, Status, detect_frame, detect_series
from detectors.adaptive import holiday_days
from detectors.evaluation import ANOMALY, Evaluation
from detectors.holidays import Holidays

DAYS = pd.date_range("2024-10-01", periods=100, freq="D", tz="UTC")
CHRISTMAS = int(DAYS.searchsorted(pd.Timestamp("2024-12-25", tz="UTC")))
THANKSGIVING = int(DAYS.searchsorted(pd.Timestamp("2024-11-28", tz="UTC")))
CALENDAR = {"countries": ["US"], "dates": ["12-24", "12-26", "12-31"]}
ON_HOLIDAY = Holidays(("US",), ("12-24", "12-26", "12-31"))


def business_rows(seed: int = 0, times: pd.DatetimeIndex = DAYS) -> np.ndarray:
    """A business table's daily rows: weekends at 40%, holidays (the calendar's) at 50%."""
    rng = np.random.default_rng(seed)
    weekend = np.asarray(times.dayofweek >= 5)
    level = 20_000 * np.where(weekend, 0.4, 1.0) * rng.lognormal(0, 0.03, len(times))
    return np.round(level * np.where(ON_HOLIDAY.mask(times.asi8), 0.5, 1.0))


def same(a: Evaluation, b: Evaluation) -> bool:
    return all(
        np.array_equal(getattr(a, f.name), getattr(b, f.name), equal_nan=True)
        if isinstance(getattr(a, f.name), np.ndarray)
        else getattr(a, f.name) == getattr(b, f.name)
        for f in fields(a)
    )


def flagged(values: np.ndarray, detector: Adaptive) -> list[int]:
    found = detect_series(pd.Series(values, index=DAYS[: len(values)]), detector,
                          anomalies_only=False)  # fmt: skip
    return [int(i) for i in np.flatnonzero(found["status"] == Status.ANOMALY.value)]


@pytest.mark.parametrize(
    ("values", "options"),
    [
        (business_rows(), {}),
        (business_rows(1), {"false_alarm_rate": 0.01, "side": "lower"}),
        (np.clip(np.random.default_rng(2).normal(0.2, 0.03, 100), 0, 1), {"domain": (0, 1)}),
        (np.cumsum(business_rows(3)), {}),  # a cumulative size: judged on its increments
    ],
    ids=["counts", "one side", "ratio", "cumulative"],
)
def test_without_holidays_the_verdicts_are_the_defaults_bit_for_bit(
    values: np.ndarray, options: dict[str, Any]
) -> None:
    default = Adaptive(**options).at_times(DAYS).evaluate(values)
    assert same(Adaptive(**options, holidays=None).at_times(DAYS).evaluate(values), default)
    # A calendar without times to place the points on it changes nothing either.
    plain = Adaptive(**options).evaluate(values)
    assert same(Adaptive(**options, holidays="US").evaluate(values), plain)


def test_holidays_that_run_like_weekends_are_false_alerts_only_without_the_calendar() -> None:
    values = business_rows()
    holidays = set(np.flatnonzero(ON_HOLIDAY.mask(DAYS.asi8)).tolist())
    assert len(holidays & set(flagged(values, Adaptive()))) >= 3
    assert flagged(values, Adaptive(holidays=CALENDAR)) == []


def test_a_holiday_is_not_learnt_the_next_days_bands_are_as_without_it() -> None:
    quiet = business_rows()
    busy = quiet.copy()
    busy[CHRISTMAS] *= 3.0  # a holiday sale: far from every other day
    after = slice(CHRISTMAS + 1, None)
    with_calendar = Adaptive(holidays=CALENDAR).at_times(DAYS)
    one, other = with_calendar.evaluate(quiet), with_calendar.evaluate(busy)
    assert other.codes[CHRISTMAS] != ANOMALY
    assert np.array_equal(one.lower[after], other.lower[after])
    assert np.array_equal(one.upper[after], other.upper[after])
    # Learnt, the same day would widen the next weeks' bands.
    default = Adaptive().at_times(DAYS)
    assert not np.array_equal(default.evaluate(quiet).upper[after],
                              default.evaluate(busy).upper[after])  # fmt: skip


@pytest.mark.parametrize(
    ("day", "value"),
    [(CHRISTMAS, 0.0), (CHRISTMAS, 40.0), (THANKSGIVING, 400_000.0)],
    ids=["zero rows on Christmas", "a near-empty load", "a duplicated load twentyfold"],
)
def test_a_broken_load_on_a_holiday_still_alerts_and_says_it_was_judged_as_one(
    day: int, value: float
) -> None:
    values = business_rows()
    values[day] = value
    found = detect_series(pd.Series(values, index=DAYS), Adaptive(holidays=CALENDAR))
    assert found["time"].tolist() == [DAYS[day]]
    assert "judged as a holiday" in found["detail"].iloc[0]


def test_band_z_and_p_value_follow_the_one_wider_scale() -> None:
    values = business_rows()
    evaluation = Adaptive(holidays=CALENDAR).at_times(DAYS).evaluate(values)
    plain = Adaptive().at_times(DAYS).evaluate(values)
    k = CHRISTMAS
    wide, narrow = evaluation.upper[k] - evaluation.lower[k], plain.upper[k] - plain.lower[k]
    assert wide > 2 * narrow
    assert evaluation.p_value is not None and plain.p_value is not None
    assert evaluation.p_value[k] > plain.p_value[k]
    inside = evaluation.lower[k] <= values[CHRISTMAS] <= evaluation.upper[k]
    assert inside == (evaluation.codes[k] != ANOMALY)


def test_each_group_of_a_frame_gets_its_own_times_holidays() -> None:
    shifted = DAYS + pd.Timedelta(days=1)  # group b's Christmas is one row earlier
    frame = pd.concat([
        pd.DataFrame({"g": "a", "timestamp": DAYS, "value": business_rows()}),
        pd.DataFrame({"g": "b", "timestamp": shifted, "value": business_rows(5, shifted)}),
    ])  # fmt: skip
    frame.loc[(frame.g == "b") & (frame.timestamp == DAYS[CHRISTMAS]), "value"] = 0.0
    found = detect_frame(frame, Adaptive(holidays=CALENDAR), by="g")
    assert found[["g", "timestamp"]].values.tolist() == [["b", DAYS[CHRISTMAS]]]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("US", Holidays(("US",))), (["US"], Holidays(("US",))),
     ({"countries": ["US"], "dates": ["12-24"]}, Holidays(("US",), ("12-24",)))],
)  # fmt: skip
def test_the_parameter_becomes_a_hashable_calendar(value: Any, expected: Holidays) -> None:
    detector = Adaptive(holidays=value)
    assert detector.holidays == expected
    assert hash(detector) == hash(Adaptive(holidays=expected))
    assert detector.with_domain(0, None).holidays == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [("XX", "holidays countries must be ISO 3166 codes"), (7, "got 7"),
     ({"dates": ["24.12."]}, "dates must be 'YYYY-MM-DD' or 'MM-DD'")],
)  # fmt: skip
def test_a_bad_calendar_fails_when_the_detector_is_made(value: Any, message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message.replace("(", r"\(")):
        Adaptive(holidays=value)


def test_aux_flags_a_holiday_and_describe_reads_it_back() -> None:
    assert holiday_days.flagged(holiday_days.FLAG + 10_007.0) == (True, 10_007.0)
    assert holiday_days.flagged(-2.0) == (False, -2.0)
