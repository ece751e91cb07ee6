"""PartitionStates: one dataset's analyzer states per partition, in the repository's state store.

The differential model of Schelter et al., ICDE 2019 (§II) needs disjoint partitions: each row
of the dataset belongs to exactly one stored partition. Names are the user's (``2024-05-01``,
``day=..,region=EU``); writing a partition that already has states is refused unless it is an
explicit replacement.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from anomaly.analyzers.state import FORMAT_VERSION, State, state_from_bytes
from anomaly.errors import StateError
from anomaly.metrics import GroupKey

if TYPE_CHECKING:
    from anomaly.engine.context import AnalyzerContext
    from repository import MetricsRepository

StateKey = tuple[str, GroupKey]
"""(metric id, group key) identifies one state within a partition."""


def storage_id(metric_id: str, group: GroupKey) -> str:
    """The state store's metric id: the analyzer's, plus the group for grouped runs."""
    return metric_id if not group else f"{metric_id} @group {json.dumps(list(group), default=str)}"


def parse_storage_id(text: str) -> StateKey:
    """Inverse of `storage_id`."""
    metric_id, marker, group = text.partition(" @group ")
    return (metric_id, tuple(json.loads(group)) if marker else ())


class PartitionStates:
    """States of `dataset` by partition, stored in `repository` (a `MetricsRepository`).

    Examples
    --------
    >>> from repository import MetricsRepository
    >>> from anomaly.analyzers.state import CountState
    >>> store = PartitionStates(MetricsRepository(":memory:"), "orders")
    >>> store.write("2024-05-01", {("Size(*)", ()): CountState(7)})
    >>> store.partitions(), store.read(["2024-05-01"])
    (['2024-05-01'], {'2024-05-01': {('Size(*)', ()): CountState(rows=7)}})
    """

    def __init__(self, repository: MetricsRepository, dataset: str) -> None:
        if not dataset:
            raise ValueError("dataset must be a non-empty name")
        self.repository = repository
        self.dataset = dataset

    def partitions(self) -> list[str]:
        """Partitions that have stored states, sorted."""
        return self.repository.states.partitions(self.dataset)

    def write(
        self, partition: str, states: Mapping[StateKey, State], replace: bool = False
    ) -> None:
        """Store the states of one partition, atomically.

        Raises `StateError` when the partition already has states and `replace` is false: two
        writes of one partition would count its rows twice (partitions must be disjoint).
        """
        self.write_many({partition: states}, replace=replace)

    def write_many(
        self, partitions: Mapping[str, Mapping[StateKey, State]], replace: bool = False
    ) -> None:
        """Store several partitions in one transaction (all or nothing)."""
        from repository import AnalyzerState

        existing = sorted(set(partitions) & set(self.partitions()))
        if existing and not replace:
            raise StateError(
                f"partitions {existing} of dataset {self.dataset!r} already have states; "
                "partitions must be disjoint: pass replace=True to replace them"
            )
        for name in existing:
            # A replacement that drops metrics would leave the partition out of their merges.
            stored = {r.metric_id for r in self.repository.states.load(self.dataset, [name])}
            missing = sorted(stored - {storage_id(*key) for key in partitions[name]})
            if missing:
                raise StateError(
                    f"replacing partition {name!r} would drop the states of {missing}; compute "
                    "them too (e.g. VerificationSuite.add_required_analyzers) or delete the "
                    "partition first"
                )
        rows = [
            AnalyzerState(name, storage_id(*key), state.kind, FORMAT_VERSION, state.to_bytes())
            for name, states in partitions.items()
            for key, state in states.items()
        ]
        self.repository.states.replace_partitions(self.dataset, rows, partitions=list(partitions))

    def write_grouped(self, context: AnalyzerContext, replace: bool = False) -> list[str]:
        """Store a run grouped by the partition columns as one partition per group, atomically.

        Partition names join the group values with ``/`` (``2024-05-01/EU``); one Spark pass
        computes the states of every partition. Returns the partition names.
        """
        if not context.group_columns or not context.states:
            raise StateError(
                "write_grouped needs a run grouped by the partition columns with keep_states()"
            )
        partitions: dict[str, dict[StateKey, State]] = {}
        for (analyzer, group), state in context.states.items():
            name = "/".join("null" if v is None else str(v) for v in group)
            partitions.setdefault(name, {})[(analyzer.metric_id, ())] = state
        self.write_many(partitions, replace=replace)
        return sorted(partitions)

    def read(
        self, partitions: Sequence[str] | None = None, metric_ids: Iterable[str] | None = None
    ) -> dict[str, dict[StateKey, State]]:
        """Partition -> its states (optionally only some metric ids); no Spark involved."""
        chosen = None if partitions is None else check_disjoint(partitions)
        if chosen is not None:
            missing = sorted(set(chosen) - set(self.partitions()))
            if missing:
                raise StateError(
                    f"no stored states for partitions {missing} of dataset {self.dataset!r}; "
                    f"stored: {self.partitions()}"
                )
        wanted = None if metric_ids is None else set(metric_ids)
        result: dict[str, dict[StateKey, State]] = {p: {} for p in chosen or []}
        for row in self.repository.states.load(self.dataset, chosen):
            key = parse_storage_id(row.metric_id)
            if wanted is not None and key[0] not in wanted:
                continue
            if row.format_version != FORMAT_VERSION:
                raise StateError(
                    f"state {row.metric_id!r} of partition {row.partition!r} was written with "
                    f"state format {row.format_version}; this version reads {FORMAT_VERSION}: "
                    "recompute the partition"
                )
            result.setdefault(row.partition, {})[key] = state_from_bytes(bytes(row.payload))
        return result

    def delete(self, partitions: Iterable[str]) -> int:
        """Forget the states of these partitions; returns how many states were deleted."""
        return self.repository.states.delete_partitions(self.dataset, partitions)


def check_disjoint(partitions: Sequence[str]) -> list[str]:
    """The partitions as a list, refusing a partition named twice (it would count twice)."""
    twice = sorted(p for p, n in Counter(partitions).items() if n > 1)
    if twice:
        raise StateError(
            f"partitions {twice} are named more than once; partitions must be disjoint"
        )
    return list(partitions)


def partitions_to_merge(
    sources: tuple[PartitionStates, Sequence[str] | None] | None,
    target: tuple[PartitionStates, str, bool] | None,
) -> list[str] | None:
    """The stored partitions of `sources` (store, chosen: default all) that a run's new data is
    merged with (None: no merge), given the `target` (store, partition, replace) it stores
    that data as. Settled before any Spark job: a `target` that has states is refused unless
    `replace`, and a replaced partition is never merged, even when chosen (its stored states
    and the new data that replaces them would both count).
    """
    written = None
    if target is not None:
        store, written, replace = target
        if not replace and written in store.partitions():
            raise StateError(
                f"partitions {[written]} of dataset {store.dataset!r} already have states; "
                "partitions must be disjoint: pass replace=True to replace them (a replaced "
                "partition is left out of the merge)"
            )
    if sources is None:
        return None
    store, chosen = sources
    names = store.partitions() if chosen is None else check_disjoint(chosen)
    if target is None or not _same(store, target[0]):
        return names
    return [p for p in names if p != written]


def _same(a: PartitionStates, b: PartitionStates) -> bool:
    return a is b or (a.repository is b.repository and a.dataset == b.dataset)
