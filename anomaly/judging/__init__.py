"""The one judging core: history frame (annotations) -> detector -> verdicts -> budget ->
report -> alerts and sinks, used by scans, backfills, stream windows, monitors and
``has_no_anomalies`` alike (``docs/architecture.md``)."""

from anomaly.judging.report import Finding, ScanReport, ScanStatus
from anomaly.judging.run import RunVerdicts, judge_run, plans_by_record
from anomaly.judging.sinks import AlertDeliveryError, dispatch, redeliver

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
