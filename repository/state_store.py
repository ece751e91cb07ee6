"""Analyzer states for differential computation, keyed by (dataset, partition, metric id).

A state is opaque bytes plus a ``kind`` (what the producer wrote, e.g. ``frequencies``) and a
``format_version`` (so a reader can refuse or convert old payloads); the analyzer engine owns the
encoding (for frequency tables, Arrow IPC with zstd is a good one).

Where large frequency states live: in the repository (``analyzer_states.payload``, a BLOB in the
DuckDB file, ``bytea`` in PostgreSQL), not in Parquet files beside it. The deciding need is
``replace_partitions``: validate-before-ingest must write all new states of a batch or none, and may
replace many partitions at once. In the repository that is one transaction; with files beside the
database it would take a home-made commit protocol (write temp files, rename, update pointers,
collect orphans after a crash) that also has to follow the repository's cross-process lock. One file
is also one thing to back up, export and lock. The costs: payloads are opaque to SQL; deleted
payloads leave free blocks that DuckDB reuses but does not return to the OS; every payload of a
``load()`` is read into memory; and throughput is below plain files: ``bench/repository.py``
replaces 8 partitions x 16 MiB in 0.45-0.9 s and reads them back in 0.4-0.6 s (2 busy cores), where
writing the same bytes as files takes ~0.16 s. That is fine for states of tens of MiB per partition;
if frequency states reach GiBs, content-addressed files beside the database, referenced from this
table and committed by its transaction, would be the next step.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from repository.backends.base import Backend
from repository.filters import Where
from repository.keys import check_fields


@dataclass(frozen=True)
class AnalyzerState:
    """The serialized state of one analyzer over one partition of a dataset.

    Examples
    --------
    >>> AnalyzerState("2024-05-01", "Mean(price)", "mean", 1, b"\\x00\\x01").kind
    'mean'
    """

    partition: str
    metric_id: str
    kind: str
    format_version: int
    payload: bytes

    def __post_init__(self) -> None:
        check_fields(self, ("partition", "metric_id", "kind"))
        if isinstance(self.format_version, bool) or not isinstance(self.format_version, int):
            raise TypeError(
                f"AnalyzerState.format_version must be an int, got {self.format_version!r}"
            )
        if not isinstance(self.payload, bytes | bytearray | memoryview):
            raise TypeError(
                f"AnalyzerState.payload must be bytes, got {type(self.payload).__name__}"
            )


class StateStore:
    """Analyzer states of a repository (``repo.states``).

    Examples
    --------
    >>> from repository import MetricsRepository
    >>> repo = MetricsRepository(":memory:")
    >>> repo.states.replace_partitions("orders", [AnalyzerState("p1", "Size(*)", "count", 1, b"7")])
    1
    >>> repo.states.partitions("orders"), repo.states.load("orders")[0].payload
    (['p1'], b'7')
    >>> repo.close()
    """

    def __init__(self, connector: Backend) -> None:
        self._connector = connector

    def replace_partitions(
        self,
        dataset: str,
        states: Iterable[AnalyzerState],
        partitions: Iterable[str] | None = None,
    ) -> int:
        """Atomically make ``states`` the only states of their partitions; returns states written.

        Every state of each replaced partition is deleted and the new ones written in one
        transaction: after a failure or a crash, the old states are all still there.
        ``partitions`` (default: the partitions of ``states``) may name partitions to empty.
        """
        new = list(states)
        for state in new:
            if not isinstance(state, AnalyzerState):
                raise TypeError(f"states must be AnalyzerState, got {type(state).__name__}")
        targets = sorted({s.partition for s in new} if partitions is None else set(partitions))
        seen: set[tuple[str, str]] = set()
        for state in new:
            if state.partition not in targets:
                raise ValueError(
                    f"state of partition {state.partition!r} is not among the "
                    f"partitions to replace {targets}"
                )
            if (state.partition, state.metric_id) in seen:
                raise ValueError(
                    f"two states for partition {state.partition!r} and metric "
                    f"{state.metric_id!r}; each may appear once"
                )
            seen.add((state.partition, state.metric_id))
        with self._connector.transaction() as cur:
            cur.execute(
                "DELETE FROM analyzer_states WHERE dataset = ? AND partition IN "
                "(SELECT unnest(?::VARCHAR[]))",
                [dataset, targets],
            )
            # One statement per state: payloads are large and few, and travel as parameters
            # straight into the table (staging them first would copy every byte twice).
            for state in new:
                cur.execute(
                    "INSERT INTO analyzer_states (dataset, partition, metric_id, kind, "
                    "format_version, payload) VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        dataset,
                        state.partition,
                        state.metric_id,
                        state.kind,
                        state.format_version,
                        bytes(state.payload),
                    ],
                )
        return len(new)

    def load(
        self,
        dataset: str,
        partitions: Sequence[str] | None = None,
        metrics: Sequence[str] | None = None,
    ) -> list[AnalyzerState]:
        """States of a dataset, optionally only some partitions and metric ids."""
        where = (
            Where(self._connector.dialect)
            .add("dataset = ?", dataset)
            .within("partition", partitions)
            .within("metric_id", metrics)
        )
        with self._connector.cursor() as cur:
            rows = cur.arrow(
                "SELECT partition, metric_id, kind, format_version, payload FROM analyzer_states "
                f"WHERE {where.sql} ORDER BY partition, metric_id",
                where.params,
            ).to_pylist()
        return [AnalyzerState(**row) for row in rows]

    def partitions(self, dataset: str) -> list[str]:
        """The partitions of a dataset that have states, sorted."""
        with self._connector.cursor() as cur:
            rows = cur.execute(
                "SELECT DISTINCT partition FROM analyzer_states WHERE dataset = ? "
                "ORDER BY partition",
                [dataset],
            ).fetchall()
        return [partition for (partition,) in rows]

    def datasets(self) -> list[str]:
        """The datasets that have states, sorted."""
        with self._connector.cursor() as cur:
            rows = cur.execute(
                "SELECT DISTINCT dataset FROM analyzer_states ORDER BY dataset"
            ).fetchall()
        return [dataset for (dataset,) in rows]

    def delete_partitions(self, dataset: str, partitions: Iterable[str]) -> int:
        """Delete every state of these partitions; returns the number of states deleted."""
        with self._connector.transaction() as cur:
            return cur.changed(
                "DELETE FROM analyzer_states WHERE dataset = ? AND partition IN "
                "(SELECT unnest(?::VARCHAR[]))",
                [dataset, list(partitions)],
            )
