"""A stream's event-time clock: the largest event time seen, the watermark, and row counts.

The clock is stored with the number of the micro-batch that last moved it and its value before
that batch, so replaying that batch after a crash starts again from the same clock: a replayed
batch finds the same watermark, the same late rows and the same windows to close.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from anomaly.streaming.errors import StreamStateError


@dataclass(frozen=True)
class Progress:
    """What a stream has seen through some micro-batch.

    Attributes
    ----------
    max_event
        The largest event time seen (epoch ms), None before the first timed row.
    late
        Rows that arrived after their window had closed, per side (``rows``; for accuracy
        ``source`` and ``target``): counted and reported, never merged.
    untimed
        Rows without an event time (null or unreadable), per side.
    future
        Rows whose event time was implausibly far ahead of the processing clock, per side:
        counted, merged into no window, and never moving the clock.

    Examples
    --------
    >>> p = Progress().advanced(1_000_000, late={"rows": 2})
    >>> p.watermark(60_000), p.late
    (940000, {'rows': 2})
    >>> p.advanced(500_000).max_event  # the clock never goes back
    1000000
    """

    max_event: int | None = None
    late: Mapping[str, int] = field(default_factory=dict)
    untimed: Mapping[str, int] = field(default_factory=dict)
    future: Mapping[str, int] = field(default_factory=dict)

    def watermark(self, delay: int) -> int | None:
        """The largest event time seen minus `delay` (None before any timed row)."""
        return None if self.max_event is None else self.max_event - delay

    def advanced(
        self,
        batch_max: int | None,
        late: Mapping[str, int] | None = None,
        untimed: Mapping[str, int] | None = None,
        future: Mapping[str, int] | None = None,
    ) -> Progress:
        """This progress after a batch whose largest event time is `batch_max`."""
        seen = [v for v in (self.max_event, batch_max) if v is not None]
        return replace(
            self,
            max_event=max(seen) if seen else None,
            late=_added(self.late, late or {}),
            untimed=_added(self.untimed, untimed or {}),
            future=_added(self.future, future or {}),
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "max_event": self.max_event,
            "late": dict(self.late),
            "untimed": dict(self.untimed),
            "future": dict(self.future),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Progress:
        max_event = data.get("max_event")
        return cls(
            None if max_event is None else int(str(max_event)),
            _counts(data.get("late")),
            _counts(data.get("untimed")),
            _counts(data.get("future")),  # absent in clocks stored before it was counted
        )


def _counts(value: object) -> dict[str, int]:
    return {str(k): int(v) for k, v in value.items()} if isinstance(value, Mapping) else {}


def _added(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    return {k: a.get(k, 0) + b.get(k, 0) for k in sorted({*a, *b}) if a.get(k, 0) + b.get(k, 0)}


@dataclass(frozen=True)
class Clock:
    """The stored clock: progress before and after the last batch that moved it.

    Examples
    --------
    >>> clock = Clock(4, Progress(10), Progress(20))
    >>> clock.base(5).max_event, clock.base(4).max_event  # batch 5 is new, batch 4 a replay
    (20, 10)
    >>> Clock.from_bytes(clock.to_bytes()) == clock
    True
    """

    batch: int
    before: Progress
    after: Progress

    def base(self, batch_id: int, stream: str = "") -> Progress:
        """The progress a batch starts from: after the last batch, or before it on a replay.

        Raises `StreamStateError` for a batch older than the last one: the query's checkpoint
        was replaced, or another query writes under the same stream name.
        """
        if batch_id > self.batch:
            return self.after
        if batch_id == self.batch:
            return self.before
        raise StreamStateError(
            f"stream {stream!r} has processed micro-batch {self.batch}, but its query is at "
            f"batch {batch_id}: its checkpoint was deleted or replaced, or another query uses "
            "the same stream name. Use a new stream name, or reset() the stream to start over "
            "(its stored windows stay)"
        )

    def to_bytes(self) -> bytes:
        return json.dumps(
            {"batch": self.batch, "before": self.before.to_dict(), "after": self.after.to_dict()}
        ).encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> Clock:
        fields = json.loads(data)
        return cls(
            int(fields["batch"]),
            Progress.from_dict(fields["before"]),
            Progress.from_dict(fields["after"]),
        )
