"""Extra report sections: schema changes, monitors, and whatever a feature adds later.

A feature that stores results of its own (the monitors of ``monitors: auto`` store volume,
freshness, schema changes and column health) registers a provider; the report calls it with
the repository and a read-only cursor and shows each returned `ReportSection` as a sortable,
filterable table on the "Schema & monitors" page. A provider must only read.

The schema changes are built in (`schema_sections`): every change between consecutive stored
schema snapshots of a dataset and scan (what ``monitors: {schema_changes: ...}`` stores), and
each one's newest schema.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from anomaly.monitors.schema_diff import describe, diff
from anomaly.report.encoding import plain
from repository import MetricsRepository
from repository.results import Cursor, fetch_arrow


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


def schema_sections(repo: MetricsRepository, cur: Cursor) -> list[ReportSection]:
    """The stored schema changes (newest first) and the newest schema of each dataset and scan
    (none when no schema snapshot is stored).

    Examples
    --------
    >>> from repository import ResultKey
    >>> repo = MetricsRepository(":memory:")
    >>> for day, fields in enumerate([["id"], ["id", "price"]], start=1):
    ...     schema = {"fields": [{"name": f, "type": "long", "nullable": True} for f in fields]}
    ...     repo.save_schema(ResultKey(86_400_000 * day, {"dataset": "orders"}), schema)
    >>> with repo.sql() as cur:
    ...     changes, newest = schema_sections(repo, cur)
    >>> changes.rows[0][:5], changes.rows[0][-1]
    (['1970-01-03 00:00', 'orders', '-', 'added', 'price'], 'column price added (bigint)')
    >>> newest.rows[0][-1]
    'id bigint?, price bigint?'
    """
    d = repo.dialect
    snapshots = fetch_arrow(
        cur,
        f"""SELECT {d.epoch_ms("h.timestamp")} AS ts, coalesce(h.dataset, '') AS dataset,
                   coalesce({d.map_value("h.tags", "'scan'")}, '') AS scan, h.column_count,
                   h.schema_json
            FROM schema_history h ORDER BY h.timestamp, h.run_id""",
        [],
    ).to_pylist()
    if not snapshots:
        return []
    newest: dict[tuple[str, str], dict[str, Any]] = {}
    changes: list[list[Any]] = []
    for row in snapshots:
        where = (str(row["dataset"]), str(row["scan"]))
        schema = json.loads(row["schema_json"])
        if where in newest:
            for change in diff(newest[where]["schema"], schema):
                changes.append(
                    [_minute(row["ts"]), *(w or "-" for w in where), change.kind, change.path,
                     change.before or "-", change.after or "-", change.text]
                )  # fmt: skip
        newest[where] = {"schema": schema, "ts": row["ts"], "columns": row["column_count"]}
    return [
        ReportSection(
            "schema-changes",
            "Schema changes",
            ["time", "dataset", "scan", "change", "column", "before", "after", "in words"],
            changes[::-1],
            note=f"Every change between consecutive schema snapshots ({len(snapshots)} stored).",
        ),
        ReportSection(
            "schemas",
            "Newest schemas",
            ["as of", "dataset", "scan", "columns", "schema (? = nullable)"],
            [
                [_minute(n["ts"]), *(w or "-" for w in where), n["columns"], describe(n["schema"])]
                for where, n in sorted(newest.items())
            ],
        ),
    ]


def _minute(millis: int) -> str:
    return datetime.fromtimestamp(millis / 1000, UTC).strftime("%Y-%m-%d %H:%M")


register_section("schema", schema_sections)


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
