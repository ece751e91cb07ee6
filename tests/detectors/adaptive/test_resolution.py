"""Adaptive's stale test: the chance of an exact repeat from the values' resolution."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from detectors import Adaptive, Status, detect_series
from detectors.adaptive import resolution, stuck

DAYS = pd.date_range("2024-01-01", periods=60, freq="D", tz="UTC")
LAWS = settings(max_examples=40, deadline=None, derandomize=True)


def stale_positions(values: np.ndarray, detector: Adaptive) -> list[int]:
    found = detect_series(pd.Series(values, index=DAYS[: len(values)]), detector,
                          anomalies_only=False)  # fmt: skip
    hits = found[(found["status"] == Status.ANOMALY.value)
                 & found["detail"].str.contains("times in a row")]  # fmt: skip
    return [DAYS.get_loc(t) for t in hits["time"]]


def test_a_count_of_thousands_served_three_days_running_is_stale() -> None:
    # A month of daily row counts, then yesterday's partition served twice more: with 1/2 a
    # repeat in 41 the old estimate found three equal counts unremarkable (p 1.5e-4).
    rng = np.random.default_rng(8)
    values = np.round(rng.normal(5_000, 200, 44))
    values[42:44] = values[41]
    assert stale_positions(values, Adaptive(season=None)) == [43]


def test_values_on_no_decimal_grid_keep_the_krichevsky_trofimov_estimate() -> None:
    # Ratios of small counts (1/7, 2/9 ...) are on no decimal grid and repeat by chance.
    rng = np.random.default_rng(9)
    rows = rng.integers(3, 13, (1, 40))
    x = rng.binomial(rows, 0.3) / rows
    ones = np.ones(x.shape, bool)
    assert (resolution.repeat_prior(x, ones, ones) == resolution.CAP).all()
    counts = np.round(rng.normal(5_000, 200, (1, 40)))
    assert (resolution.repeat_prior(counts, ones, ones)[0, 5:] < 0.01).all()


def test_counts_that_repeat_by_chance_stay_within_the_stale_tests_share() -> None:
    # Poisson counts of about 30 a day repeat by chance about one day in 25.
    rng = np.random.default_rng(4)
    values = rng.poisson(30, (300, 120)).astype(float)
    result = (
        Adaptive(season=None)
        .with_spacing(86_400)
        .evaluate_matrix(values, np.full(300, 120), np.zeros(300, np.int64))
    )
    checks = np.isin(result.codes, (0, 1)).sum()
    stale_alerts = ((result.codes == 1) & (result.aux < 0)).sum()
    assert stale_alerts <= 2 * stuck.SHARE * 0.001 * checks


@LAWS
@given(
    hits=st.integers(0, 50),
    extra=st.integers(0, 200),
    prior=st.sampled_from([resolution.FLOOR, 1e-6, 1e-3, 0.05, resolution.CAP]),
)
def test_the_estimate_lies_between_the_prior_and_krichevsky_trofimov(
    hits: int, extra: int, prior: float
) -> None:
    trials = hits + extra
    kt = (hits + 0.5) / (trials + 1.0)
    found = float(resolution.estimate(hits, trials, prior))
    assert min(prior, kt) - 1e-15 <= found <= kt + 1e-15
    if prior == resolution.CAP:
        assert found == kt  # a coarse grid is judged as before


@LAWS
@given(
    units=st.lists(st.integers(-(10**6), 10**6), min_size=1, max_size=20),
    places=st.integers(0, resolution.MAX_DECIMALS - 3),
)
def test_values_written_with_some_decimals_need_no_more(units: list[int], places: int) -> None:
    x = np.array(units, dtype=np.float64) / 10.0**places
    assert (resolution.decimals(x) <= places).all()


@LAWS
@given(
    x=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=3, max_size=30),
    cut=st.integers(1, 29),
    seed=st.integers(0, 2**16),
)
def test_a_cells_prior_never_looks_ahead(x: list[float], cut: int, seed: int) -> None:
    a = np.array(x)[None, :]
    cut = min(cut, a.shape[1] - 1)
    b = a.copy()
    b[0, cut:] = np.random.default_rng(seed).normal(0, 1e3, a.shape[1] - cut).round(2)
    ones = np.ones(a.shape, bool)
    left = resolution.repeat_prior(a, ones, ones)[0, :cut]
    right = resolution.repeat_prior(b, ones, ones)[0, :cut]
    assert np.array_equal(left, right)
