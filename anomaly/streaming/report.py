"""What one micro-batch did: rows merged, late and untimed rows, windows closed and judged."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from anomaly.judging.report import ScanStatus
from anomaly.streaming.judging import WindowResult
from anomaly.streaming.windows import Window, to_datetime


@dataclass(frozen=True)
class BatchReport:
    """The outcome of one micro-batch of a stream.

    Attributes
    ----------
    rows
        Rows in the batch (for accuracy, source and target rows).
    late
        Rows per window that arrived after the window had closed: counted, not merged.
    late_other
        Late rows not attributed to a window (accuracy: target rows no open window can match).
    untimed
        Rows without an event time.
    watermark
        Epoch ms after the batch (None before the first timed row).
    closed
        The windows the batch closed, judged and stored.
    started_at
        Wall-clock time (``time.time()``) the batch started.
    future
        Rows whose event time was implausibly far ahead of the processing clock (beyond the
        stream's ``max_future``): counted, merged into no window, not moving the watermark.

    Examples
    --------
    >>> report = BatchReport("clicks", 3, rows=120, late={Window(0, 60_000): 2},
    ...                      watermark=90_000, started_at=0.0, seconds=0.4)
    >>> report.headline()
    'clicks batch 3: 120 rows, 2 late, watermark 1970-01-01T00:01:30Z, 0 windows closed (0.4 s)'
    """

    stream: str
    batch_id: int
    rows: int = 0
    late: dict[Window, int] = field(default_factory=dict)
    late_other: int = 0
    untimed: int = 0
    watermark: int | None = None
    closed: list[WindowResult] = field(default_factory=list)
    started_at: float = 0.0
    seconds: float = 0.0
    future: int = 0

    @property
    def late_rows(self) -> int:
        """Every late row of the batch."""
        return sum(self.late.values()) + self.late_other

    @property
    def watermark_time(self) -> datetime | None:
        """The watermark as a UTC datetime."""
        return None if self.watermark is None else to_datetime(self.watermark)

    @property
    def status(self) -> ScanStatus:
        """The worst status of the windows it closed."""
        return max((w.report.status for w in self.closed), default=ScanStatus.OK)

    def headline(self) -> str:
        """One line for logs."""
        parts = [f"{self.rows} rows"]
        if self.late_rows:
            parts.append(f"{self.late_rows} late")
        if self.untimed:
            parts.append(f"{self.untimed} without event time")
        if self.future:
            parts.append(f"{self.future} with an implausible future event time")
        if self.watermark is not None:
            moment = self.watermark_time
            assert moment is not None
            parts.append(f"watermark {moment.strftime('%Y-%m-%dT%H:%M:%SZ')}")
        parts.append(f"{len(self.closed)} window{'' if len(self.closed) == 1 else 's'} closed")
        return f"{self.stream} batch {self.batch_id}: {', '.join(parts)} ({self.seconds:.1f} s)"
