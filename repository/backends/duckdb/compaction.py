"""Compacting a DuckDB repository: a fresh copy holding only live rows, points sorted by series.

DuckDB marks deleted rows and frees their blocks at the next checkpoint; freed blocks are reused
by later writes, but the file never shrinks (nor does ``VACUUM`` shrink it), and rewriting a table
in place (one transaction deleting and re-inserting it) needs new blocks for the new rows while
the old ones are still in use: the file grew by the size of the points table. So ``compact``
copies the repository into a fresh file (``COPY FROM DATABASE`` for the schema, then every table's
rows) that atomically replaces the old one (``DuckDBBackend.rewrite``). By default the points are
copied sorted by series: appended runs interleave every series, and sorting puts each series'
points into one or two row groups, so ``history()`` reads a few row groups instead of all of them
(see ``bench/repository.py``). Takes seconds for 10M points; other processes wait.
"""

from __future__ import annotations

from repository.backends.duckdb.cursor import DuckDBCursor


def copy_database(cur: DuckDBCursor, old: str, new: str, recluster: bool) -> None:
    """Every table, view, sequence (with its position) and row of ``old`` into ``new``."""
    cur.execute(f"COPY FROM DATABASE {old} TO {new} (SCHEMA)")
    tables = cur.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = ? "
        "ORDER BY schema_name, table_name",
        [old],
    ).fetchall()
    with cur.atomic():
        for schema, table in tables:
            name = f'"{schema}"."{table}"'
            # Sorted, a series' points sit in one or two row groups instead of in all of them.
            order = " ORDER BY series_id, run_id" if recluster and table == "points" else ""
            cur.execute(f"INSERT INTO {new}.{name} SELECT * FROM {old}.{name}{order}")


def sort_points(cur: DuckDBCursor) -> None:
    """Re-sort the points of an in-memory database by series, inside the caller's transaction."""
    cur.execute(
        "CREATE TEMP TABLE sorted_points AS SELECT * FROM points ORDER BY series_id, run_id"
    )
    cur.execute("DELETE FROM points")
    cur.execute("INSERT INTO points SELECT * FROM sorted_points")
    cur.execute("DROP TABLE sorted_points")
