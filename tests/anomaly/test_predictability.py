"""Predictability (seed 001 §3.1, §5.1): Naive Bayes on hashed tokens, scored on held-out rows."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from pyspark.sql import DataFrame, SparkSession

from anomaly import AnalysisRunner, Predictability, Size
from anomaly.analyzers.predictability import ConfusionState
from anomaly.analyzers.state import state_from_bytes
from anomaly.engine.context import AnalyzerContext
from anomaly.errors import ConfigurationError

ROWS = 1500
CITIES = {f"city {i}": f"country{i % 5}" for i in range(20)}


@pytest.fixture(scope="module")
def data(spark: SparkSession) -> DataFrame:
    """`country` is a function of `city`; `noise` is independent of everything."""
    rng = np.random.default_rng(11)
    cities = list(CITIES)
    rows = []
    for i in range(ROWS):
        city = cities[int(rng.integers(len(cities)))]
        noise = f"n{int(rng.integers(5))}"
        rows.append((city, f"street {int(rng.integers(300))}", CITIES[city], noise, f"g{i % 2}"))
    frame = spark.createDataFrame(rows, "city string, street string, country string, "
                                  "noise string, g string").cache()  # fmt: skip
    frame.count()
    return frame


FUNCTION = Predictability("country", ["city", "street"])
RANDOM = Predictability("noise", ["city", "street"], measure="precision")


@pytest.fixture(scope="module")
def context(data: DataFrame) -> AnalyzerContext:
    runner = AnalysisRunner().on_data(data).keep_states()
    return runner.add_analyzers([Size(), FUNCTION, RANDOM, Predictability("noise", "nope")]).run()


def test_a_function_of_an_input_is_predictable(context: AnalyzerContext) -> None:
    value = context[FUNCTION].value
    assert value > 0.9
    state = context.states[(FUNCTION, ())]
    held_out = sum(c for _, _, c in state.cells)
    assert 0.1 * ROWS < held_out < 0.3 * ROWS  # scored on the ~20% held out, not the training rows


def test_a_random_target_scores_near_chance(context: AnalyzerContext) -> None:
    value = context[RANDOM].value
    # five balanced classes: a predictor that knows nothing gets about 0.2
    assert 0.1 < value < 0.32


def test_failures_are_values_and_the_run_survives(
    context: AnalyzerContext, data: DataFrame
) -> None:
    missing = context[Predictability("noise", "nope")]
    assert missing.error is not None and "column 'nope' does not exist" in missing.error
    assert context[Size()].value == ROWS
    few = AnalysisRunner().on_data(data.limit(12)).add_analyzer(FUNCTION).run()[FUNCTION]
    assert few.error == (
        "Predictability(country, [city, street]): 12 rows with a non-null 'country'; "
        "Predictability needs at least 20 to train and evaluate a model"
    )
    single = Predictability("country", "city", where="country = 'country1'")
    one = AnalysisRunner().on_data(data).add_analyzer(single).run()[single]
    assert one.error is not None
    assert "has the single value 'country1'" in one.error and "at least two classes" in one.error
    many = Predictability("street", "city", max_classes=10)
    capped = AnalysisRunner().on_data(data).add_analyzer(many).run()[many]
    assert capped.error is not None and "more than max_classes=10 distinct values" in capped.error


def test_grouped_runs_score_one_model_per_group_and_are_deterministic(
    data: DataFrame, context: AnalyzerContext
) -> None:
    grouped = AnalysisRunner().on_data(data).add_analyzer(FUNCTION).group_by("g").run()
    values = {g: m.value for g, m in grouped.for_analyzer(FUNCTION).items()}
    assert set(values) == {("g0",), ("g1",)}
    states = FUNCTION.compute_states(data, ["g"])
    parts = [states[("g0",)], states[("g1",)]]
    assert all(isinstance(p, ConfusionState) for p in parts)
    g0, g1 = (p for p in parts if isinstance(p, ConfusionState))
    # the same seed and data give the same model and so the same values in a second run
    assert values == {("g0",): FUNCTION.metric(g0).value, ("g1",): FUNCTION.metric(g1).value}
    # one model scored per group: the groups' confusion counts add up to the ungrouped run's
    assert g0.merge(g1) == context.states[(FUNCTION, ())]


def test_weighted_measures_match_their_definition() -> None:
    rng = np.random.default_rng(5)
    actual = rng.choice(["a", "b", "c"], 300, p=[0.5, 0.3, 0.2])
    guess = np.where(rng.random(300) < 0.7, actual, rng.choice(["a", "b", "c"], 300))
    state = ConfusionState.of(dict(Counter(zip(actual.tolist(), guess.tolist(), strict=True))))
    expected = {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    for label in "abc":
        tp = np.sum((actual == label) & (guess == label))
        p, r = tp / np.sum(guess == label), tp / np.sum(actual == label)
        weight = np.mean(actual == label)
        expected["precision"] += weight * p
        expected["recall"] += weight * r
        expected["f1"] += weight * 2 * p * r / (p + r)
    assert state.weighted() == pytest.approx(expected)
    assert expected["recall"] == pytest.approx(
        np.mean(actual == guess)
    )  # weighted recall = accuracy


def test_state_merges_and_round_trips() -> None:
    a = ConfusionState.of({("x", "x"): 3, ("x", "y"): 1})
    b = ConfusionState.of({("x", "y"): 2, ("y", "y"): 4})
    assert (
        a.merge(b) == b.merge(a) == ConfusionState.of({("x", "x"): 3, ("x", "y"): 3, ("y", "y"): 4})
    )
    assert a.merge(ConfusionState.identity()) == a
    assert state_from_bytes(a.merge(b).to_bytes()) == a.merge(b)
    assert FUNCTION.metric(ConfusionState.identity()).error == (
        "Predictability(country, [city, street]): no held-out rows with a non-null target; "
        "the metric needs at least one"
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"inputs": []}, "inputs must name at least one column, got none"),
        ({"inputs": ["country"]}, "target 'country' is also an input"),
        ({"measure": "auc"}, "measure must be one of ('f1', 'precision', 'recall'), got 'auc'"),
        ({"train_fraction": 1.0}, "train_fraction must be strictly between 0 and 1, got 1.0"),
        ({"num_features": 8}, "num_features must be between 16 and 4194304, got 8"),
        ({"max_classes": 1}, "max_classes must be at least 2, got 1"),
    ],
)
def test_bad_parameters_fail_at_construction(kwargs: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"target": "country", "inputs": ["city"], **kwargs}
    with pytest.raises(ConfigurationError) as raised:
        Predictability(**arguments)  # type: ignore[arg-type]
    assert str(raised.value).startswith(message)


def test_metric_id_names_every_non_default_setting() -> None:
    assert Predictability("c", ("a", "b"), seed=3, train_fraction=0.5).metric_id == (
        "Predictability(c, [a, b], train_fraction=0.5, seed=3)"
    )
    assert Predictability("c", ["a"]) == Predictability("c", ("a",)) == Predictability("c", "a")
