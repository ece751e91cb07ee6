"""A stream's stored state, in the repository's state store (dataset ``stream:<name>``).

Partitions of the dataset:

* ``clock``: the `Clock` (watermark input, late and untimed row counts);
* ``w/<window start>/b/<batch id>``: the analyzer states (and failures) one micro-batch added
  to one window. Keyed by window and batch, so a replayed batch replaces its own states and a
  window's value is the merge of its partitions, each batch counted once;
* ``w/<window start>/u/<batch id>``: the merge of a window's partitions of batches before that
  one (written when a window has many partitions, so closing it reads few);
* ``c/<window start>``: the marker of a closed window (its states are deleted) with the rows
  that arrived after it closed.

Everything one micro-batch writes is one transaction (`commit`), and so is closing one window
(`mark_closed`): a crash leaves either all of it or none.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from anomaly.analyzers.state import FORMAT_VERSION, State, state_from_bytes
from anomaly.engine.differential.merge import merge_states
from anomaly.engine.differential.partition_states import StateKey, parse_storage_id, storage_id
from anomaly.streaming.clock import Clock, Progress

if TYPE_CHECKING:
    from repository import AnalyzerState, MetricsRepository

CLOCK = "clock"
FAILURES, MARKER = "__failures__", "__marker__"
COMPACT_AT = 16
"""A window with more stored partitions than this has them merged into one."""


@dataclass(frozen=True)
class WindowDelta:
    """What one micro-batch adds to one window: states by (metric id, group) and failures.

    >>> from anomaly.analyzers import CountState
    >>> WindowDelta({("Size(*)", ()): CountState(3)}).states[("Size(*)", ())].rows
    3
    """

    states: Mapping[StateKey, State]
    failures: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Marker:
    """A closed window: rows that arrived after it closed, counted once per batch.

    ``late_before`` is the count before batch ``late_batch`` (a replay of that batch starts
    from it). ``closed_batch`` is None for a window that had no rows when it closed.

    >>> Marker(3, late=5, late_batch=9, late_before=2).late_base(9)
    2
    """

    closed_batch: int | None
    late: int = 0
    late_batch: int | None = None
    late_before: int = 0

    def late_base(self, batch_id: int) -> int:
        """The late count a batch adds to (the count before it on a replay)."""
        return self.late_before if batch_id == self.late_batch else self.late

    def to_bytes(self) -> bytes:
        return json.dumps(self.__dict__).encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> Marker:
        return cls(**json.loads(data))


class StreamLedger:
    """Stored state of stream `name` in `repository`.

    Examples
    --------
    >>> from repository import MetricsRepository
    >>> from anomaly.analyzers import CountState
    >>> ledger = StreamLedger(MetricsRepository(":memory:"), "clicks")
    >>> base, delta = ledger.begin(0), WindowDelta({("Size(*)", ()): CountState(2)})
    >>> ledger.commit(0, base, base.advanced(7_000), {0: delta})
    >>> ledger.begin(0).max_event, ledger.begin(1).max_event  # replay of 0, next batch
    (None, 7000)
    >>> ledger.open_windows(), ledger.window_states(0).states
    ([0], {('Size(*)', ()): CountState(rows=2)})
    """

    def __init__(self, repository: MetricsRepository, name: str) -> None:
        self.repository = repository
        self.name = name
        self.dataset = f"stream:{name}"

    def clock(self) -> Clock | None:
        """The stored clock (None before the first batch)."""
        rows = self.repository.states.load(self.dataset, [CLOCK])
        return Clock.from_bytes(bytes(rows[0].payload)) if rows else None

    def begin(self, batch_id: int) -> Progress:
        """The progress batch `batch_id` starts from (replay-aware, see `Clock.base`)."""
        clock = self.clock()
        return Progress() if clock is None else clock.base(batch_id, self.name)

    def commit(
        self,
        batch_id: int,
        base: Progress,
        progress: Progress,
        windows: Mapping[int, WindowDelta],
        late: Mapping[int, int] | None = None,
    ) -> None:
        """Store one batch: the clock moved from `base` to `progress`, its states per window,
        and late rows per closed window (added to their markers), in one transaction."""
        stored = self.partitions()
        mine = f"/b/{batch_id}"
        replaced = {p for p in stored if p.startswith("w/") and p.endswith(mine)}
        rows = [self._row(CLOCK, "__clock__", "stream-clock", Clock(batch_id, base, progress))]
        for start, delta in windows.items():
            partition = f"w/{start}{mine}"
            replaced.add(partition)
            rows += self._delta_rows(partition, delta)
        markers = self.markers([start for start, count in (late or {}).items() if count])
        for start, count in (late or {}).items():
            if not count:
                continue
            marker = markers.get(start, Marker(None))
            base_count = marker.late_base(batch_id)
            updated = Marker(marker.closed_batch, base_count + count, batch_id, base_count)
            replaced.add(f"c/{start}")
            rows.append(self._row(f"c/{start}", MARKER, "stream-window", updated))
        for start in windows:
            older = [p for p in self._window_partitions(stored, start) if not p.endswith(mine)]
            if len(older) > COMPACT_AT:
                target = f"w/{start}/u/{batch_id}"
                replaced |= {*older, target}
                rows += self._delta_rows(target, self._merged(older))
        self.repository.states.replace_partitions(
            self.dataset, rows, partitions=sorted({CLOCK, *replaced})
        )

    def partitions(self) -> list[str]:
        """Every stored partition of the stream."""
        return self.repository.states.partitions(self.dataset)

    def open_windows(self) -> list[int]:
        """Starts of the windows that have stored states and are not closed, sorted."""
        stored = self.partitions()
        closed = {int(p[2:]) for p in stored if p.startswith("c/")}
        starts = {int(p.split("/")[1]) for p in stored if p.startswith("w/")}
        return sorted(starts - closed)

    def window_states(self, start: int) -> WindowDelta:
        """A window's states merged over its batches, and its failures."""
        return self._merged(self._window_partitions(self.partitions(), start))

    def markers(self, starts: Iterable[int] | None = None) -> dict[int, Marker]:
        """Markers of closed windows (all, or those of `starts`) by window start."""
        names = None if starts is None else [f"c/{s}" for s in starts]
        if names == []:
            return {}
        if names is None:
            names = [p for p in self.partitions() if p.startswith("c/")]
        rows = self.repository.states.load(self.dataset, names, [MARKER]) if names else []
        return {int(r.partition[2:]): Marker.from_bytes(bytes(r.payload)) for r in rows}

    def mark_closed(self, starts: Iterable[int], batch_id: int) -> None:
        """Record windows as closed and delete their states (one transaction)."""
        stored, starts = self.partitions(), list(starts)
        markers = self.markers(starts)
        targets, rows = [], []
        for start in starts:
            found = markers.get(start) or Marker(batch_id)
            marker = Marker(batch_id, found.late, found.late_batch, found.late_before)
            targets += [*self._window_partitions(stored, start), f"c/{start}"]
            rows.append(self._row(f"c/{start}", MARKER, "stream-window", marker))
        self.repository.states.replace_partitions(self.dataset, rows, partitions=targets)

    def sweep(self, forget_before: int | None) -> int:
        """Delete leftovers: states of closed windows (a replayed batch rewrites the states it
        added to a window it then closed) and markers of windows starting before
        `forget_before`. Returns the number of partitions deleted."""
        stored = self.partitions()
        closed = {int(p[2:]) for p in stored if p.startswith("c/")}
        doomed = [p for p in stored if p.startswith("w/") and int(p.split("/")[1]) in closed]
        if forget_before is not None:
            doomed += [f"c/{s}" for s in closed if s < forget_before]
        if not doomed:
            return 0
        self.repository.states.replace_partitions(self.dataset, [], partitions=doomed)
        return len(doomed)

    def reset(self) -> int:
        """Forget everything of the stream (its stored runs stay); returns partitions deleted."""
        stored = self.partitions()
        self.repository.states.delete_partitions(self.dataset, stored)
        return len(stored)

    # -- encoding -------------------------------------------------------------------------------

    @staticmethod
    def _window_partitions(stored: Iterable[str], start: int) -> list[str]:
        prefix = f"w/{start}/"
        return [p for p in stored if p.startswith(prefix)]

    def _row(
        self, partition: str, metric_id: str, kind: str, value: Clock | Marker
    ) -> AnalyzerState:
        from repository import AnalyzerState

        return AnalyzerState(partition, metric_id, kind, 1, value.to_bytes())

    def _delta_rows(self, partition: str, delta: WindowDelta) -> list[AnalyzerState]:
        from repository import AnalyzerState

        rows = [
            AnalyzerState(partition, storage_id(*key), s.kind, FORMAT_VERSION, s.to_bytes())
            for key, s in delta.states.items()
        ]
        if delta.failures:
            payload = json.dumps(dict(delta.failures), sort_keys=True).encode()
            rows.append(AnalyzerState(partition, FAILURES, "stream-failures", 1, payload))
        return rows

    def _merged(self, partitions: list[str]) -> WindowDelta:
        states: dict[StateKey, list[State]] = {}
        failures: dict[str, str] = {}
        rows = self.repository.states.load(self.dataset, partitions) if partitions else []
        for row in rows:
            if row.metric_id == FAILURES:
                for metric_id, message in json.loads(bytes(row.payload)).items():
                    failures.setdefault(metric_id, message)
            else:
                key = parse_storage_id(row.metric_id)
                states.setdefault(key, []).append(state_from_bytes(bytes(row.payload)))
        return WindowDelta({k: merge_states(v) for k, v in states.items()}, failures)
