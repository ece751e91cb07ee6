"""Shared behaviour of frequency analyzers over one or more columns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from anomaly.analyzers.frequency import FrequencyAnalyzer
from anomaly.errors import ConfigurationError


def normalise_columns(columns: str | Sequence[str]) -> tuple[str, ...]:
    """A tuple of column names from one name or a sequence of names."""
    names = (columns,) if isinstance(columns, str) else tuple(columns)
    if not names or not all(isinstance(c, str) and c for c in names):
        raise ConfigurationError(f"columns must be one or more column names, got {columns!r}")
    return names


class MultiColumnFrequencyAnalyzer(FrequencyAnalyzer):
    """A frequency analyzer whose `columns` field may be given as a string or a sequence."""

    column_names: str | Sequence[str]

    def __post_init__(self) -> None:
        object.__setattr__(self, "column_names", normalise_columns(self.column_names))

    @property
    def columns(self) -> tuple[str, ...]:
        return cast(tuple[str, ...], self.column_names)  # normalised in __post_init__
