"""Suggest on a 10% sample, measure coverage on the other 90% (seed §5.3), and render."""

from __future__ import annotations

import json

import pytest
from pyspark.sql import DataFrame, SparkSession

from anomaly.errors import AnalysisError, ConfigurationError
from anomaly.suggestion import ConstraintSuggestionRunner, SuggestionResult, as_code, as_table
from anomaly.suggestion.example_data import users_frame
from anomaly.suggestion.render import as_json, render

ROWS = 10_000


@pytest.fixture(scope="module")
def users(spark: SparkSession) -> DataFrame:
    return users_frame(spark, ROWS).cache()


@pytest.fixture(scope="module")
def result(users: DataFrame) -> SuggestionResult:
    runner = ConstraintSuggestionRunner().on_data(users).table("users")
    return runner.sample(0.1, seed=1).evaluate_on_rest().run()


def measured(result: SuggestionResult) -> dict[str, float]:
    """Suggestion call -> coverage on the held-out rows."""
    assert result.coverage is not None
    return {c.suggestion.call: c.coverage for c in result.coverage}


def test_suggestions_come_from_the_sample(result: SuggestionResult) -> None:
    assert 0.08 * ROWS < result.rows < 0.12 * ROWS
    calls = {s.call for s in result.suggestions}
    assert {
        'is_complete("id")',
        'is_unique("id")',
        'has_consistent_type("followers_count")',
    } <= calls
    assert {
        'is_non_negative("statuses_count")',
        'has_max("engagement", lambda v: v <= 1.0)',
    } <= calls
    assert not any(
        s.column == "utc_offset" and s.constraint == "is_non_negative" for s in result.suggestions
    )


def test_coverage_on_the_rest_matches_what_the_data_was_made_of(result: SuggestionResult) -> None:
    coverage = measured(result)
    assert all(c.error is None for c in result.coverage or [])
    assert coverage['is_unique("id")'] == 1.0
    assert all(v == 1.0 for call, v in coverage.items() if call.startswith("is_complete"))
    location = next(
        s for s in result.suggestions if s.call.startswith('has_completeness("location"')
    )
    assert 0.2 < location.bound < 0.28 and coverage[location.call] == 1.0
    categories = [c for call, c in coverage.items() if call.startswith("is_contained_in")]
    assert len(categories) >= 4 and min(categories) > 0.99


def test_the_name_model_vetoes_the_count_that_only_looks_unique(result: SuggestionResult) -> None:
    vetoed = {s.call: s for s in result.rejected}
    statuses = vetoed['is_unique("statuses_count")']
    assert statuses.score is not None and statuses.score < 0.5
    # right to veto: on the other 90% the values repeat
    assert measured(result)['is_unique("statuses_count")'] < 0.95


def test_renderings(result: SuggestionResult) -> None:
    code = as_code(result.suggestions)
    compile(code, "<suggested>", "exec")
    assert '    .is_unique("id")' in code.splitlines()
    table = as_table(result).splitlines()
    assert table[0].split() == ["column", "constraint", "coverage", "rationale"]
    assert len(table) == 2 + len(result.suggestions)
    payload = json.loads(as_json(result))
    assert len(payload["suggestions"]) == len(result.suggestions)
    assert {"code", "rationale", "coverage", "holds", "test_value"} <= set(payload["rejected"][0])
    with pytest.raises(ValueError, match="format must be one of"):
        render(result, "yaml")


def test_runner_errors(users: DataFrame) -> None:
    with pytest.raises(AnalysisError, match="no data"):
        ConstraintSuggestionRunner().run()
    with pytest.raises(ConfigurationError, match=r"sample fraction must be in \(0, 1\], got 1.5"):
        ConstraintSuggestionRunner().sample(1.5)
    with pytest.raises(ConfigurationError, match="evaluate_on_rest needs sample"):
        ConstraintSuggestionRunner().on_data(users).evaluate_on_rest().run()
