"""Alert budgets: the arithmetic that turns a weekly budget or an FDR level into alerts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from detectors import AlertBudget, InvalidParameterError


@pytest.mark.parametrize(
    ("series", "checks", "expected"),
    [(1, 7, 1 / 7), (20, 7, 1 / 140), (1000, 7, 1 / 7000), (10, 168, 1 / 1680)],
)
def test_a_weekly_budget_becomes_a_per_check_rate(
    series: int, checks: float, expected: float
) -> None:
    assert AlertBudget(false_alerts_per_week=1).per_check_rate(series, checks) == pytest.approx(
        expected
    )


def test_only_alerts_below_the_rate_go_out_and_unranked_ones_always_do() -> None:
    budget = AlertBudget(false_alerts_per_week=2)  # 2 / (3 ranked series * 7) = 0.095
    keep, outcome = budget.apply([0.07, 0.1, 0.5, None], [True, True, False, True], 7)
    assert keep.tolist() == [True, False, False, True]
    assert (outcome.held_back, outcome.unranked, outcome.series) == (1, 1, 3)
    assert outcome.threshold == pytest.approx(2 / 21)  # three series have p-values
    assert "1 alert held back" in outcome.describe()


def test_benjamini_hochberg_cases() -> None:
    p = [0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216]
    keep, outcome = AlertBudget(fdr=0.05).apply(p, [True] * 10, 1)
    assert keep.tolist() == [True, True] + [False] * 8  # the textbook example's two
    assert outcome.threshold == 0.008
    none, outcome = AlertBudget(fdr=0.05).apply([0.5, 0.9], [True, True], 1)
    assert not none.any() and outcome.held_back == 2


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=60), st.floats(0.001, 0.5))
def test_a_budget_never_adds_an_alert(p: list[float], q: float) -> None:
    alerted = np.array([v < 0.01 for v in p])
    for budget in (AlertBudget(fdr=q), AlertBudget(false_alerts_per_week=q * 10)):
        keep, outcome = budget.apply(p, alerted, 7)
        assert not (keep & ~alerted).any()
        assert outcome.held_back == int((alerted & ~keep).sum())


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({}, "false_alerts_per_week/fdr"), ({"false_alerts_per_week": 1, "fdr": 0.1}, "fdr"),
     ({"false_alerts_per_week": 0}, "false_alerts_per_week"), ({"fdr": 1.0}, "fdr"),
     ({"fdr": float("nan")}, "fdr")],
)  # fmt: skip
def test_bad_budgets_name_the_parameter(kwargs: dict[str, float], name: str) -> None:
    with pytest.raises(InvalidParameterError, match=name):
        AlertBudget(**kwargs)
