"""What a backtest found: every replayed verdict, scores per series and per detector."""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anomaly.backtest.plot import plot_backtest
from anomaly.backtest.scoring import Score, score
from anomaly.backtest.series import LabeledSeries
from anomaly.judging.tables import number, text_table
from detectors import Evaluation
from detectors.evaluation import ANOMALY, STATUS_ARRAY

TABLE_COLUMNS = (
    "points", "alerts", "alert_rate", "incidents", "detected", "recall", "precision", "f1",
    "mean_delay",
)  # fmt: skip


@dataclass(frozen=True, eq=False)
class BacktestResult:
    """The verdicts of every detector on every series, as ``backtest`` replayed them.

    ``evaluations[(detector name, series position)]`` holds the judged points of one series
    (positions in ``series[k].values``). Scores follow ``anomaly.backtest.scoring``.
    """

    detectors: dict[str, Any]
    series: list[LabeledSeries]
    evaluations: dict[tuple[str, int], Evaluation]

    @cached_property
    def _scored(self) -> dict[tuple[str, int], tuple[Score, list[dict[str, Any]]]]:
        found = {}
        for (name, k), ev in self.evaluations.items():
            one, at = self.series[k], ev.index
            found[(name, k)] = score(ev.codes, one.incident[at], one.expected[at], one.times[at])
        return found

    def score(self, detector: str) -> Score:
        """The detector's counts summed over every series."""
        return sum((s for (name, _), (s, _) in self._scored.items() if name == detector), Score())

    def summary(self) -> pd.DataFrame:
        """One row per detector and series: counts, rates and mean delay."""
        rows = [
            {
                "detector": name,
                "metric_id": self.series[k].metric_id,
                "group": self.series[k].group_label,
                **s.as_dict(),
            }
            for (name, k), (s, _) in self._scored.items()
        ]
        return pd.DataFrame(rows)

    def totals(self) -> pd.DataFrame:
        """One row per detector, counts summed over series (rates are of the sums)."""
        rows = [
            {"detector": name, "series": len(self.series), **self.score(name).as_dict()}
            for name in self.detectors
        ]
        return pd.DataFrame(rows)

    def events(self) -> pd.DataFrame:
        """One row per detector and labelled incident: its span, whether and when it alerted."""
        rows = [
            {
                "detector": name,
                "metric_id": self.series[k].metric_id,
                "group": self.series[k].group_label,
                **event,
            }
            for (name, k), (_, events) in self._scored.items()
            for event in events
        ]
        columns = ["detector", "metric_id", "group", "start", "end", "points", "detected"]
        return pd.DataFrame(rows, columns=[*columns, "delay", "delay_seconds"])

    def points(self) -> pd.DataFrame:
        """Every judged point: detector, series, time, value, status, band, alert and labels."""
        frames = []
        for (name, k), ev in self.evaluations.items():
            one, at = self.series[k], ev.index
            label = np.where(
                one.incident[at], "incident", np.where(one.expected[at], "expected", "")
            )
            frames.append(
                pd.DataFrame(
                    {
                        "detector": name,
                        "metric_id": one.metric_id,
                        "group": one.group_label,
                        "timestamp": one.times[at],
                        "value": ev.value,
                        "status": STATUS_ARRAY[ev.codes],
                        "lower": ev.lower,
                        "upper": ev.upper,
                        "alert": ev.codes == ANOMALY,
                        "label": label,
                        "excluded": one.excluded[at],
                        "detail": list(ev.detail),
                    }
                )
            )
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def to_dict(self) -> dict[str, Any]:
        """Detectors, totals, per-series scores and incidents, ready for ``json.dumps``."""
        return {
            "detectors": {name: repr(d) for name, d in self.detectors.items()},
            "totals": _records(self.totals()),
            "series": _records(self.summary()),
            "incidents": _records(self.events()),
        }

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """The result as JSON text (NaN as null), also written to ``path`` when given."""
        text = json.dumps(self.to_dict(), indent=2)
        if path is not None:
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    def table(self, per_series: bool = True) -> str:
        """Plain-text tables: per detector and series (when ``per_series``), then totals."""
        parts = []
        if per_series:
            frame = self.summary()
            head = ["detector", "metric", "group", *TABLE_COLUMNS]
            rows = [[r.detector, r.metric_id, r.group, *_cells(r)] for r in frame.itertuples()]
            parts.append(text_table(head, rows))
        totals = self.totals()
        rows = [[r.detector, str(r.series), *_cells(r)] for r in totals.itertuples()]
        parts.append(text_table(["detector", "series", *TABLE_COLUMNS], rows))
        return "\n\n".join(parts)

    def plot(self, path: str | os.PathLike[str], max_panels: int = 12) -> Path:
        """A PNG of each series with its labels and every detector's alerts (``plot.py``)."""
        return plot_backtest(self, path, max_panels=max_panels)


def _cells(row: Any) -> list[str]:
    def pct(value: float) -> str:
        return "-" if math.isnan(value) else f"{100 * value:.1f}%"

    return [
        str(row.points),
        str(row.alerts),
        pct(row.alert_rate),
        str(row.incidents),
        str(row.detected),
        pct(row.recall),
        pct(row.precision),
        pct(row.f1),
        number(row.mean_delay),
    ]


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    def plain(value: Any) -> Any:
        if isinstance(value, pd.Timestamp):
            return value.isoformat()
        if isinstance(value, float | np.floating):
            return None if math.isnan(value) else float(value)
        if isinstance(value, np.integer | np.bool_):
            return value.item()
        return value

    return [{str(k): plain(v) for k, v in row.items()} for row in frame.to_dict("records")]
