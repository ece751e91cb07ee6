"""A holiday calendar a detector can be told: which days are public holidays where the data comes
from (countries, optionally a subdivision: ``"US-CA"``) plus the user's own dates.

A detector cannot know a series' country; a user who does gives it, as Prophet's
``add_country_holidays`` and Soda's ``holidays_country_code`` take one. The calendar comes from
the ``holidays`` package; a timestamp falls on a holiday when its UTC calendar date is one.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from detectors.errors import InvalidParameterError

NAT = np.iinfo(np.int64).min
DAY_NS = 86_400 * 10**9
FINDING_CODES = "holidays.list_supported_countries() lists them"
KEYS = ("countries", "dates")
_YEARLY = re.compile(r"^(\d{2})-(\d{2})$")


@dataclass(frozen=True, repr=False)
class Holidays:
    """The holidays of ``countries`` (ISO 3166-1 codes, ``"US"``, or with an ISO 3166-2
    subdivision, ``"US-CA"``) and ``dates`` (``"2024-12-24"``, or ``"12-24"``: every year).

    Build one from a config value with :meth:`of`: ``"US"``, ``["US", "CA"]`` or
    ``{"countries": ["US"], "dates": ["12-24", "2024-12-31"]}``.

    Examples
    --------
    >>> calendar = Holidays.of({"countries": "US", "dates": ["12-24"]})
    >>> calendar
    Holidays(countries=('US',), dates=('12-24',))
    >>> import pandas as pd
    >>> days = pd.to_datetime(["2024-12-24", "2024-12-25", "2024-12-27"])
    >>> calendar.mask(days.asi8).tolist()
    [True, True, False]
    >>> Holidays.of("XX")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    detectors.errors.InvalidParameterError: holidays countries must be ISO 3166 codes ...
    """

    countries: tuple[str, ...] = ()
    dates: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "countries", tuple(_country(c) for c in _texts(self.countries)))
        object.__setattr__(self, "dates", tuple(_date(d) for d in _texts(self.dates)))
        if not self.countries and not self.dates:
            raise InvalidParameterError(
                "holidays", "needs at least one country or date", (self.countries, self.dates)
            )

    def __repr__(self) -> str:
        """Only the parts given (a report's detector label stays short).

        >>> Holidays(("US",))
        Holidays(countries=('US',))
        """
        parts = {"countries": self.countries, "dates": self.dates}
        return f"Holidays({', '.join(f'{k}={v!r}' for k, v in parts.items() if v)})"

    @classmethod
    def of(cls, value: Any) -> Holidays | None:
        """The calendar a config value names (``None`` stays ``None``: no holidays).

        >>> Holidays.of(["us", "CA"]).countries
        ('US', 'CA')
        """
        if value is None or isinstance(value, Holidays):
            return value
        if isinstance(value, bool):
            raise InvalidParameterError(
                "holidays",
                "must be a country code (YAML reads NO, Norway, as false: quote it)",
                value,
            )
        if isinstance(value, str):
            return cls(countries=(value,))
        if isinstance(value, Mapping):
            unknown = sorted(str(k) for k in value if k not in KEYS)
            if unknown:
                raise InvalidParameterError(
                    "holidays", f"takes the keys {', '.join(KEYS)}", dict(value)
                )
            return cls(value.get("countries", ()), value.get("dates", ()))
        if isinstance(value, Iterable):
            return cls(countries=tuple(value))
        raise InvalidParameterError(
            "holidays",
            "must be a country code, a list of them, or {countries: [...], dates: [...]}",
            value,
        )

    def mask(self, stamps: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Which of ``stamps`` (int64 nanoseconds since the epoch, UTC; ``NAT`` where missing,
        any shape) fall on a holiday's calendar date."""
        stamps = np.asarray(stamps, dtype=np.int64)
        present = stamps != NAT
        days = np.where(present, stamps // DAY_NS, 0)
        if not present.any():
            return np.zeros(stamps.shape, dtype=bool)
        years = range(_year(int(days[present].min())), _year(int(days[present].max())) + 1)
        known = np.array(sorted({d for y in years for d in self._days_of(y)}), dtype=np.int64)
        return present & np.isin(days, known)

    def _days_of(self, year: int) -> frozenset[int]:
        found = set().union(*(_country_days(c, year) for c in self.countries))
        for text in self.dates:
            if len(text) > 5:
                found.add(_day_number(dt.date.fromisoformat(text)))
            elif (day := _yearly(text, year)) is not None:
                found.add(_day_number(day))
        return frozenset(found)


HolidaysLike = Holidays | str | Iterable[str] | Mapping[str, Any] | None
"""What :meth:`Holidays.of` (and a detector's ``holidays`` parameter) accepts."""


def _texts(value: Any) -> tuple[str, ...]:
    values = (value,) if isinstance(value, str | dt.date) else value
    if not isinstance(values, Iterable):
        raise InvalidParameterError("holidays", "countries and dates must be lists", value)
    # YAML reads 2024-12-24 as a date; a timestamp (pandas, datetime) names its day.
    days = (v.date() if isinstance(v, dt.datetime) else v for v in values)
    return tuple(v.isoformat() if isinstance(v, dt.date) else v for v in days)


def _country(code: Any) -> str:
    import holidays

    if not isinstance(code, str):
        raise InvalidParameterError("holidays", "names countries by codes like 'US'", code)
    country, _, subdivision = code.upper().partition("-")
    supported = holidays.list_supported_countries()
    if country not in supported:
        raise InvalidParameterError(
            "holidays",
            f"countries must be ISO 3166 codes the holidays package knows ({FINDING_CODES})",
            code,
        )
    if subdivision and subdivision not in supported[country]:
        raise InvalidParameterError(
            "holidays",
            f"names a subdivision {country} lacks (it has: {', '.join(supported[country])})",
            code,
        )
    return code.upper()


def _date(text: Any) -> str:
    if isinstance(text, str):
        if (match := _YEARLY.match(text)) and _valid_yearly(int(match[1]), int(match[2])):
            return text
        try:
            return dt.date.fromisoformat(text).isoformat()
        except ValueError:
            pass
    raise InvalidParameterError(
        "holidays", "dates must be 'YYYY-MM-DD' or 'MM-DD' (every year)", text
    )


def _valid_yearly(month: int, day: int) -> bool:
    try:
        dt.date(2000, month, day)  # a leap year: 02-29 is a valid yearly date
    except ValueError:
        return False
    return True


def _yearly(text: str, year: int) -> dt.date | None:
    try:
        return dt.date(year, int(text[:2]), int(text[3:]))
    except ValueError:  # 02-29 in a common year
        return None


def _year(day: int) -> int:
    return (dt.date(1970, 1, 1) + dt.timedelta(days=day)).year


def _day_number(day: dt.date) -> int:
    return (day - dt.date(1970, 1, 1)).days


@lru_cache(maxsize=1024)
def _country_days(code: str, year: int) -> frozenset[int]:
    import holidays

    country, _, subdivision = code.partition("-")
    found = holidays.country_holidays(country, subdiv=subdivision or None, years=year)
    return frozenset(_day_number(day) for day in found)
