"""Which seasonal periods to try: from the spacing of the timestamps, else from the values."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from detectors.errors import InvalidParameterError
from detectors.evaluation import FloatArray
from detectors.seasonality import infer_period

DAY = 86_400.0
WEEK = 7 * DAY
YEAR = 365.25 * DAY
CYCLES = (DAY, WEEK, YEAR)
"""The calendar cycles data follows: the day, the week, the year."""
MAX_PERIOD = 2_016
"""Longer periods (a week of 5-minute points) need more history than metrics keep."""
TOLERANCE = 0.05
MAX_YEARLY = 53


def fixed_periods(season: object) -> tuple[int, ...] | None:
    """The periods a ``season`` setting names (``None`` for ``"auto"``, ``()`` for none).

    >>> fixed_periods("auto"), fixed_periods(None), fixed_periods([168, 24, 24])
    (None, (), (24, 168))
    """
    if season == "auto":
        return None
    if season is None or season == "none":
        return ()
    values = [season] if isinstance(season, int) else season
    if (
        isinstance(values, str)
        or not isinstance(values, Sequence)
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 2 for v in values)
    ):
        raise InvalidParameterError(
            "season", "must be 'auto', None or periods as integers >= 2", season
        )
    return tuple(sorted(set(values)))


def periods_for_spacing(spacing: float) -> tuple[int, ...]:
    """The calendar periods, in points, of a series sampled every ``spacing`` seconds.

    Examples
    --------
    >>> periods_for_spacing(DAY), periods_for_spacing(3600.0), periods_for_spacing(WEEK)
    ((7,), (24, 168), (52,))
    >>> periods_for_spacing(YEAR / 12), periods_for_spacing(YEAR)
    ((12,), ())
    """
    found = []
    for cycle in CYCLES:
        points = cycle / spacing
        period = round(points)
        if cycle == YEAR and period > MAX_YEARLY:
            continue  # a year of daily points: metrics rarely keep the two years it needs
        if 2 <= period <= MAX_PERIOD and abs(points - period) <= max(TOLERANCE * points, 0.2):
            found.append(period)
    return tuple(found)


def median_spacing(times: Sequence[Any] | Any) -> float | None:
    """The median time between consecutive timestamps in seconds (``None`` for fewer than two
    or for times that are not timestamps).

    >>> import pandas as pd
    >>> median_spacing(pd.date_range("2024-01-01", periods=5, freq="D"))
    86400.0
    >>> median_spacing([1, 2, 3]) is None
    True
    """
    import pandas as pd

    index = pd.Index(times)
    if len(index) < 2 or not isinstance(index, pd.DatetimeIndex):
        return None
    seconds = np.diff(np.sort(index.asi8)) / 1e9
    seconds = seconds[seconds > 0]
    return float(np.median(seconds)) if len(seconds) else None


def periods_from_values(values: FloatArray) -> tuple[int, ...]:
    """The autocorrelation's period of the finite values, if there is a clear one (values far
    from the median are pulled in first: one incident must not hide the cycle).

    >>> week = [10.0, 12.0, 14.0, 13.0, 11.0, 5.0, 4.0]
    >>> periods_from_values(np.array(week * 4 + [40.0, 11.0]))
    (7,)
    """
    finite = values[np.isfinite(values)]
    if len(finite):
        median = np.median(finite)
        spread = 5 * 1.4826 * np.median(np.abs(finite - median))
        finite = np.clip(finite, median - spread, median + spread) if spread > 0 else finite
    period = infer_period(finite)
    return () if period is None or period > MAX_PERIOD else (period,)


Season = tuple[tuple[int, int], ...]


def seasons_for_periods(periods: tuple[int, ...]) -> tuple[Season, ...]:
    """Candidate seasonal models for ``periods`` (in points): a period that is a whole multiple
    of a shorter one becomes a second component of it (hour of day plus day of week), which
    learns from every point instead of once a week.

    >>> seasons_for_periods((24, 168))
    (((1, 24), (24, 7)), ((1, 168),))
    >>> seasons_for_periods((7,)), seasons_for_periods(())
    ((((1, 7),),), ())
    """
    found: list[Season] = []
    whole: list[Season] = []  # the long period on its own too: its phases need not add up
    for period in sorted(periods):
        nested = next((s for s in found if period % s[0][1] == 0 and len(s) == 1), None)
        if nested is not None:
            inner = nested[0][1]
            found[found.index(nested)] = (*nested, (inner, period // inner))
            whole.append(((1, period),))
        else:
            found.append(((1, period),))
    return (*found, *whole)
