"""The one judging core: history frame (annotations) -> detector -> verdicts -> budget ->
report -> alerts and sinks, used by scans, backfills, stream windows, monitors and
``has_no_anomalies`` alike (``docs/architecture.md``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.judging.report import Finding, ScanReport, ScanStatus
    from anomaly.judging.run import RunVerdicts, judge_run, plans_by_record
    from anomaly.judging.sinks import AlertDeliveryError, dispatch, redeliver
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = [
    "AlertDeliveryError",
    "Finding",
    "RunVerdicts",
    "ScanReport",
    "ScanStatus",
    "dispatch",
    "judge_run",
    "plans_by_record",
    "redeliver",
]
