"""An alert budget over many series: how many false alerts a team accepts, turned into which
of a run's alerts go out.

Two kinds, on the p-values of calibrated detectors (:class:`~detectors.Adaptive`):

* ``false_alerts_per_week``: with ``S`` series each checked ``C`` times a week, a point alerts
  only if its p-value is below ``budget / (S * C)``, so on normal days the expected number of
  alerts a week is at most the budget (a union bound, as Bonferroni's);
* ``fdr``: the Benjamini-Hochberg procedure at level ``q`` over the run's p-values, so at most
  a share ``q`` of the alerts sent is expected to be false.

A budget only holds alerts back, never adds any: an alert survives when its detector flagged it
*and* the budget admits its p-value. Alerts of detectors without p-values cannot be ranked and
always go out (the outcome counts them).

Benjamini and Hochberg, "Controlling the false discovery rate", JRSS B, 1995.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from detectors.errors import InvalidParameterError

BoolArray = NDArray[np.bool_]


@dataclass(frozen=True)
class BudgetOutcome:
    """What a budget did to one run's alerts.

    ``threshold`` is the p-value below which alerts went out; ``held_back`` the alerts it
    stopped; ``unranked`` the alerts it could not judge (no p-value), which went out.
    """

    rule: str
    threshold: float
    held_back: int
    unranked: int
    series: int

    def describe(self) -> str:
        """One sentence for reports and logs.

        >>> BudgetOutcome("1 false alert a week", 0.00071, 2, 0, 200).describe()
        'alert budget 1 false alert a week over 200 series: p < 0.00071, 2 alerts held back'
        """
        held = f"{self.held_back} alert{'s' if self.held_back != 1 else ''} held back"
        text = f"alert budget {self.rule} over {self.series} series: p < {self.threshold:.2g}"
        text += f", {held}"
        if self.unranked:
            text += f", {self.unranked} without p-values sent as they are"
        return text


@dataclass(frozen=True)
class AlertBudget:
    """At most ``false_alerts_per_week`` false alerts a week, or a false discovery rate
    ``fdr``, over all the series judged together (give exactly one).

    Examples
    --------
    >>> budget = AlertBudget(false_alerts_per_week=1)
    >>> budget.per_check_rate(series=100, checks_per_week=7)
    0.0014285714285714286
    >>> admitted, outcome = budget.apply([1e-5, 0.06, 0.2, None], [True, True, False, True], 7)
    >>> admitted.tolist(), outcome.held_back, outcome.unranked
    ([True, False, False, True], 1, 1)
    >>> AlertBudget(fdr=0.1).apply([0.001, 0.08, 0.5], [True, True, False], 1)[0].tolist()
    [True, False, False]
    """

    false_alerts_per_week: float | None = None
    fdr: float | None = None

    def __post_init__(self) -> None:
        given = [v for v in (self.false_alerts_per_week, self.fdr) if v is not None]
        if len(given) != 1:
            raise InvalidParameterError(
                "false_alerts_per_week/fdr", "give exactly one of the two", given or None
            )
        if self.false_alerts_per_week is not None and not (
            _number(self.false_alerts_per_week) and self.false_alerts_per_week > 0
        ):
            raise InvalidParameterError(
                "false_alerts_per_week", "must be a number > 0", self.false_alerts_per_week
            )
        if self.fdr is not None and not (_number(self.fdr) and 0 < self.fdr < 1):
            raise InvalidParameterError("fdr", "must be strictly between 0 and 1", self.fdr)

    @property
    def rule(self) -> str:
        if self.fdr is not None:
            return f"false discovery rate {self.fdr:g}"
        n = self.false_alerts_per_week
        return f"{n:g} false alert{'s' if n != 1 else ''} a week"

    def per_check_rate(self, series: int, checks_per_week: float) -> float:
        """The p-value threshold of a weekly budget over ``series`` series."""
        assert self.false_alerts_per_week is not None
        checks = max(series, 1) * max(checks_per_week, 1e-12)
        return min(self.false_alerts_per_week / checks, 1.0)

    def apply(
        self,
        p_values: Sequence[float | None] | ArrayLike,
        alerted: Sequence[bool] | ArrayLike,
        checks_per_week: float,
    ) -> tuple[BoolArray, BudgetOutcome]:
        """Which of the run's alerts go out.

        ``p_values`` has one entry per series judged in the run (``None``/NaN: no p-value);
        ``alerted`` says which the detectors flagged; ``checks_per_week`` how often each series
        is judged (7 for a daily scan).
        """
        raw = np.asarray(p_values, dtype=object).ravel()
        p = np.array([math.nan if v is None else float(v) for v in raw], dtype=np.float64)
        flagged = np.asarray(alerted, dtype=bool).ravel()
        if p.shape != flagged.shape:
            raise ValueError(f"one flag per p-value: {len(p)} p-values, {len(flagged)} flags")
        ranked = ~np.isnan(p)
        if self.fdr is not None:
            threshold = _benjamini_hochberg(p[ranked], self.fdr)
        else:
            threshold = self.per_check_rate(int(ranked.sum()), checks_per_week)
        admitted = p <= threshold if self.fdr is not None else p < threshold
        keep = flagged & (~ranked | admitted)
        outcome = BudgetOutcome(
            self.rule,
            threshold,
            int((flagged & ~keep).sum()),
            int((flagged & ~ranked).sum()),
            int(ranked.sum()),
        )
        return keep, outcome


def _benjamini_hochberg(p: NDArray[np.float64], q: float) -> float:
    """The largest p-value the step-up procedure rejects at level ``q`` (0 when none)."""
    if len(p) == 0:
        return 0.0
    ordered = np.sort(p)
    passing = np.flatnonzero(ordered <= q * np.arange(1, len(p) + 1) / len(p))
    return float(ordered[passing[-1]]) if len(passing) else 0.0


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
