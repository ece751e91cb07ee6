"""A backtest judges its series together, as the scan judges a metric's groups: with the
default ``Adaptive`` (which shares tail heaviness across the series of a call) its verdicts are
the scan's, not those of each series replayed alone."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anomaly.backtest import LabeledSeries, backtest
from detectors import Adaptive, AlertFatigue, Status, detect_frame, walk_forward

DAYS = pd.date_range("2025-01-06", periods=150, freq="D", tz="UTC")


def heavy(groups: int, seed: int = 4, times: pd.DatetimeIndex = DAYS) -> list[LabeledSeries]:
    rng = np.random.default_rng(seed)
    values = 100 + 5 * rng.standard_t(2.5, (groups, len(times)))
    values[:, 120] += 60  # an incident everywhere, so some alerts are real
    excluded = np.zeros(len(times), dtype=bool)
    excluded[60] = True  # a point annotated as not a baseline
    return [
        LabeledSeries.build("Mean(x)", pd.Series(values[g], index=times),
                            group={"country": str(g)}, excluded=excluded)
        for g in range(groups)
    ]  # fmt: skip


def alerts(ev: object) -> np.ndarray:
    return np.asarray(ev.status) == Status.ANOMALY.value  # type: ignore[attr-defined]


def test_a_backtest_gives_each_group_the_verdicts_the_scan_gives_it() -> None:
    series = heavy(12)
    result = backtest(series, {"adaptive": Adaptive()}, labels=None)
    frame = pd.concat(
        pd.DataFrame({"g": k, "timestamp": one.times, "value": one.values})
        for k, one in enumerate(series)
    )
    # detect_frame judges every point of every group in one call, as the scan did each day
    # (the annotated point is learnt there, so compare the days before it).
    judged = detect_frame(frame, Adaptive(), by="g", anomalies_only=False)
    for k in range(len(series)):
        ev = result.evaluations[("adaptive", k)]
        scan = judged[judged["g"] == k]["status"].to_numpy()[:60]
        np.testing.assert_array_equal(np.asarray(ev.status)[:60], scan)


def test_judged_together_it_raises_no_alert_the_series_alone_would_not() -> None:
    series = heavy(12)
    together = backtest(series, Adaptive(), labels=None)
    alone = backtest(series, Adaptive(share_tails=False), labels=None)
    name = next(iter(together.detectors))
    fewer = 0
    for k, one in enumerate(series):
        shared = alerts(together.evaluations[(name, k)])
        own = alerts(alone.evaluations[(next(iter(alone.detectors)), k)])
        assert not (shared & ~own).any()
        fewer += int(own.sum() - shared.sum())
        by_hand = walk_forward(Adaptive(share_tails=False).at_times(one.times), one.values,
                               baseline=~one.excluded)  # fmt: skip
        np.testing.assert_array_equal(own, alerts(by_hand))
    assert fewer > 0  # the heavy tails of the others widened some bands


def test_alert_fatigue_and_since_use_the_joint_verdicts() -> None:
    series = heavy(8)
    since = DAYS[100]
    result = backtest(
        series,
        {"plain": Adaptive(), "first": AlertFatigue(Adaptive(), first_of_run=True)},
        since=since, labels=None,
    )  # fmt: skip
    whole = backtest(series, {"plain": Adaptive()}, labels=None)
    for k in range(len(series)):
        plain, first = result.evaluations[("plain", k)], result.evaluations[("first", k)]
        everything = whole.evaluations[("plain", k)]
        assert len(plain.index) == len(DAYS) - 100
        # Judging from ``since`` changes no verdict: each point sees only the points before it.
        np.testing.assert_array_equal(alerts(plain), alerts(everything)[100:])
        assert not (alerts(first) & ~alerts(plain)).any()


@pytest.mark.parametrize("hourly_groups", [1, 3])
def test_series_at_another_spacing_are_judged_apart(hourly_groups: int) -> None:
    hours = pd.date_range("2025-01-06", periods=24 * 14, freq="h", tz="UTC")
    daily, hourly = heavy(5), heavy(hourly_groups, seed=9, times=hours)
    mixed = backtest(daily + hourly, Adaptive(), labels=None)
    apart = backtest(hourly, Adaptive(), labels=None)
    name = next(iter(mixed.detectors))
    for k in range(hourly_groups):
        np.testing.assert_array_equal(
            alerts(mixed.evaluations[(name, 5 + k)]), alerts(apart.evaluations[(name, k)])
        )
