"""The server backend: a PostgreSQL database shared by many processes on many hosts.

``backend.PostgresBackend`` is imported on first use only, so a DuckDB-only program never loads
the driver.
"""
