"""Bands are finite, inside the metric's domain and within reach of the observed range, whatever
the series does (NaN, inf, 1e300, constant runs, holiday drops, unit changes)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detectors import Adaptive, InvalidParameterError
from detectors.adaptive.limits import RANGE_REACH, to_angle
from detectors.evaluation import ANOMALY, OK

DOMAINS = {"ratio": (0.0, 1.0), "count": (0.0, math.inf), "signed": None}


def base_series(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    week = np.where(np.arange(n) % 7 >= 5, 0.6, 1.0)
    if kind == "ratio":
        return np.clip(rng.normal(rng.uniform(0, 1), rng.uniform(0, 0.1), n), 0, 1)
    if kind == "count":
        return rng.poisson(10 ** rng.uniform(0, 6) * week).astype(float)
    return rng.normal(rng.uniform(-100, 100), rng.uniform(0.01, 10), n) * week


@st.composite
def disturbed(draw: st.DrawFn) -> tuple[str, np.ndarray]:
    """A clean series of one kind, then some of: missing and infinite values, 1e300, a constant
    run, holiday drops, a unit change."""
    kind = draw(st.sampled_from(sorted(DOMAINS)))
    n = draw(st.integers(14, 60))
    x = base_series(kind, n, np.random.default_rng(draw(st.integers(0, 2**32 - 1))))
    for event in draw(st.lists(st.sampled_from(
        ["nan", "inf", "-inf", "huge", "constant", "holiday", "unit"]), max_size=4)):  # fmt: skip
        at = draw(st.integers(0, n - 1))
        if event == "nan":
            x[at] = np.nan
        elif event in ("inf", "-inf"):
            x[at] = math.inf if event == "inf" else -math.inf
        elif event == "huge":
            x[at] = draw(st.sampled_from([1e300, -1e300, 1e-300]))
        elif event == "constant":
            x[at : at + draw(st.integers(3, 20))] = x[at] if np.isfinite(x[at]) else 1.0
        elif event == "holiday":
            with np.errstate(invalid="ignore"):  # an inf times a holiday's 0 is meant as NaN
                x[at : at + draw(st.integers(1, 2))] *= draw(st.sampled_from([0.0, 0.05, 0.3]))
        else:
            with np.errstate(over="ignore"):  # a unit change on 1e300 is meant to overflow
                x[at:] *= draw(st.sampled_from([1e-3, 1 / 60, 60.0, 1e3, 1e6]))
    return kind, x


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(disturbed(), st.sampled_from([0.01, 0.001]))
def test_every_judged_band_is_finite_in_domain_and_near_the_observed_range(
    case: tuple[str, np.ndarray], rate: float
) -> None:
    kind, x = case
    times = pd.date_range("2025-03-03", periods=len(x), freq="D")
    detector = Adaptive(false_alarm_rate=rate, domain=DOMAINS[kind]).at_times(times)
    result = detector.evaluate(x, (6, len(x)))
    judged = np.isin(result.codes, (OK, ANOMALY))
    assert result.p_value is not None
    lower, upper, p = result.lower[judged], result.upper[judged], result.p_value[judged]
    assert np.isfinite(lower).all() and np.isfinite(upper).all()
    assert (lower <= upper).all()
    low, high = DOMAINS[kind] or (-math.inf, math.inf)
    assert (lower >= low).all() and (upper <= high).all()
    assert ((p >= 0) & (p <= 1)).all()
    seen = np.where(np.isfinite(x), x, np.nan)
    # A ratio's reach is measured on its angular scale (the band's upper end too).
    scaled = to_angle if kind == "ratio" else lambda v, _: v
    seen, upper = scaled(seen, (0.0, 1.0)), scaled(result.upper, (0.0, 1.0))
    for i in np.flatnonzero(judged) + 6:
        before = seen[:i][np.isfinite(seen[:i])]
        span = max(float(np.ptp(before)), 1e-300)
        reach = RANGE_REACH * max(span, abs(before).max())
        assert upper[i - 6] <= before.max() + reach * (1 + 1e-12) + 1e-12
        if np.isfinite(x[i]) and not low <= x[i] <= high:
            assert result.codes[i - 6] == ANOMALY and p[judged[: i - 6].sum()] == 0.0


def test_a_share_that_doubled_is_judged_against_a_band_inside_zero_one() -> None:
    # The newcomer's table of the issue: a share around 0.25, then 0.535 on the last day.
    rng = np.random.default_rng(3)
    share = np.r_[np.clip(rng.normal(0.25, 0.1, 20), 0, 1), 0.535]
    times = pd.date_range("2025-03-03", periods=len(share), freq="D")
    result = Adaptive().with_domain(0.0, 1.0).at_times(times).evaluate(share, (20, 21))
    assert 0.0 <= result.lower[0] <= result.upper[0] <= 1.0


def test_a_null_ratio_near_zero_may_reach_a_storm_at_the_quietest_rates() -> None:
    # Cancelled flights: 0-4% for weeks, then a storm cancels half a day's flights. Ten ranges
    # of 4 percentage points cut the band at 0.4 and flagged it at any rate, even 1e-30; on
    # the ratio's angular scale (binomial spread is tight near 0) the quietest band reaches it.
    rng = np.random.default_rng(2)
    nulls = np.r_[np.where(rng.random(30) < 0.5, 0.0, rng.uniform(0.003, 0.036, 30)), 0.478]
    times = pd.date_range("2013-02-01", periods=len(nulls), freq="D")
    detector = Adaptive(false_alarm_rate=1e-30).with_domain(0.0, 1.0).at_times(times)
    assert detector.evaluate(nulls, (30, 31)).codes[0] == OK
    assert (
        Adaptive().with_domain(0.0, 1.0).at_times(times).evaluate(nulls, (30, 31)).codes[0]
        == ANOMALY
    )  # at the default rate, a storm is still far out


def test_holiday_drops_leave_bands_within_reach_of_the_counts() -> None:
    rng = np.random.default_rng(5)
    rides = np.round(700_000 * rng.lognormal(0, 0.05, 90) * np.where(np.arange(90) % 7 > 4, 0.8, 1))
    rides[[30, 45]] = [90_000.0, 150_000.0]  # two holidays
    times = pd.date_range("2025-11-01", periods=90, freq="D")
    result = Adaptive(domain=(0, math.inf)).at_times(times).evaluate(rides, (7, 90))
    judged = np.isin(result.codes, (OK, ANOMALY))
    assert result.upper[judged].max() < 700_000 * 12 and result.lower[judged].min() >= 0


@pytest.mark.parametrize(
    "domain", [(1, 0), (0, 0), (math.nan, 1), ("0", 1), (0,), (True, 2)], ids=str
)
def test_a_bad_domain_names_the_parameter(domain: object) -> None:
    with pytest.raises(InvalidParameterError, match="domain"):
        Adaptive(domain=domain)  # type: ignore[arg-type]


def test_with_domain_returns_a_copy_with_open_sides_as_none() -> None:
    base = Adaptive()
    counts = base.with_domain(0, None)
    assert counts.domain == (0.0, math.inf) and base.domain is None
    assert counts.with_domain(0, None) is counts
    assert Adaptive(domain=[0, 1]).domain == (0.0, 1.0)  # type: ignore[arg-type]
