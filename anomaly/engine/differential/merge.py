"""Metrics from stored states alone: merge per analyzer and group, no Spark.

As in Schelter et al., ICDE 2019, §II.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pyarrow as pa

from anomaly.analyzers.base import Analyzer
from anomaly.analyzers.frequency import COUNT, FrequencyState
from anomaly.analyzers.state import State
from anomaly.engine.context import AnalyzerContext
from anomaly.engine.differential.partition_states import StateKey
from anomaly.metrics import GroupKey, Metric, group_labels


def merge_states(states: Sequence[State]) -> State:
    """The merge of `states` (all of one kind). Frequency tables merge in one Arrow group-by."""
    if all(isinstance(s, FrequencyState) for s in states):
        tables = [s.table for s in states if isinstance(s, FrequencyState) and s.table is not None]
        if len(tables) > 2:
            both = pa.concat_tables(tables, promote_options="permissive")
            keys = [c for c in both.column_names if c != COUNT]
            merged = both.group_by(keys, use_threads=False).aggregate([(COUNT, "sum")])
            return FrequencyState(merged.rename_columns([*keys, COUNT]).select([*keys, COUNT]))
    result = states[0]
    for state in states[1:]:
        result = result.merge(state)
    return result


def metrics_from_states(
    analyzers: Iterable[Analyzer[Any]],
    partitions: Mapping[str, Mapping[StateKey, State]],
    group_columns: Sequence[str] = (),
) -> AnalyzerContext:
    """Merge each analyzer's states over `partitions` and compute its metrics per group."""
    analyzers = list(dict.fromkeys(analyzers))
    collected: dict[StateKey, list[State]] = {}
    for states in partitions.values():
        for key, state in states.items():
            if len(key[1]) == len(group_columns):  # states of another grouping are not ours
                collected.setdefault(key, []).append(state)
    groups: list[GroupKey] = list(dict.fromkeys(g for _, g in collected)) or [()]
    metrics: dict[tuple[Analyzer[Any], GroupKey], Metric] = {}
    merged_states: dict[tuple[Analyzer[Any], GroupKey], State] = {}
    names = sorted(partitions)
    for analyzer in analyzers:
        for group in groups:
            labels = group_labels(tuple(group_columns), group) if group_columns else {}
            found = collected.get((analyzer.metric_id, group))
            if found is None and not any(k[0] == analyzer.metric_id for k in collected):
                metrics[(analyzer, group)] = analyzer.failure(
                    f"{analyzer.metric_id}: no stored state in partitions {names}", labels
                )
                continue
            # A group absent from every partition simply had no rows there.
            state = merge_states(found) if found else analyzer.empty_state()
            merged_states[(analyzer, group)] = state
            metrics[(analyzer, group)] = analyzer.metric(state, labels)
    return AnalyzerContext(metrics, tuple(group_columns), merged_states)


def keyed_states(context: AnalyzerContext) -> dict[StateKey, State]:
    """A context's states keyed as a state store keys them: (metric id, group)."""
    return {(a.metric_id, g): s for (a, g), s in context.states.items()}


def merged_with(
    context: AnalyzerContext,
    analyzers: Iterable[Analyzer[Any]],
    stored: Mapping[str, Mapping[StateKey, State]],
) -> AnalyzerContext:
    """The metrics of new data (`context`, computed with its states) merged with `stored`
    partitions; the result's ``delta`` is `context`, the new data's metrics alone."""
    partitions = {**stored, "": keyed_states(context)}
    merged = metrics_from_states(analyzers, partitions, context.group_columns)
    return replace(merged, delta=context)
