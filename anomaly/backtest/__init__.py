"""Backtesting: which detector, with which settings, would have caught past incidents without
paging every night? (``docs/backtesting.md``)

``backtest`` replays detectors walk-forward over stored (or given) metric histories, exactly as
the scheduled check would have judged each point on its day, and scores the alerts against
incidents labelled by repository annotations or a CSV file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.backtest.labels import read_labels
    from anomaly.backtest.naming import detector_label
    from anomaly.backtest.result import BacktestResult
    from anomaly.backtest.run import FROM_REPOSITORY, backtest
    from anomaly.backtest.scoring import Score
    from anomaly.backtest.series import LabeledSeries
    from anomaly.backtest.sources import repository_series
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = [
    "FROM_REPOSITORY",
    "BacktestResult",
    "LabeledSeries",
    "Score",
    "backtest",
    "detector_label",
    "read_labels",
    "repository_series",
]
