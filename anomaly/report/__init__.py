"""The HTML report and the live read-only web UI over a metrics repository (``docs/report.md``).

``write_report`` writes one self-contained HTML file (BokehJS embedded, works offline);
``UIServer``/``create_app`` serve the same pages live with a JSON API. Neither writes to the
repository. Importing this package starts no server and needs no Spark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.report.page import render_page, write_report
    from anomaly.report.sections import ReportSection, register_section, unregister_section
    from anomaly.report.server import create_app
    from anomaly.report.serving import UIServer
    from anomaly.report.snapshot import collect_snapshot
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = [
    "ReportSection",
    "UIServer",
    "collect_snapshot",
    "create_app",
    "register_section",
    "render_page",
    "unregister_section",
    "write_report",
]
