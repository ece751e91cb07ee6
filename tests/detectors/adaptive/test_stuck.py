"""Adaptive: a value that stopped changing (a stale metric) is flagged once per run, and only
where the series' own history makes the run improbable."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from detectors import Adaptive, Status, detect_series
from detectors.adaptive import stuck

DAYS = pd.date_range("2024-01-01", periods=120, freq="D", tz="UTC")


def temperatures(n: int = 120, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.round(15 + 5 * np.sin(np.arange(n) / 9) + rng.normal(0, 1.5, n), 1)


def anomalies(values: np.ndarray, detector: Adaptive | None = None) -> pd.DataFrame:
    series = pd.Series(values, index=DAYS[: len(values)])
    found = detect_series(series, detector or Adaptive(), anomalies_only=False)
    return found[found["status"] == Status.ANOMALY.value].set_index("time")


def stale(found: pd.DataFrame) -> pd.DataFrame:
    return found[found["detail"].str.contains("times in a row")]


def test_a_frozen_reading_is_flagged_once_with_what_happened() -> None:
    values = temperatures()
    values[80:92] = values[79]  # the sensor repeats its last reading for twelve days
    found = anomalies(values)
    assert len(found) == 1
    position = DAYS.get_loc(found.index[0])
    assert 81 <= position <= 84  # three to five equal readings in a row: improbable here
    detail = found["detail"].iloc[0]
    assert f"came {position - 79 + 1} times in a row" in detail  # day 79 and the repeats since
    assert found["p_value"].iloc[0] < 0.001
    assert found["lower"].iloc[0] <= found["value"].iloc[0] <= found["upper"].iloc[0]


@pytest.mark.parametrize(
    ("case", "values"),
    [
        ("constant from the start", np.full(120, 7.0)),
        ("moved fewer than ten times first", np.r_[[3.0, 5, 4, 6, 5, 4, 3, 5], np.full(112, 5.0)]),
        (
            "small counts repeat often",
            np.random.default_rng(5).poisson(0.7, 120).astype(float),
        ),
        ("a ratio at zero with rare single nulls", np.where(np.arange(120) % 17 == 5, 1e-4, 0.0)),
    ],
)
def test_series_that_repeat_by_nature_are_left_alone(case: str, values: np.ndarray) -> None:
    assert stale(anomalies(values, Adaptive(season=None))).empty, case


@pytest.mark.parametrize(
    "detector", [Adaptive(side="lower"), Adaptive(side="upper")], ids=["lower", "upper"]
)
def test_one_sided_detectors_do_not_judge_stale_values(detector: Adaptive) -> None:
    values = temperatures()
    values[80:92] = values[79]
    assert stale(anomalies(values, detector)).empty


def test_a_stalled_cumulative_size_alerts_once_as_a_stalled_load() -> None:
    rng = np.random.default_rng(2)
    loads = rng.lognormal(8, 0.05, 120)
    loads[90:96] = 0.0  # six days without a load, then it goes on as before
    sizes = np.round(1e6 + np.cumsum(loads))
    found = anomalies(sizes)
    assert [DAYS.get_loc(t) for t in found.index] == [90]
    assert stale(found).empty


def test_a_common_value_repeating_is_no_news() -> None:
    # Daily amounts that are exactly 0 on about one day in eight: three zeros in a row happen.
    rng = np.random.default_rng(4)
    values = np.round(rng.lognormal(5, 0.3, (300, 365)), 2)
    values[rng.random(values.shape) < 0.12] = 0.0
    result = Adaptive(season=None, false_alarm_rate=0.001).with_spacing(86_400).evaluate_matrix(
        values, np.full(300, 365), np.zeros(300, np.int64)
    )
    checks = np.isin(result.codes, (0, 1)).sum()
    stale_alerts = ((result.codes == 1) & (result.aux < 0)).sum()
    assert stale_alerts <= 2 * stuck.SHARE * 0.001 * checks  # its share of the rate, at most 2x


def test_whole_history_and_newest_point_agree_on_a_frozen_stretch() -> None:
    values = temperatures()
    values[80:92] = values[79]
    detector = Adaptive()
    series = pd.Series(values, index=DAYS)
    whole = detect_series(series, detector, anomalies_only=False)
    for end in range(78, 95):
        newest = detect_series(series.iloc[: end + 1], detector, anomalies_only=False).iloc[-1]
        assert newest["status"] == whole["status"].iloc[end], end
        assert newest["p_value"] == pytest.approx(whole["p_value"].iloc[end], rel=1e-9), end


def test_a_run_cut_by_a_missing_point_is_two_runs() -> None:
    values = np.array([1.5, 1.5, np.nan, 1.5, 1.5, 1.5])
    found = stuck.runs(values[None, :], np.ones((1, 6), bool), level=0.5)
    assert found.length[0].tolist() == [0, 1, 0, 0, 1, 2]
    assert (found.p_value[0][[0, 2, 3]] == 1.0).all()  # not in a run: no evidence


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    values=st.lists(st.sampled_from([0.0, 1.0, 2.5, 4.0]), min_size=2, max_size=60),
    level=st.sampled_from([1e-2, 1e-4]),
)
def test_each_run_is_flagged_at_most_once_and_only_where_its_p_value_is_below(
    values: list[float], level: float
) -> None:
    x = np.array(values)[None, :]
    found = stuck.runs(x, np.ones(x.shape, bool), level)
    assert ((found.p_value >= 0) & (found.p_value <= 1)).all()
    assert (found.p_value[found.first] < level).all()
    assert (found.length[found.first] >= 1).all()
    run_ids = np.cumsum(found.length[0] == 0)
    flagged_runs = run_ids[found.first[0]]
    assert len(flagged_runs) == len(set(flagged_runs.tolist()))
    within = found.length[0] > 1  # probabilities only fall as a run goes on
    assert (found.p_value[0][1:][within[1:]] <= found.p_value[0][:-1][within[1:]]).all()


@pytest.mark.parametrize(
    ("case", "bound", "domain"),
    [
        ("a share whose category is gone", 0.0, (0.0, 1.0)),
        ("a null ratio with no nulls any more", 0.0, (0.0, 1.0)),
        ("a completeness that became whole", 1.0, (0.0, 1.0)),
        ("a count that fell to zero", 0.0, (0.0, np.inf)),
    ],
)
def test_a_run_at_a_bound_of_the_domain_is_news_in_its_first_week_only(
    case: str, bound: float, domain: tuple[float, float]
) -> None:
    # Weeks of a wobbling ratio, then the value sits on the domain's bound for good: the fall
    # onto it is news, the weeks after it are a saturated quantity, not a stale one. Judged for
    # as long as it lasts, the run's probability falls below even 1e-30.
    rng = np.random.default_rng(11)
    values = np.r_[np.round(rng.uniform(0.2, 0.8, 30), 4), np.full(90, bound)]
    quiet = Adaptive(season=None, false_alarm_rate=1e-30)
    assert not stale(anomalies(values, quiet)).empty, case  # what the domain fixes
    assert stale(anomalies(values, quiet.with_domain(*domain))).empty, case
    found = stale(anomalies(values, Adaptive(season=None).with_domain(*domain)))
    assert len(found) == 1, case  # flagged once, within its first week on the bound
    assert 31 <= DAYS.get_loc(found.index[0]) <= 30 + stuck.BOUND_REPEATS, case


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    values=st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.5]), min_size=2, max_size=60),
    domain=st.sampled_from([(0.0, 1.0), (0.0, np.inf), (-np.inf, 2.5)]),
    rate=st.sampled_from([0.5, 1e-3, 1e-30]),
)
def test_the_domain_only_spares_runs_at_its_bounds_after_their_first_week(
    values: list[float], domain: tuple[float, float], rate: float
) -> None:
    x = np.array(values)[None, :]
    learn, judged = np.ones(x.shape, bool), np.ones(x.shape, bool)
    free = stuck.stale_points(x, learn, judged, rate)
    told = stuck.stale_points(x, learn, judged, rate, domain)
    # (Runs off the bounds learn from the pairs off them: test_a_null_ratio_frozen_off_zero...)
    pinned = np.isin(x, [b for b in domain if np.isfinite(b)])
    late = pinned & (free[2] > stuck.BOUND_REPEATS)
    assert not told[0][late].any()
    assert (told[0][pinned] == (free[0] & ~late)[pinned]).all()
    assert (told[1][pinned & ~late] == free[1][pinned & ~late]).all()
    assert (told[2] == free[2]).all()


def null_ratios(seed: int, n: int = 80, rows: tuple[int, int] = (100, 200)) -> np.ndarray:
    """A daily null ratio that sits at 0 half the days: a few cancelled flights of a few
    hundred (ratios of two counts, on no decimal grid)."""
    rng = np.random.default_rng(seed)
    flights = rng.integers(*rows, n)
    return np.where(rng.random(n) < 0.5, 0, rng.integers(1, 5, n)) / flights


@pytest.mark.parametrize("seed", range(4))
def test_a_null_ratio_frozen_off_zero_is_stale_though_its_zeros_repeat(seed: int) -> None:
    # The days pinned at 0 repeat without anything having stopped; they say nothing of how
    # often 1.23% nulls repeats exactly. Counted as chances, they hid a four-day stale value.
    values = null_ratios(seed)
    values[60:65] = 0.0123
    assert stale(anomalies(values, Adaptive(season=None))).empty  # what the domain fixes
    found = stale(anomalies(values, Adaptive(season=None).with_domain(0.0, 1.0)))
    assert [DAYS.get_loc(t) for t in found.index] == [63]


@pytest.mark.parametrize("rows", [(4, 9), (20, 40), (100, 200)])
def test_chance_repeats_of_small_null_ratios_off_zero_stay_quiet(rows: tuple[int, int]) -> None:
    # Ratios of a handful of rows (1/5, 2/7) repeat by chance: their own history says so.
    found = 0
    for seed in range(200):
        x = null_ratios(seed, rows=rows)[None, :]
        every = np.ones(x.shape, bool)
        found += int(stuck.stale_points(x, every, every, 0.001, (0.0, 1.0))[0].sum())
    assert found <= 2  # 200 series x 80 points x 0.001 x SHARE: 0.8 expected
