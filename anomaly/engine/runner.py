"""AnalysisRunner: compute many analyzers on a DataFrame in the minimal number of passes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from anomaly.analyzers.base import Analyzer, DataFrameAnalyzer, ScanShareableAnalyzer
from anomaly.analyzers.columns import resolve
from anomaly.analyzers.frequency import FrequencyAnalyzer
from anomaly.analyzers.slot import SlotAnalyzer
from anomaly.analyzers.state import State
from anomaly.engine.context import AnalyzerContext
from anomaly.engine.differential.merge import keyed_states, merged_with
from anomaly.engine.differential.partition_states import PartitionStates, partitions_to_merge
from anomaly.engine.shared_scan import (
    FrequencySet,
    Outcome,
    frequency_metrics,
    frequency_states,
    shared_scan,
)
from anomaly.engine.stacked_scan import stacked_scan
from anomaly.errors import AnalysisError, ConfigurationError, spark_error_message
from anomaly.metrics import GroupKey, Metric, group_labels

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


class AnalysisRunner:
    """Builder for one analysis run (Deequ's ``AnalysisRunner``).

    Examples
    --------
    >>> from anomaly.analyzers import Completeness, Mean, Size
    >>> runner = AnalysisRunner().add_analyzers([Size(), Mean("x"), Size()]).group_by("country")
    >>> [a.metric_id for a in runner.analyzers], runner.groups
    (['Size(*)', 'Mean(x)'], ('country',))
    """

    def __init__(self, spark: SparkSession | None = None) -> None:
        self.spark = spark
        self.data: DataFrame | None = None
        self.analyzers: list[Analyzer[Any]] = []
        self.groups: tuple[str, ...] = ()
        self.states_kept = False
        self.state_target: tuple[PartitionStates, str, bool] | None = None
        self.state_sources: tuple[PartitionStates, Sequence[str] | None] | None = None

    def on_data(self, df: DataFrame) -> AnalysisRunner:
        """The data to analyze."""
        self.data = df
        return self

    def add_analyzer(self, analyzer: Analyzer[Any]) -> AnalysisRunner:
        """Add one analyzer; duplicates are computed once."""
        return self.add_analyzers([analyzer])

    def add_analyzers(self, analyzers: Iterable[Analyzer[Any]]) -> AnalysisRunner:
        """Add analyzers; duplicates are computed once."""
        for analyzer in analyzers:
            if not isinstance(analyzer, Analyzer):
                raise ConfigurationError(f"expected an analyzer, got {analyzer!r}")
            if analyzer not in self.analyzers:
                self.analyzers.append(analyzer)
        return self

    def group_by(self, *columns: str) -> AnalysisRunner:
        """Compute every metric per value of these columns (one series per group).

        A name is a top-level column, whatever its characters, else a nested field path (``a.b``).
        """
        self.groups = tuple(columns)
        return self

    def keep_states(self, keep: bool = True) -> AnalysisRunner:
        """Also return every analyzer's state (frequency tables are then collected as Arrow)."""
        self.states_kept = keep
        return self

    def save_states_with(
        self, store: PartitionStates, partition: str, replace: bool = False
    ) -> AnalysisRunner:
        """Store this run's states as `partition` of the store's dataset (ICDE 2019 paper, §II).

        Refused when the partition already has states, unless `replace` (partitions must be
        disjoint, or rows would count twice).
        """
        self.state_target = (store, partition, replace)
        return self

    def aggregate_with(
        self, store: PartitionStates, partitions: Sequence[str] | None = None
    ) -> AnalysisRunner:
        """Report metrics of this data merged with stored `partitions` (default: all others).

        The result's metrics cover the whole; ``context.delta`` has the new data's alone.
        """
        self.state_sources = (store, partitions)
        return self

    def run(self) -> AnalyzerContext:
        """Compute all metrics (merged with stored states when `aggregate_with` was used)."""
        differential = self.state_target is not None or self.state_sources is not None
        # Settled before any Spark job: an overlap is refused, a replaced partition not merged.
        sources = partitions_to_merge(self.state_sources, self.state_target)
        kept = self.states_kept
        self.states_kept = kept or differential
        try:
            context = self._run_on_data()
        finally:
            self.states_kept = kept
        if not differential:
            return context
        result = context
        if self.state_sources is not None and sources is not None:
            result = merged_with(context, self.analyzers, self.state_sources[0].read(sources))
        if self.state_target is not None:
            store, partition, overwrite = self.state_target
            store.write(partition, keyed_states(context), replace=overwrite)
        return result

    def _run_on_data(self) -> AnalyzerContext:
        # One shared scan, one pass per frequency set, then the analyzers with their own work.
        if self.data is None:
            raise AnalysisError("no data: call on_data(df) before run()")
        df = self.data
        schema = df.schema
        missing = [g for g in self.groups if resolve(schema, g) is None]
        if missing:
            raise AnalysisError(
                f"group_by columns {missing} do not exist; available columns: {schema.names}"
            )
        failures = self._preconditions(df)
        runnable = [a for a in self.analyzers if a not in failures]
        slotted = _stacked(runnable)
        stacked = set(slotted)
        shareable = [
            a for a in runnable if isinstance(a, ScanShareableAnalyzer) and a not in stacked
        ]
        outcome: Outcome = shared_scan(df, shareable, self.groups)
        outcome.update(stacked_scan(df, slotted, self.groups))
        sets: dict[FrequencySet, list[FrequencyAnalyzer]] = {}
        for analyzer in runnable:
            if isinstance(analyzer, FrequencyAnalyzer):
                sets.setdefault(FrequencySet.of(analyzer), []).append(analyzer)
        compute = frequency_states if self.states_kept else frequency_metrics
        for fset, members in sets.items():
            outcome.update(compute(df, fset, members, self.groups))
        for analyzer in runnable:
            if isinstance(analyzer, DataFrameAnalyzer):
                states = analyzer.compute_states(df, self.groups)
                outcome.update({(analyzer, key): state for key, state in states.items()})
        return self._context(outcome, failures)

    def _preconditions(self, df: DataFrame) -> dict[Analyzer[Any], str]:
        """Analyzer -> why it cannot run, found from the schema before any Spark job."""
        schema = df.schema
        checked: dict[str, str | None] = {}
        failures: dict[Analyzer[Any], str] = {}
        for analyzer in self.analyzers:
            problem = analyzer.check_schema(schema)
            for expression in analyzer.expressions(schema):
                if problem is None:
                    if expression not in checked:
                        checked[expression] = _expression_problem(df, expression)
                    if checked[expression]:
                        problem = f"{analyzer.metric_id}: {checked[expression]}"
            if problem:
                failures[analyzer] = problem
        return failures

    def _context(self, outcome: Outcome, failures: dict[Analyzer[Any], str]) -> AnalyzerContext:
        width = len(self.groups)
        # A failed job reports under () whatever the grouping: () is not a group of its own.
        groups = [g for g in dict.fromkeys(g for _, g in outcome) if len(g) == width]
        if not self.groups:
            groups = [()]
        metrics: dict[tuple[Analyzer[Any], GroupKey], Metric] = {}
        states: dict[tuple[Analyzer[Any], GroupKey], State] = {}
        for analyzer in self.analyzers:
            if not groups:
                # A grouped run over no rows has no group to report values for, but a failure
                # (missing column, invalid SQL, failed job) must not vanish: report it under ().
                problem = failures.get(analyzer)
                result = outcome.get((analyzer, ()))
                if problem is not None:
                    metrics[(analyzer, ())] = analyzer.failure(problem)
                elif isinstance(result, str):
                    metrics[(analyzer, ())] = _metric(analyzer, result, {})
                continue
            for group in groups:
                labels = group_labels(self.groups, group) if self.groups else {}
                if analyzer in failures:
                    metrics[(analyzer, group)] = analyzer.failure(failures[analyzer], labels)
                    continue
                result = outcome.get((analyzer, group))
                if result is None:
                    # A failed job is reported once under (); otherwise the group had no rows.
                    fallback = outcome.get((analyzer, ()))
                    result = fallback if isinstance(fallback, str) else analyzer.empty_state()
                metrics[(analyzer, group)] = _metric(analyzer, result, labels)
                if isinstance(result, State):
                    states[(analyzer, group)] = result
        return AnalyzerContext(metrics, self.groups, states if self.states_kept else {})


def _stacked(analyzers: Sequence[Analyzer[Any]]) -> list[SlotAnalyzer[Any]]:
    """The slot analyzers for the stacked scan: none unless one of them can only run there,
    else every one (the scan-shareable ones join it rather than start a pass of their own)."""
    slotted = [a for a in analyzers if isinstance(a, SlotAnalyzer)]
    return slotted if any(a.slot_only for a in slotted) else []


def _metric(analyzer: Analyzer[Any], result: Any, labels: dict[str, str | None]) -> Metric:
    if isinstance(result, State):
        return analyzer.metric(result, labels)
    if isinstance(result, str):
        return analyzer.failure(f"{analyzer.metric_id}: {result}", labels)
    return Metric(
        analyzer.entity,
        analyzer.instance,
        analyzer.metric_name,
        analyzer.metric_id,
        result,
        None,
        labels,
    )


def _expression_problem(df: DataFrame, expression: str) -> str | None:
    try:
        _ = df.selectExpr(expression).schema  # analysis only: no Spark job
    except Exception as error:
        return f"invalid expression {expression!r}: {spark_error_message(error)}"
    return None


def run_analyzers(
    df: DataFrame, analyzers: Sequence[Analyzer[Any]], group_by: Sequence[str] = ()
) -> AnalyzerContext:
    """Shortcut for ``AnalysisRunner().on_data(df).add_analyzers(...).group_by(...).run()``."""
    return AnalysisRunner().on_data(df).add_analyzers(analyzers).group_by(*group_by).run()
