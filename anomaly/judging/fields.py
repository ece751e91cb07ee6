"""The JSON vocabulary of judged points, one for the CLI and the HTTP API.

``anomaly anomalies --format json`` and ``GET /api/anomalies`` answer with the same keys
(`VERDICT_FIELDS`); ``anomaly history --format json`` and ``GET /api/series`` name what they
share alike (`POINT_FIELDS`). Documented once, in ``docs/cli.md`` ("JSON fields").

>>> iso_time(datetime(2026, 3, 12))
'2026-03-12T00:00:00Z'
>>> renamed({"timestamp": "2026-03-12", "metric_id": "Size(*)", "history_length": 30})
{'time': '2026-03-12', 'metric': 'Size(*)', 'history': 30}
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

_JUDGED = ("value", "lower", "upper", "status", "detector")
_RUN = ("time", "run_time", "dataset", "scan", "metric", "group")
VERDICT_FIELDS = (*_RUN, *_JUDGED, "score", "detail", "history")
"""A verdict: the judged point's time, its run's time, dataset and scan tags, the metric id,
the group (column -> value), the value and expected band, status, detector, score, detail and
the number of earlier points judged on."""
POINT_FIELDS = ("time", "dataset", "scan", "metric", "group", *_JUDGED)
"""A stored point of a series, with the band and status of its verdict (null when unjudged)."""
PROBLEMS = ("anomaly", "error")
"""Verdict statuses that count against a scan (and are alerted); ``anomaly anomalies`` lists
these unless asked for others."""
OLD_NAMES = {"timestamp": "time", "metric_id": "metric", "history_length": "history"}
"""The repository's column names (and the CLI's JSON keys before one vocabulary) -> the JSON
names."""


def renamed(row: Mapping[str, Any]) -> dict[str, Any]:
    """`row` with the repository's column names replaced by the JSON names."""
    return {OLD_NAMES.get(key, key): value for key, value in row.items()}


def iso_time(value: Any) -> str | None:
    """A time as ISO text in UTC with a ``Z`` (naive times are UTC); None stays None."""
    if value is None:
        return None
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
    return str(value)
