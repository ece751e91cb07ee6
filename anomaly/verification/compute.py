"""Computing a suite's metrics: from data (one runner call per grouping), merged with stored
partition states, or from states alone (Schelter et al., ICDE 2019, scenarios 1-3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anomaly.analyzers.base import Analyzer
from anomaly.analyzers.state import State
from anomaly.checks import CheckStatus
from anomaly.engine.context import AnalyzerContext
from anomaly.engine.differential import PartitionStates, metrics_from_states
from anomaly.engine.differential.merge import keyed_states, merged_with
from anomaly.engine.differential.partition_states import StateKey, partitions_to_merge
from anomaly.engine.runner import AnalysisRunner

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

Grouping = tuple[str, ...]


@dataclass
class StatePlan:
    """Which stored states a suite reads (`sources`, `view`) and writes (`target`)."""

    sources: tuple[PartitionStates, Sequence[str] | None] | None = None
    # store, partition, replace, validate-before-ingest
    target: tuple[PartitionStates, str, bool, bool] | None = None
    view: tuple[PartitionStates, Sequence[str] | None] | None = None

    def store_new_states(
        self, contexts: Mapping[Grouping, AnalyzerContext], status: CheckStatus
    ) -> bool | None:
        """Write the data's states to the target partition; returns whether it was written
        (None without a target). Validated writes happen only when no check is at ERROR."""
        if self.target is None:
            return None
        store, partition, overwrite, validate = self.target
        if validate and status is CheckStatus.ERROR:
            return False
        states: dict[StateKey, State] = {}
        for context in contexts.values():
            states.update(keyed_states(context.delta or context))
        store.write(partition, states, replace=overwrite)
        return True


def compute_contexts(
    spark: SparkSession | None,
    data: DataFrame | None,
    needed: Mapping[Grouping, list[Analyzer[Any]]],
    plan: StatePlan,
) -> dict[Grouping, AnalyzerContext]:
    """One context per grouping with the metrics the checks are evaluated on."""
    if plan.view is not None:
        store, partitions = plan.view
        stored = store.read(partitions)
        return {g: metrics_from_states(a, stored, g) for g, a in needed.items()}
    assert data is not None
    differential = plan.sources is not None or plan.target is not None
    # Settled before any Spark job: an overlap is refused, a replaced partition not merged.
    chosen = partitions_to_merge(plan.sources, plan.target[:3] if plan.target else None)
    stored = plan.sources[0].read(chosen) if plan.sources and chosen is not None else {}
    contexts = {}
    for grouping, analyzers in needed.items():
        runner = AnalysisRunner(spark).on_data(data).add_analyzers(analyzers).group_by(*grouping)
        context = runner.keep_states(differential).run()
        if plan.sources is not None:
            context = merged_with(context, analyzers, stored)
        contexts[grouping] = context
    return contexts
