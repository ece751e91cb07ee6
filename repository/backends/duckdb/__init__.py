"""The embedded backend: one DuckDB file (or an in-memory database) per repository."""

from __future__ import annotations

from repository.backends.duckdb.backend import DuckDBBackend

__all__ = ["DuckDBBackend"]
