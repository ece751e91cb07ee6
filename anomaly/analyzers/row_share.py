"""The share of rows that pass a test: the state and metric of Completeness, Compliance,
PatternMatch and RecordCompleteness, which differ only in their aggregations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from anomaly.analyzers.base import ScanShareableAnalyzer
from anomaly.analyzers.state import MatchesState


class RowShareAnalyzer(ScanShareableAnalyzer[MatchesState]):
    """An analyzer whose aggregations are (rows passing, rows) and whose metric is their ratio."""

    def state_from_row(self, values: Sequence[Any]) -> MatchesState:
        return MatchesState(int(values[0] or 0), int(values[1] or 0))

    def empty_state(self) -> MatchesState:
        return MatchesState.identity()

    def compute_metric(self, state: MatchesState) -> float:
        if state.rows == 0:
            raise self.nothing_to_measure()
        return state.matches / state.rows
