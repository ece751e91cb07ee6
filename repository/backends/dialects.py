"""Every SQL difference between the stores, in one place.

The repository writes its SQL once, in the dialect DuckDB and PostgreSQL share (``?``
placeholders: the PostgreSQL cursor turns them into ``%s``), and asks the cursor's ``Dialect``
for the few constructs that differ:

==================  ==============================  ==========================================
construct           DuckDB                          PostgreSQL
==================  ==============================  ==========================================
epoch milliseconds  ``epoch_ms(ts)``                ``floor(extract(epoch FROM ts) * 1000)``
timestamp of ms     ``make_timestamptz(ms * 1000)`` ``to_timestamp(0) + ms * 1 millisecond``
list membership     ``list_contains(?, col)``       ``col = ANY(?)``
text map (views)    ``MAP(VARCHAR, VARCHAR)``       ``jsonb`` object
map value           ``col['key']``                  ``(col ->> 'key') COLLATE "C"``
columns of ``*``    ``*`` ``EXCLUDE``/``REPLACE``    the columns listed, by name
latest per series   ``arg_max`` aggregation         ``DISTINCT ON (series_id)``
column types (DDL)  as written                      ``VARCHAR`` -> ``TEXT COLLATE "C"``,
                                                    ``DOUBLE`` -> ``DOUBLE PRECISION``,
                                                    ``BLOB`` -> ``BYTEA``
tuning              none (zone maps, ``compact``)   indexes by series, run, tag and group
                                                    value; states stored uncompressed
==================  ==============================  ==========================================

Text columns on PostgreSQL use the ``C`` collation: text then sorts by code point, as in DuckDB,
whatever the database's locale, so every listing comes back in the same order on both stores.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Dialect:
    """The SQL of one store for the constructs that differ (DuckDB's here; see subclasses).

    Examples
    --------
    >>> DUCKDB.member("s.metric_id", "VARCHAR", 2)
    'list_contains(?::VARCHAR[], s.metric_id)'
    >>> POSTGRES.member("s.metric_id", "VARCHAR", 2)
    's.metric_id = ANY(?::VARCHAR[])'
    """

    name: str = "duckdb"
    store: str = "DuckDB database"
    star_modifiers: bool = True
    """Whether ``*`` takes ``EXCLUDE``/``REPLACE`` (else `star` lists the columns)."""

    def epoch_ms(self, ts: str) -> str:
        """Epoch milliseconds (``BIGINT``) of a ``TIMESTAMPTZ`` expression (sub-ms dropped)."""
        return f"epoch_ms({ts})"

    def timestamp_of_ms(self, millis: str) -> str:
        """The ``TIMESTAMPTZ`` of an epoch-milliseconds expression."""
        return f"make_timestamptz(({millis}) * 1000)"

    def member(self, column: str, sql_type: str, count: int) -> str:
        """``column`` is in the list bound to the ``?``; ``count`` is the list's length.

        A short list is tested inline (planning an ``IN (SELECT unnest(?))`` costs ~2 ms in
        DuckDB); a long one is hash-joined rather than scanned for every row.
        """
        if count <= 64:
            return f"list_contains(?::{sql_type}[], {column})"
        return f"{column} IN (SELECT unnest(?::{sql_type}[]))"

    def map_of(self, key: str, value: str) -> str:
        """An aggregate building a text map from ``key`` and ``value`` columns."""
        return f"map(list({key} ORDER BY {key}), list({value} ORDER BY {key}))"

    @property
    def empty_map(self) -> str:
        """The empty text map."""
        return "MAP()::MAP(VARCHAR, VARCHAR)"

    def map_value(self, column: str, key: str) -> str:
        """The value of text ``key`` (a SQL string literal or a ``?``) in a map column."""
        return f"{column}[{key}]"

    def star(
        self,
        alias: str,
        columns: Sequence[str],
        exclude: Collection[str] = (),
        replace: Mapping[str, str] | None = None,
    ) -> str:
        """Every column of relation ``alias`` (``""``: of the only one) in its order, but those
        in ``exclude``, and those in ``replace`` (column -> expression) computed instead.

        ``columns`` are the relation's columns (e.g. of ``SELECT * ... LIMIT 0``): PostgreSQL
        has no ``EXCLUDE``/``REPLACE`` and lists them; DuckDB's ``*`` does not need them, so a
        column added later still comes through.

        >>> DUCKDB.star("v", ["a", "b", "c"], exclude=["b"], replace={"c": "c + 1"})
        'v.* EXCLUDE (b) REPLACE (c + 1 AS c)'
        >>> POSTGRES.star("v", ["a", "b", "c"], exclude=["b"], replace={"c": "c + 1"})
        'v."a", c + 1 AS "c"'
        """
        if not self.star_modifiers:
            prefix, computed = f"{alias}." if alias else "", replace or {}
            return ", ".join(
                f"{computed[name]} AS {_quoted(name)}"
                if name in computed
                else prefix + _quoted(name)
                for name in columns
                if name not in exclude
            )
        star = f"{alias}.*" if alias else "*"
        if exclude:
            star += f" EXCLUDE ({', '.join(exclude)})"
        if replace:
            star += f" REPLACE ({', '.join(f'{sql} AS {name}' for name, sql in replace.items())})"
        return star

    def ddl(self, text: str) -> str:
        """``CREATE`` statements written with DuckDB's type names, for this store."""
        return text

    @property
    def tuning(self) -> tuple[str, ...]:
        """Physical design of the current tables: idempotent statements (``CREATE INDEX IF NOT
        EXISTS``, storage settings), not versioned, (re)applied after every migration."""
        return ()

    def latest_per_series(self, source: str, where: str) -> str:
        """The newest point of every series among ``source`` (points ``p``, runs ``r``, series
        ``s``, group keys ``k``) rows matching ``where``: newest by run time, then run id."""
        # One aggregation (arg_max by time, then run id) is faster here than a window function.
        return f"""
        SELECT max(epoch_ms(r.ts)) AS ts_ms, arg_max(p.run_id, (r.ts, r.run_id)) AS run_id,
               any_value(s.group_id) AS group_id, any_value(s.entity) AS entity,
               any_value(s.instance) AS instance, any_value(s.name) AS name,
               any_value(s.metric_id) AS metric_id,
               arg_max(p.value, (r.ts, r.run_id)) AS value, any_value(k.group_key) AS group_key
        {source}
        WHERE {where}
        GROUP BY p.series_id
        ORDER BY metric_id, entity, instance, name, group_key"""


_PG_TYPES = (
    (re.compile(r"\bVARCHAR\b", re.IGNORECASE), 'TEXT COLLATE "C"'),
    (re.compile(r"\bDOUBLE\b(?!\s+PRECISION)", re.IGNORECASE), "DOUBLE PRECISION"),
    (re.compile(r"\bBLOB\b", re.IGNORECASE), "BYTEA"),
)


@dataclass(frozen=True)
class PostgresDialect(Dialect):
    """PostgreSQL's SQL for the constructs that differ from DuckDB's.

    Examples
    --------
    >>> POSTGRES.ddl("CREATE TABLE t (a VARCHAR NOT NULL, b DOUBLE, c BLOB)")
    'CREATE TABLE t (a TEXT COLLATE "C" NOT NULL, b DOUBLE PRECISION, c BYTEA)'
    """

    name: str = "postgresql"
    store: str = "PostgreSQL schema"
    star_modifiers: bool = False

    def epoch_ms(self, ts: str) -> str:
        return f"floor(extract(epoch FROM {ts}) * 1000)::BIGINT"

    def timestamp_of_ms(self, millis: str) -> str:
        return f"(to_timestamp(0) + ({millis}) * INTERVAL '1 millisecond')"

    def member(self, column: str, sql_type: str, count: int) -> str:
        return f"{column} = ANY(?::{sql_type}[])"

    def map_of(self, key: str, value: str) -> str:
        return f"jsonb_object_agg({key}, {value})"

    @property
    def empty_map(self) -> str:
        return "'{}'::jsonb"

    def map_value(self, column: str, key: str) -> str:
        # jsonb text has the database's collation: "C" sorts it by code point, as DuckDB does.
        return f'({column} ->> {key}) COLLATE "C"'

    def ddl(self, text: str) -> str:
        for pattern, replacement in _PG_TYPES:
            text = pattern.sub(replacement, text)
        return text

    @property
    def tuning(self) -> tuple[str, ...]:
        return (
            # Analyzer states arrive compressed (Arrow IPC with zstd): do not compress them again.
            "ALTER TABLE analyzer_states ALTER COLUMN payload SET STORAGE EXTERNAL",
            # history(): one series' points; latest(): every series of a metric.
            "CREATE INDEX IF NOT EXISTS points_by_series ON points (series_id, run_id)",
            # Replacing a run's points, retention, and points of the runs a tag filter picked.
            "CREATE INDEX IF NOT EXISTS points_by_run ON points (run_id, series_id)",
            # By metric id, then group: history() and latest() look series up that way, and
            # saves merge-join a run's points to series in this order.
            "CREATE INDEX IF NOT EXISTS series_by_metric "
            "ON series (metric_id, group_id, name, entity, instance)",
            "CREATE INDEX IF NOT EXISTS series_by_group ON series (group_id)",
            "CREATE INDEX IF NOT EXISTS run_tags_by_value ON run_tags (tag, value)",
            "CREATE INDEX IF NOT EXISTS group_values_by_value ON group_values (column_name, value)",
            "CREATE INDEX IF NOT EXISTS check_outcomes_by_run ON check_outcomes (run_id)",
            "CREATE INDEX IF NOT EXISTS anomaly_verdicts_by_run ON anomaly_verdicts (run_id)",
            "CREATE INDEX IF NOT EXISTS anomaly_verdicts_by_ts ON anomaly_verdicts (ts)",
        )

    def latest_per_series(self, source: str, where: str) -> str:
        return f"""
        SELECT * FROM (
            SELECT DISTINCT ON (p.series_id) {self.epoch_ms("r.ts")} AS ts_ms, p.run_id,
                   s.group_id, s.entity, s.instance, s.name, s.metric_id, p.value, k.group_key
            {source}
            WHERE {where}
            ORDER BY p.series_id, r.ts DESC, r.run_id DESC) newest
        ORDER BY metric_id, entity, instance, name, group_key"""


def _quoted(name: str) -> str:
    """``name`` as a quoted SQL identifier."""
    escaped = name.replace('"', '""')
    return f'"{escaped}"'


DUCKDB = Dialect()
POSTGRES = PostgresDialect()
