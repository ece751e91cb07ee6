from __future__ import annotations

import numpy as np
import pytest

from detectors import infer_period
from tests.detectors.data import WEEK, weekly


def _series(kind: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(364)
    return {
        "noise": rng.normal(size=364),
        "weekly with trend": np.tile(WEEK, 52) + rng.normal(0, 2, 364) + 0.1 * t,
        "monthly sine": 100 + 3 * np.sin(2 * np.pi * t / 12) + rng.normal(0, 1, 364),
        "random walk": np.cumsum(rng.normal(size=364)),
        "random walk with weekly cycle": np.cumsum(rng.normal(size=364)) + 0.5 * np.tile(WEEK, 52),
    }[kind]


@pytest.mark.parametrize(
    ("kind", "period"),
    [
        ("noise", None),
        ("weekly with trend", 7),
        ("monthly sine", 12),
        ("random walk", None),
        ("random walk with weekly cycle", 7),
    ],
)
@pytest.mark.parametrize("seed", range(5))
def test_infers_the_period(kind: str, period: int | None, seed: int) -> None:
    assert infer_period(_series(kind, seed)) == period


@pytest.mark.parametrize(
    "values",
    [[], [1.0] * 30, list(range(7)), [1.0, np.nan, np.inf] * 3, [1e300, -1e300] * 20],
)
def test_degenerate_input_has_no_period(values: list[float]) -> None:
    assert infer_period(values) is None


def test_three_cycles_suffice_and_nan_is_dropped() -> None:
    assert infer_period(weekly(3, seed=1)) == 7
    series = weekly(6, seed=2)
    series[[3, 17]] = np.nan
    assert infer_period(series) == 7
