"""Zero-config monitors: volume, freshness, schema changes and column health of every table.

``monitors: auto`` in a scan (or ``anomaly monitor PATH_OR_TABLE``) measures them all in one
pass over the data and judges them like any other metric (``docs/monitors.md``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.config.monitor_config import MonitorsConfig
    from anomaly.monitors.column_health import ColumnHealth
    from anomaly.monitors.health_state import ColumnHealthState
    from anomaly.monitors.one_sided import UpperOnly
    from anomaly.monitors.schema_diff import SchemaChange, diff
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = [
    "ColumnHealth",
    "ColumnHealthState",
    "MonitorsConfig",
    "SchemaChange",
    "UpperOnly",
    "diff",
]
