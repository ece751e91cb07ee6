"""Holidays: a calendar from a config value, which timestamps fall on it, and errors that say
what was wrong and what is allowed."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import pandas as pd
import pytest

from detectors import InvalidParameterError
from detectors.holidays import NAT, Holidays


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("US", Holidays(("US",))),
        ("us", Holidays(("US",))),
        (["US", "CA"], Holidays(("US", "CA"))),
        (("DE-BY",), Holidays(("DE-BY",))),
        ({"countries": ["US"], "dates": ["2024-12-24", "12-31"]},
         Holidays(("US",), ("2024-12-24", "12-31"))),
        ({"countries": "US"}, Holidays(("US",))),
        ({"dates": [dt.date(2024, 12, 24)]}, Holidays((), ("2024-12-24",))),  # YAML's dates
        ({"dates": [pd.Timestamp("2024-12-24 06:00")]}, Holidays((), ("2024-12-24",))),
        (Holidays(("FR",)), Holidays(("FR",))),
        (None, None),
    ],
    ids=["code", "lower case", "list", "subdivision", "mapping", "one country", "date objects",
         "timestamps", "a calendar", "none"],
)  # fmt: skip
def test_a_calendar_is_built_from_a_config_value(value: Any, expected: Holidays | None) -> None:
    built = Holidays.of(value)
    assert built == expected
    assert built is None or hash(built) == hash(expected)  # a detector's field: hashable


@pytest.mark.parametrize(
    ("calendar", "days", "expected"),
    [
        (Holidays(("US",)), ["2024-07-04", "2024-07-05", "2024-11-28", "2024-12-25"],
         [True, False, True, True]),
        (Holidays(("US",)), ["2026-07-03", "2026-07-04"], [True, True]),  # observed, and the day
        (Holidays(("GB",)), ["2024-12-26", "2024-07-04"], [True, False]),
        (Holidays(("US", "GB")), ["2024-12-26", "2024-07-04"], [True, True]),
        (Holidays(("US-CA",)), ["2024-03-31", "2024-11-29"], [True, True]),  # Cesar Chavez Day
        (Holidays(("US",)), ["2024-03-31"], [False]),
        (Holidays((), ("12-24",)), ["2013-12-24", "2031-12-24", "2031-12-25"], [True, True, False]),
        (Holidays((), ("02-29",)), ["2023-02-28", "2024-02-29"], [False, True]),
        (Holidays((), ("2024-12-24",)), ["2024-12-24", "2025-12-24"], [True, False]),
    ],
    ids=["federal", "observed", "another country", "two countries", "subdivision",
         "not federal", "every year", "leap day", "one date"],
)  # fmt: skip
def test_the_mask_says_which_days_are_holidays(
    calendar: Holidays, days: list[str], expected: list[bool]
) -> None:
    assert calendar.mask(pd.to_datetime(days).asi8).tolist() == expected


def test_the_mask_goes_by_the_utc_date_at_any_hour_and_keeps_the_shape() -> None:
    hours = pd.date_range("2024-12-24 22:00", periods=4, freq="h", tz="UTC")
    stamps = np.stack([hours.asi8, np.r_[hours.asi8[:3], NAT]])
    assert Holidays(("US",)).mask(stamps).tolist() == [
        [False, False, True, True],
        [False, False, True, False],  # a missing time is no holiday
    ]
    assert Holidays(("US",)).mask(np.full(3, NAT)).tolist() == [False] * 3


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("XX", "holidays countries must be ISO 3166 codes the holidays package knows "
               "(holidays.list_supported_countries() lists them), got 'XX'"),
        ("US-ZZ", "holidays names a subdivision US lacks (it has: AK, AL,"),
        ([3], "holidays names countries by codes like 'US', got 3"),
        ({"countries": ["US"], "dates": ["2024-13-01"]},
         "holidays dates must be 'YYYY-MM-DD' or 'MM-DD' (every year), got '2024-13-01'"),
        ({"dates": ["02-30"]}, "got '02-30'"),
        ({"dates": [20241224]}, "got 20241224"),
        ({"country": "US"}, "holidays takes the keys countries, dates, got {'country': 'US'}"),
        ({"dates": []}, "holidays needs at least one country or date"),
        (3.5, "holidays must be a country code, a list of them, or {countries: [...], "
              "dates: [...]}, got 3.5"),
        (False, "(YAML reads NO, Norway, as false: quote it), got False"),
    ],
    ids=["unknown country", "unknown subdivision", "not text", "bad date", "no such day",
         "a number as date", "unknown key", "empty", "wrong type", "YAML's NO"],
)  # fmt: skip
def test_bad_input_names_the_value_and_what_is_allowed(value: Any, message: str) -> None:
    with pytest.raises(InvalidParameterError) as raised:
        Holidays.of(value)
    assert raised.value.parameter == "holidays"
    assert message in str(raised.value)
