"""Accuracy: the fraction of source rows that some target row matches under a rule.

The rule language is the Apache Griffin measure DSL.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.accuracy.errors import RuleError
from anomaly.accuracy.lexer import normalize
from anomaly.accuracy.parser import parse_rule
from anomaly.accuracy.plan import RulePlan, plan_rule
from anomaly.accuracy.state import AccuracyState
from anomaly.analyzers.base import DataFrameAnalyzer
from anomaly.errors import ConfigurationError
from anomaly.metrics import Metric
from repository.records import MetricRecord

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass(frozen=True)
class AccuracyMetric(Metric):
    """An Accuracy value (matched / total) with its counts and a sample of unmatched source keys.

    It flattens into three records: the accuracy under the analyzer's own metric id (the series
    ``has_no_anomalies`` and scans judge), and ``<id>[matched]`` and ``<id>[total]``, stored as
    context but not judged (a drop in accuracy would otherwise alert twice). The sample stays
    here, on the result, and is not stored.

    Examples
    --------
    >>> m = AccuracyMetric("Dataset", "t", "Accuracy", "Accuracy(t: r)", 0.75, matched=3, total=4)
    >>> [(r.metric_id, r.value) for r in m.records()]
    [('Accuracy(t: r)', 0.75), ('Accuracy(t: r)[matched]', 3.0), ('Accuracy(t: r)[total]', 4.0)]
    """

    matched: int = 0
    total: int = 0
    unmatched: tuple[Mapping[str, Any], ...] = ()

    def records(self) -> Iterator[MetricRecord]:
        yield from super().records()
        group = dict(self.group)
        for key, count in (("matched", self.matched), ("total", self.total)):
            yield MetricRecord(
                entity=self.entity,
                instance=self.instance,
                name=f"{self.name}.{key}",
                metric_id=f"{self.metric_id}[{key}]",
                value=float(count),
                group=group,
            )

    def judged_records(self) -> Iterator[MetricRecord]:
        return super().records()


@dataclass(frozen=True)
class Accuracy(DataFrameAnalyzer[AccuracyState]):
    """Matched source rows / source rows: a row of the run's data (the source of truth) matches
    when at least one row of `target` satisfies `rule` with it.

    Parameters
    ----------
    target
        The data under comparison, as Spark resolves it with ``spark.table``: a catalog table, a
        temporary view (``df.createOrReplaceTempView("orders_copy")``) or a file source such as
        ``parquet.`/data/orders```. It names the metric, so keep it stable.
    rule
        The rule in the Apache Griffin measure DSL (see docs/accuracy.md), e.g.
        ``$source.id = $target.id AND $source.amount = $target.amount``. It needs at least one
        ``$source... = $target...`` equality among its AND-connected conditions: the join index.
        Whitespace is normalised, so reformatting the rule keeps the metric id.
    where
        Optional Spark SQL filter on the source rows.
    index
        Optional names of the equalities to report unmatched keys by (``"uid, timestamp"`` or a
        list; ``uid`` names ``$source.uid = $target.uid``); by default every top-level equality.
    sample_size
        How many unmatched source keys to keep (smallest hash first, so stable across runs).

    Syntax errors and rules without an equality raise `RuleError` here; unknown fields and type
    mismatches are found against the schemas before the Spark job and fail the metric.

    Examples
    --------
    >>> a = Accuracy("orders_copy", "$source.id = $target.id AND\\n  $source.n >= $target.n")
    >>> a.metric_id
    'Accuracy(orders_copy: $source.id = $target.id AND $source.n >= $target.n)'
    >>> a.metric(AccuracyState(matched=3, total=4)).value
    0.75
    """

    target: str
    rule: str
    where: str | None = None
    index: str | tuple[str, ...] = ()
    sample_size: int = 20
    metric_name: ClassVar[str] = "Accuracy"
    plan: RulePlan = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.target, str) or not self.target.strip():
            raise ConfigurationError(f"target must be a table or view name, got {self.target!r}")
        if type(self.sample_size) is not int or self.sample_size < 0:
            raise ConfigurationError(
                f"sample_size must be an integer >= 0, got {self.sample_size!r}"
            )
        parse_rule(self.rule)  # syntax errors point into the rule as the user wrote it
        rule = normalize(self.rule)
        names = self.index.split(",") if isinstance(self.index, str) else self.index
        index = tuple(name.strip() for name in names if name.strip())
        object.__setattr__(self, "rule", rule)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "plan", plan_rule(parse_rule(rule), index))

    @property
    def columns(self) -> tuple[str, ...]:
        return ()

    @property
    def instance(self) -> str:
        return self.target

    def id_arguments(self) -> list[str]:
        return [f"{self.target}: {self.rule}"]

    @property
    def key_names(self) -> tuple[str, ...]:
        """The source side of each index equality, as unmatched keys are labelled."""
        return tuple(str(key.source) for key in self.plan.keys)

    def query(self, source: DataFrame, groups: Sequence[str] = ()) -> DataFrame:
        """The Spark query (not yet run) computing the counts on `source` vs the target.

        Raises `RuleError` when the rule does not fit the schemas (no Spark job runs).
        """
        from anomaly.accuracy.job import build_query

        target = self.target_frame(source)
        return build_query(source, target, self.plan, groups, self.where, self.sample_size)

    def target_frame(self, source: DataFrame) -> DataFrame:
        """The target, resolved on the session of `source` (analysed, not read)."""
        target = source.sparkSession.table(self.target)
        _ = target.schema  # Spark Connect resolves lazily
        return target

    def compute_states(
        self, df: DataFrame, groups: Sequence[str]
    ) -> dict[tuple[Any, ...], AccuracyState | str]:
        from anomaly.accuracy.job import build_query, collect_states
        from anomaly.errors import job_error_message, spark_error_message

        try:
            target = self.target_frame(df)
        except Exception as error:
            return {(): f"target {self.target!r} cannot be read: {spark_error_message(error)}"}
        try:
            query = build_query(df, target, self.plan, groups, self.where, self.sample_size)
            _ = query.schema  # analysis only, no job
        except RuleError as error:
            return {(): error.one_line()}
        except Exception as error:
            return {(): spark_error_message(error)}
        try:
            return dict(collect_states(query, len(groups), self.sample_size))
        except Exception as error:  # a runtime failure of the job
            return {(): job_error_message(error)}

    def empty_state(self) -> AccuracyState:
        return AccuracyState.identity()

    def compute_metric(self, state: AccuracyState) -> float:
        if state.total == 0:
            raise self.nothing_to_measure("source rows")
        return state.matched / state.total

    def metric(self, state: AccuracyState, group: Mapping[str, str | None] | None = None) -> Metric:
        base = super().metric(state, group)
        if not base.succeeded:
            return base
        unique: dict[str, tuple[Any, ...]] = {}
        for _, values in state.sample:  # the sample counts rows: show each key once
            unique.setdefault(repr(values), values)
        return AccuracyMetric(
            entity=base.entity,
            instance=base.instance,
            name=base.name,
            metric_id=base.metric_id,
            value=base.value,
            group=base.group,
            matched=state.matched,
            total=state.total,
            unmatched=tuple(dict(zip(self.key_names, v, strict=True)) for v in unique.values()),
        )
