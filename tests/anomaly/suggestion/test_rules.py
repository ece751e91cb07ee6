"""Each rule of seed §3.3 on a column shaped to trigger it and one shaped not to."""

from __future__ import annotations

import ast

import pytest

from anomaly.analyzers import Completeness, Compliance, Uniqueness
from anomaly.suggestion import (
    CategoricalRange,
    ColumnNameModel,
    ColumnProfile,
    CompleteIfComplete,
    ConsistentType,
    FractionRange,
    NonNegative,
    RetainCompleteness,
    Rule,
    UniqueIfApproximatelyUnique,
    default_rules,
)
from anomaly.suggestion.rules import wilson_interval

MODEL = ColumnNameModel.default()
UNIQUE = UniqueIfApproximatelyUnique(MODEL, "users")

CASES: list[tuple[Rule, str, str | None]] = [
    (CompleteIfComplete(), "complete_text", 'is_complete("complete_text")'),
    (CompleteIfComplete(), "partial", None),
    (RetainCompleteness(), "partial", 'has_completeness("partial", lambda c: c >= 0.65)'),
    (RetainCompleteness(), "complete_text", None),
    (ConsistentType(), "signed", 'has_consistent_type("signed")'),
    (ConsistentType(), "ratio", 'has_consistent_type("ratio")'),
    (ConsistentType(), "mixed", None),
    (ConsistentType(), "count", None),  # typed: the schema already enforces it
    (UNIQUE, "id", 'is_unique("id")'),
    (UNIQUE, "dup", None),
    (NonNegative(), "id", 'is_non_negative("id")'),
    (NonNegative(), "count", 'is_non_negative("count")'),
    (NonNegative(), "signed", None),
    (NonNegative(), "complete_text", None),
    (FractionRange(), "ratio", 'has_max("ratio", lambda v: v <= 1.0)'),
    (FractionRange(), "price", None),
    (CategoricalRange(), "category", 'is_contained_in("category", ["black", "blue", "green",'),
    (CategoricalRange(), "count", "is_contained_in"),  # typed int: values as ints
    (CategoricalRange(), "many_rare", None),  # 60 of its 61 values seen once
    (CategoricalRange(), "id", None),  # too many values for a histogram
    (CategoricalRange(), "ratio", None),  # fractional values are not categories
]  # fmt: skip


@pytest.mark.parametrize(("rule", "column", "expected"), CASES, ids=lambda v: str(v)[:24])
def test_rule_triggers_on_its_shape_only(
    profiles: dict[str, ColumnProfile], rule: Rule, column: str, expected: str | None
) -> None:
    suggestion = rule.suggest(profiles[column])
    if expected is None:
        assert suggestion is None
        return
    assert suggestion is not None and suggestion.accepted
    assert suggestion.call.startswith(expected) and suggestion.column == column
    assert suggestion.rationale
    assert suggestion.code == f'Check(CheckLevel.ERROR, "suggested").{suggestion.call}'


def test_categorical_values_keep_the_column_type(profiles: dict[str, ColumnProfile]) -> None:
    suggestion = CategoricalRange().suggest(profiles["count"])
    assert suggestion is not None
    prefix = 'is_contained_in("count", '
    assert suggestion.call.startswith(prefix)
    assert sorted(ast.literal_eval(suggestion.call[len(prefix) : -1])) == list(range(9))
    flag = CategoricalRange().suggest(profiles["flag"])
    assert flag is not None and flag.call == 'is_contained_in("flag", [True, False])'


def test_name_model_vetoes_a_count_that_looks_unique(profiles: dict[str, ColumnProfile]) -> None:
    vetoed = UNIQUE.suggest(profiles["statuses_count"])
    assert vetoed is not None and not vetoed.accepted
    assert vetoed.score is not None and vetoed.score < 0.5
    assert "column-name model" in vetoed.rationale
    without_model = UniqueIfApproximatelyUnique().suggest(profiles["statuses_count"])
    assert without_model is not None and without_model.accepted and without_model.score is None
    kept = UNIQUE.suggest(profiles["id"])
    assert kept is not None and kept.score is not None and kept.score > 0.5


def test_each_suggestion_names_the_metric_it_checks(profiles: dict[str, ColumnProfile]) -> None:
    made = [s for p in profiles.values() for r in default_rules("t", MODEL) if (s := r.suggest(p))]
    kinds = {s.constraint: type(s.analyzer) for s in made}
    assert kinds == {
        "is_complete": Completeness,
        "has_completeness": Completeness,
        "has_consistent_type": Compliance,
        "is_unique": Uniqueness,
        "is_non_negative": Compliance,
        "has_max": Compliance,
        "is_contained_in": Compliance,
    }
    bound = next(s.bound for s in made if s.constraint == "has_completeness")
    assert bound == 0.65


def test_completeness_bound_is_the_rounded_down_wilson_lower_end() -> None:
    low, high = wilson_interval(0.7, 400, 1.96)
    assert 0.65 < low < 0.7 < high < 0.75
    almost_empty = ColumnProfile("x", "string", "String", rows=1000, non_null=2, approx_distinct=2)
    assert RetainCompleteness().suggest(almost_empty) is None  # the bound would round to 0
    rare = ColumnProfile("x", "string", "String", rows=10_000, non_null=281, approx_distinct=9)
    suggestion = RetainCompleteness().suggest(rare)
    assert suggestion is not None and suggestion.bound == 0.02


def test_unique_rule_tolerates_the_sketch_error_only() -> None:
    def profile(distinct: float, non_null: int = 10_000) -> ColumnProfile:
        return ColumnProfile("id", "int", "Integral", 10_000, non_null, distinct)

    assert UniqueIfApproximatelyUnique().suggest(profile(10_400)) is not None  # +4%: within 3 se
    assert UniqueIfApproximatelyUnique().suggest(profile(9_400)) is None  # -6%: beyond
    assert UniqueIfApproximatelyUnique().suggest(profile(10_000, non_null=9_999)) is None
