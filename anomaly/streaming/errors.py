"""Errors of streaming jobs."""

from __future__ import annotations

from anomaly.errors import AnomalyError, StateError


class StreamError(AnomalyError):
    """A micro-batch cannot be processed (the query stops; a restart replays the batch).

    >>> str(StreamError("stream 'clicks': time_column 'ts' does not exist; columns: a, b"))
    "stream 'clicks': time_column 'ts' does not exist; columns: a, b"
    """


class StreamStateError(StateError):
    """A stream's stored state does not fit its query (e.g. the checkpoint was replaced)."""
