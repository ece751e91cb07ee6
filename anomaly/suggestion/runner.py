"""ConstraintSuggestionRunner: profile a data set, apply the rules, optionally measure coverage."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anomaly.errors import AnalysisError, ConfigurationError
from anomaly.suggestion.evaluation import Coverage, coverage
from anomaly.suggestion.name_model import ColumnNameModel
from anomaly.suggestion.profile import ColumnProfile
from anomaly.suggestion.profiler import LOW_CARDINALITY, profile_columns
from anomaly.suggestion.rules import Rule, default_rules
from anomaly.suggestion.suggestion import Suggestion

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

SPLIT = "_suggestion_split"


@dataclass(frozen=True)
class SuggestionResult:
    """Profiles, accepted and vetoed suggestions, and (when asked for) their coverage."""

    profiles: dict[str, ColumnProfile]
    suggestions: list[Suggestion]
    rejected: list[Suggestion]
    coverage: list[Coverage] | None = None

    @property
    def rows(self) -> int:
        """Rows the suggestions were made from."""
        return next(iter(self.profiles.values())).rows if self.profiles else 0


class ConstraintSuggestionRunner:
    """Builder for one suggestion run (Deequ's ``ConstraintSuggestionRunner``).

    Examples
    --------
    >>> runner = ConstraintSuggestionRunner().table("users").sample(0.1).evaluate_on_rest()
    >>> runner.fraction, runner.evaluate, runner.table_name
    (0.1, True, 'users')
    """

    def __init__(self) -> None:
        self.data: DataFrame | None = None
        self.table_name = ""
        self.columns: list[str] | None = None
        self.fraction = 1.0
        self.seed = 0
        self.evaluate = False
        self.threshold = LOW_CARDINALITY
        self.rules: list[Rule] | None = None

    def on_data(self, df: DataFrame) -> ConstraintSuggestionRunner:
        """The data to suggest constraints for."""
        self.data = df
        return self

    def table(self, name: str) -> ConstraintSuggestionRunner:
        """The table's name, which the column-name model reads with each column's name."""
        self.table_name = name
        return self

    def restrict_to_columns(self, columns: Sequence[str]) -> ConstraintSuggestionRunner:
        """Profile only these columns."""
        self.columns = list(columns)
        return self

    def sample(self, fraction: float, seed: int = 0) -> ConstraintSuggestionRunner:
        """Suggest from a random `fraction` of the rows (cached during profiling)."""
        if not 0.0 < fraction <= 1.0:
            raise ConfigurationError(f"sample fraction must be in (0, 1], got {fraction!r}")
        self.fraction, self.seed = fraction, seed
        return self

    def evaluate_on_rest(self, evaluate: bool = True) -> ConstraintSuggestionRunner:
        """Also measure each suggestion's coverage on the rows left out of the sample."""
        self.evaluate = evaluate
        return self

    def low_cardinality(self, threshold: int) -> ConstraintSuggestionRunner:
        """Columns with at most `threshold` distinct values get a histogram (categorical rule)."""
        self.threshold = threshold
        return self

    def with_rules(self, rules: Sequence[Rule]) -> ConstraintSuggestionRunner:
        """Use these rules instead of `default_rules` (which consult the column-name model)."""
        self.rules = list(rules)
        return self

    def run(self) -> SuggestionResult:
        """Profile (at most three passes over the sample), suggest, and measure if asked."""
        from pyspark.sql import functions as F

        if self.data is None:
            raise AnalysisError("no data: call on_data(df) before run()")
        if self.evaluate and self.fraction >= 1.0:
            raise ConfigurationError("evaluate_on_rest needs sample(fraction) with fraction < 1")
        df, rest = self.data, None
        if self.fraction < 1.0:
            marked = df.withColumn(SPLIT, F.rand(self.seed))
            df = marked.where(F.col(SPLIT) < self.fraction).drop(SPLIT).persist()
            rest = marked.where(F.col(SPLIT) >= self.fraction).drop(SPLIT)
        try:
            profiles = profile_columns(df, self.columns, self.threshold)
        finally:
            if rest is not None:
                df.unpersist()
        rules = self.rules
        if rules is None:
            rules = default_rules(self.table_name, ColumnNameModel.default())
        made = [s for p in profiles.values() for r in rules if (s := r.suggest(p)) is not None]
        measured = coverage(rest, made) if self.evaluate and rest is not None else None
        return SuggestionResult(
            profiles,
            [s for s in made if s.accepted],
            [s for s in made if not s.accepted],
            measured,
        )
