"""Extra report sections: schema changes, monitors, and whatever a feature adds later.

A feature that stores results of its own (the monitors of ``monitors: auto`` store volume,
freshness, schema changes and column health) registers a provider; the report calls it with
the repository and a read-only cursor and shows each returned `ReportSection` as a sortable,
filterable table on the "Schema & monitors" page. A provider must only read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from anomaly.report.encoding import plain
from repository import MetricsRepository
from repository.results import Cursor


@dataclass(frozen=True)
class ReportSection:
    """A titled table for the report (cells are text, numbers or None).

    ``links`` (optional, one per row) are series ids of the report's charts to link the row to.

    Examples
    --------
    >>> section = ReportSection("schema", "Schema changes", ["time", "column", "change"],
    ...                         [["2026-03-01", "price", "double -> string"]])
    >>> section.to_dict()["rows"]
    [['2026-03-01', 'price', 'double -> string']]
    """

    key: str
    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[Any]]
    note: str | None = None
    links: Sequence[int | None] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        for i, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(
                    f"section {self.key!r}: row {i} has {len(row)} cells, the section has "
                    f"{len(self.columns)} columns"
                )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "key": self.key,
            "title": self.title,
            "columns": [str(c) for c in self.columns],
            "rows": [[plain(c) for c in row] for row in self.rows],
            "note": self.note,
            "links": list(self.links),
        }


SectionProvider = Callable[[MetricsRepository, Cursor], Sequence[ReportSection]]
_PROVIDERS: dict[str, SectionProvider] = {}


def register_section(name: str, provider: SectionProvider) -> None:
    """Add (or replace) the provider called `name`; sections appear in registration order."""
    _PROVIDERS[name] = provider


def unregister_section(name: str) -> None:
    """Remove the provider called `name` (no error when it is not registered)."""
    _PROVIDERS.pop(name, None)


def collect_sections(repo: MetricsRepository) -> tuple[list[dict[str, Any]], list[str]]:
    """Every provider's sections (JSON-ready) and, per failing provider, a message (a broken
    provider never breaks the report)."""
    sections: list[dict[str, Any]] = []
    problems: list[str] = []
    for name, provider in list(_PROVIDERS.items()):
        try:
            with repo.sql() as cur:
                sections.extend(s.to_dict() for s in provider(repo, cur))
        except Exception as error:
            problems.append(f"section {name!r} failed: {type(error).__name__}: {error}")
    return sections, problems
