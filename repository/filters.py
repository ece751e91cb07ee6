"""WHERE clauses built from fixed SQL text; every user value (tag, metric id, group value, time)
is a bound parameter, so no value can change the statement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from repository.backends.dialects import Dialect
from repository.keys import TimeLike, from_epoch_ms, to_epoch_ms

_TAG_SUBSET = (
    "{run_id} IN (SELECT t.run_id FROM run_tags t JOIN (SELECT unnest(?::VARCHAR[]) AS tag, "
    "unnest(?::VARCHAR[]) AS value) f ON t.tag = f.tag AND t.value = f.value "
    "GROUP BY t.run_id HAVING count(*) = ?)"
)
_GROUP_SUBSET = (
    "{group_id} IN (SELECT v.group_id FROM group_values v JOIN (SELECT unnest(?::VARCHAR[]) AS c, "
    "unnest(?::VARCHAR[]) AS value) f ON v.column_name = f.c AND v.value IS NOT DISTINCT FROM "
    "f.value GROUP BY v.group_id HAVING count(*) = ?)"
)


class Where:
    """Accumulates AND-ed conditions and their parameters, in the SQL of ``dialect``.

    Examples
    --------
    >>> where = Where(Dialect()).tags("r.run_id", {"dataset": "o'rders"})
    >>> where.add("s.metric_id = ?", "Size(*)").params[0], where.params[-1]
    (['dataset'], 'Size(*)')
    """

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.clauses: list[str] = []
        self.params: list[object] = []

    @property
    def sql(self) -> str:
        """The conditions joined by AND (``TRUE`` when there are none)."""
        return " AND ".join(self.clauses) if self.clauses else "TRUE"

    def add(self, clause: str, *params: object) -> Where:
        """Add one condition with its ``?`` parameters."""
        self.clauses.append(clause)
        self.params.extend(params)
        return self

    def tags(self, run_id: str, tags: Mapping[str, str] | None) -> Where:
        """Runs whose tags include all of ``tags`` (subset match)."""
        if tags:
            names, values = list(tags), list(tags.values())
            self.add(_TAG_SUBSET.format(run_id=run_id), names, values, len(names))
        return self

    def group_subset(self, group_id: str, group: Mapping[str, str | None] | None) -> Where:
        """Groups having all of ``group``'s column values (``None`` matches a null value)."""
        if group:
            columns, values = list(group), list(group.values())
            self.add(_GROUP_SUBSET.format(group_id=group_id), columns, values, len(columns))
        return self

    def time_range(self, ts: str, after: TimeLike | None, before: TimeLike | None) -> Where:
        """``after <= ts <= before``; both bounds inclusive, either may be left open."""
        low = None if after is None else to_epoch_ms(after, "after")
        high = None if before is None else to_epoch_ms(before, "before")
        if low is not None and high is not None and low > high:
            raise ValueError(
                f"after ({from_epoch_ms(low).isoformat()}) is later than "
                f"before ({from_epoch_ms(high).isoformat()}): the time range is empty"
            )
        if low is not None:
            self.add(f"{ts} >= ?", from_epoch_ms(low))
        if high is not None:
            self.add(f"{ts} <= ?", from_epoch_ms(high))
        return self

    def within(self, column: str, values: Iterable[str] | None) -> Where:
        """``column`` is one of ``values`` (no condition when ``values`` is None)."""
        if values is not None:
            listed = list(values)
            self.add(self.dialect.member(column, "VARCHAR", len(listed)), listed)
        return self
