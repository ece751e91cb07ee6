"""VerificationSuite: compute every check's metrics in the fewest passes, evaluate, store."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from anomaly.analyzers.base import Analyzer
from anomaly.checks import Check, CheckStatus, ConstraintResult
from anomaly.engine.differential import PartitionStates
from anomaly.errors import AnalysisError
from anomaly.verification.budget import apply_budget
from anomaly.verification.compute import StatePlan, compute_contexts
from anomaly.verification.evaluate import evaluate_check
from anomaly.verification.result import CheckResult, VerificationResult
from anomaly.verification.storage import save_run
from detectors import AlertBudget

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from repository import MetricsRepository, ResultKey


class VerificationSuite:
    """Run checks on a DataFrame (Deequ's ``VerificationSuite``).

    All analyzers of all checks are computed in one runner call per ``group_by`` set (so one
    shared scan plus one pass per frequency set); anomaly checks read stored history; with
    `save_or_append_result` the run's metrics and outcomes are stored under the key.

    Examples
    --------
    >>> from anomaly.checks import CheckLevel
    >>> suite = VerificationSuite().add_check(Check(CheckLevel.ERROR, "ids").is_unique("id"))
    >>> [a.metric_id for a in suite.analyzers_by_grouping()[()]]
    ['Uniqueness(id)']
    """

    def __init__(self, spark: SparkSession | None = None) -> None:
        self.spark = spark
        self.data: DataFrame | None = None
        self.checks: list[Check] = []
        self.repository: MetricsRepository | None = None
        self.result_key: ResultKey | None = None
        self.extra_analyzers: list[Analyzer[Any]] = []
        self.states = StatePlan()
        self.budget: tuple[AlertBudget, float] | None = None

    def on_data(self, df: DataFrame) -> VerificationSuite:
        """The data to verify."""
        self.data = df
        return self

    def add_check(self, check: Check) -> VerificationSuite:
        """Add one check."""
        if not isinstance(check, Check):
            raise TypeError(f"add_check expects a Check, got {check!r}")
        self.checks.append(check)
        return self

    def add_checks(self, checks: Iterable[Check]) -> VerificationSuite:
        """Add several checks."""
        for check in checks:
            self.add_check(check)
        return self

    def add_required_analyzers(self, analyzers: Iterable[Analyzer[Any]]) -> VerificationSuite:
        """Also compute (and store) these metrics, without constraints on them."""
        self.extra_analyzers.extend(analyzers)
        return self

    def with_alert_budget(
        self,
        *,
        false_alerts_per_week: float | None = None,
        fdr: float | None = None,
        checks_per_week: float = 7.0,
    ) -> VerificationSuite:
        """Cap the false alerts of all ``has_no_anomalies`` constraints and groups together:
        at most ``false_alerts_per_week`` (the pipeline runs ``checks_per_week`` times a week,
        daily by default) or a false discovery rate ``fdr``. Anomalies the budget does not
        admit are reported ``held back`` and do not fail their check.
        """
        self.budget = (AlertBudget(false_alerts_per_week, fdr), checks_per_week)
        return self

    def use_repository(self, repository: MetricsRepository) -> VerificationSuite:
        """Where history is read from (anomaly checks) and results are stored."""
        self.repository = repository
        return self

    def save_or_append_result(self, key: ResultKey) -> VerificationSuite:
        """Store this run's metrics and outcomes under `key` (replacing a run with the same key)."""
        self.result_key = key
        return self

    def aggregate_with(
        self, store: PartitionStates, partitions: Sequence[str] | None = None
    ) -> VerificationSuite:
        """Check the data merged with stored partitions (default: all others); checks made with
        ``on="delta"`` see the new data alone (Schelter et al., ICDE 2019, scenario 1)."""
        self.states.sources = (store, partitions)
        return self

    def save_states_with(
        self, store: PartitionStates, partition: str, replace: bool = False
    ) -> VerificationSuite:
        """Store the data's states as `partition` (refused if it exists, unless `replace`)."""
        self.states.target = (store, partition, replace, False)
        return self

    def validate_partition(self, store: PartitionStates, partition: str) -> VerificationSuite:
        """Validate-before-ingest (Schelter et al., ICDE 2019, Fig. 1): check the whole table with
        `partition` replaced by the data, from states; store the new states only if no check is
        at ERROR."""
        self.states.sources = (store, [p for p in store.partitions() if p != partition])
        self.states.target = (store, partition, True, True)
        return self

    def on_states(
        self, store: PartitionStates, partitions: Sequence[str] | None = None
    ) -> VerificationSuite:
        """A view made of stored partitions, from states alone (ICDE 2019 paper, scenario 3)."""
        self.states.view = (store, partitions)
        return self

    def _evaluate(self, check: Check, contexts: dict[tuple[str, ...], Any]) -> CheckResult:
        context = contexts[check.group_by]
        if check.on == "delta":
            context = context.delta or context
        rows: list[ConstraintResult] = evaluate_check(
            check, context, self.repository, self.result_key
        )
        failed = any(row.failed for row in rows)
        status = CheckStatus.of_level(check.level) if failed else CheckStatus.SUCCESS
        return CheckResult(check, status, rows)

    def analyzers_by_grouping(self) -> dict[tuple[str, ...], list[Analyzer[Any]]]:
        """``group_by`` columns -> the analyzers needed for that grouping."""
        needed: dict[tuple[str, ...], list[Analyzer[Any]]] = {}
        if self.extra_analyzers:
            needed[()] = list(dict.fromkeys(self.extra_analyzers))
        for check in self.checks:
            bucket = needed.setdefault(check.group_by, [])
            bucket.extend(a for a in check.analyzers if a not in bucket)
        return needed

    def run(self) -> VerificationResult:
        """Compute, evaluate, store; returns the `VerificationResult`."""
        if self.data is None and self.states.view is None:
            raise AnalysisError("no data: call on_data(df) or on_states(...) before run()")
        if self.result_key is not None and self.repository is None:
            raise AnalysisError("save_or_append_result needs a repository: call use_repository")
        plan = self.states
        contexts = compute_contexts(self.spark, self.data, self.analyzers_by_grouping(), plan)
        with self.repository.session() if self.repository else nullcontext():
            # One open repository for all history reads: per-group reads are many and small.
            check_results = [self._evaluate(check, contexts) for check in self.checks]
        outcome = None
        if self.budget is not None:
            check_results, outcome = apply_budget(check_results, *self.budget)
        status = CheckStatus.worst([r.status for r in check_results])
        ingested = plan.store_new_states(contexts, status)
        result = VerificationResult(
            status, check_results, list(contexts.values()), ingested, outcome
        )
        if self.repository is not None and self.result_key is not None:
            save_run(self.repository, self.result_key, result)
        return result
