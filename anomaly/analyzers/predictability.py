"""Predictability: how well a Naive Bayes model predicts one column from others.

As in Schelter et al., PVLDB 2018, §3.1.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers.base import DataFrameAnalyzer
from anomaly.analyzers.columns import col
from anomaly.analyzers.state import State, check_same_kind
from anomaly.errors import ConfigurationError, MetricComputationError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

MEASURES = ("f1", "precision", "recall")
MIN_ROWS = 20
"""Fewest rows with a non-null target a model is trained and evaluated on."""


@dataclass(frozen=True)
class ConfusionState(State):
    """Held-out (actual, predicted, count) cells of one model's predictions; sorted, no zeros.

    Cells merge by addition: the pooled evaluation of the models behind each state.

    Examples
    --------
    >>> a = ConfusionState.of({("de", "de"): 3, ("fr", "de"): 1})
    >>> a.merge(ConfusionState.of({("fr", "fr"): 2})).cells
    (('de', 'de', 3), ('fr', 'de', 1), ('fr', 'fr', 2))
    """

    kind: ClassVar[str] = "confusion"
    cells: tuple[tuple[str, str, int], ...]

    @classmethod
    def of(cls, counts: dict[tuple[str, str], int]) -> ConfusionState:
        """The state of an (actual, predicted) -> count mapping."""
        return cls(tuple(sorted((a, p, int(c)) for (a, p), c in counts.items() if c)))

    @classmethod
    def identity(cls) -> ConfusionState:
        return cls(())

    def merge(self, other: ConfusionState) -> ConfusionState:
        check_same_kind(self, other)
        total: Counter[tuple[str, str]] = Counter()
        for actual, predicted, count in (*self.cells, *other.cells):
            total[(actual, predicted)] += count
        return ConfusionState.of(dict(total))

    @classmethod
    def from_payload(cls, data: bytes) -> ConfusionState:
        return cls(tuple((str(a), str(p), int(c)) for a, p, c in json.loads(data)["cells"]))

    def weighted(self) -> dict[str, float]:
        """Precision, recall and F1 per true label, weighted by its support (as Spark ML).

        >>> ConfusionState.of({("a", "a"): 2, ("a", "b"): 2, ("b", "b"): 4}).weighted()
        {'precision': 0.833, 'recall': 0.75, 'f1': 0.733}
        """
        support: Counter[str] = Counter()
        predicted: Counter[str] = Counter()
        hits: Counter[str] = Counter()
        for actual, guess, count in self.cells:
            support[actual] += count
            predicted[guess] += count
            if actual == guess:
                hits[actual] += count
        rows = sum(support.values())
        result = dict.fromkeys(("precision", "recall", "f1"), 0.0)
        for label, n in support.items():
            precision = hits[label] / predicted[label] if predicted[label] else 0.0
            recall = hits[label] / n
            both = precision + recall
            result["precision"] += n / rows * precision
            result["recall"] += n / rows * recall
            result["f1"] += n / rows * (2 * precision * recall / both if both else 0.0)
        return result


@dataclass(frozen=True)
class Predictability(DataFrameAnalyzer[ConfusionState]):
    """Weighted F1 (or precision, recall) of predicting `target` from `inputs` on held-out rows.

    The inputs are cast to text and concatenated, tokenised (Spark ML ``Tokenizer``) and hashed
    into `num_features` term counts (``HashingTF``); a multinomial ``NaiveBayes`` learns on a
    `train_fraction` sample of the rows with a non-null target (chosen by ``rand(seed)``, so the
    same data and partitioning give the same value) and is scored on the held-out rest.
    With ``group_by``, one model is trained on all rows and scored per group, so the cost does not
    grow with the groups; per-group models need one analyzer per group with a `where`.

    The state is the confusion counts of the held-out rows. It is mergeable *enough* (counts add
    up, pooling the evaluations of several models) but not differential: the model trained on
    d1 + d2 is not a function of the models or confusion counts of d1 and d2, so
    ``metric(state(d1 + d2)) != metric(state(d1).merge(state(d2)))`` in general and the metric is
    recomputed on the data at hand rather than updated from stored states.

    Examples
    --------
    >>> a = Predictability("country", ["zip", "city"])
    >>> a.metric_id, a.instance
    ('Predictability(country, [zip, city])', 'country,zip,city')
    >>> a.metric(ConfusionState.of({("de", "de"): 9, ("fr", "de"): 1})).value
    0.853
    >>> Predictability("country", "city", measure="recall").metric_id
    'Predictability(country, [city], measure=recall)'
    """

    target: str
    inputs: str | Sequence[str]
    where: str | None = None
    measure: str = "f1"
    train_fraction: float = 0.8
    seed: int = 0
    num_features: int = 2**16
    max_classes: int = 100
    metric_name: ClassVar[str] = "Predictability"

    def __post_init__(self) -> None:
        inputs = (self.inputs,) if isinstance(self.inputs, str) else tuple(self.inputs)
        object.__setattr__(self, "inputs", inputs)
        if not inputs:
            raise ConfigurationError("inputs must name at least one column, got none")
        if self.target in inputs:
            raise ConfigurationError(
                f"target {self.target!r} is also an input {list(inputs)}; predicting a column "
                "from itself measures nothing"
            )
        if self.measure not in MEASURES:
            raise ConfigurationError(f"measure must be one of {MEASURES}, got {self.measure!r}")
        if not 0.0 < self.train_fraction < 1.0:
            raise ConfigurationError(
                f"train_fraction must be strictly between 0 and 1, got {self.train_fraction!r}"
            )
        if not 2**4 <= self.num_features <= 2**22:
            raise ConfigurationError(
                f"num_features must be between 16 and 4194304, got {self.num_features}"
            )
        if self.max_classes < 2:
            raise ConfigurationError(f"max_classes must be at least 2, got {self.max_classes}")

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.target, *self.inputs)

    def id_arguments(self) -> list[str]:
        arguments = [self.target, f"[{', '.join(self.inputs)}]"]
        defaults = {"measure": "f1", "train_fraction": 0.8, "seed": 0, "num_features": 2**16}
        for name, default in defaults.items():
            if getattr(self, name) != default:
                arguments.append(f"{name}={getattr(self, name)}")
        return arguments

    def empty_state(self) -> ConfusionState:
        return ConfusionState.identity()

    def compute_metric(self, state: ConfusionState) -> float:
        if not state.cells:
            raise self.nothing_to_measure("held-out rows with a non-null target")
        return state.weighted()[self.measure]

    def compute_states(
        self, df: DataFrame, groups: Sequence[str]
    ) -> dict[tuple[Any, ...], ConfusionState | str]:
        from anomaly.errors import job_error_message

        try:
            return self._evaluate(df, groups)
        except MetricComputationError as problem:
            return {(): str(problem)}
        except Exception as error:  # a failed Spark job is this metric's failure, not the run's
            return {(): job_error_message(error)}

    def _evaluate(
        self, df: DataFrame, groups: Sequence[str]
    ) -> dict[tuple[Any, ...], ConfusionState | str]:
        from pyspark.ml.classification import NaiveBayes
        from pyspark.ml.feature import HashingTF, Tokenizer
        from pyspark.sql import functions as F

        schema = df.schema
        data = df.where(F.expr(self.where)) if self.where else df
        data = data.withColumn("_target", col(schema, self.target).cast("string"))
        data = data.where(F.col("_target").isNotNull())
        labels = self._labels(data)
        meta = {"ml_attr": {"type": "nominal", "name": "_label", "vals": labels}}
        index = F.array_position(F.array(*[F.lit(v) for v in labels]), F.col("_target")) - 1
        text = F.concat_ws(" ", *[col(schema, c).cast("string") for c in self.inputs])
        rows = data.select(
            *[col(schema, g).alias(f"_g{i}") for i, g in enumerate(groups)],
            index.cast("double").alias("_label", metadata=meta),
            text.alias("_text"),
            F.rand(self.seed).alias("_split"),
        )
        tokens = Tokenizer(inputCol="_text", outputCol="_tokens").transform(rows)
        features = HashingTF(
            inputCol="_tokens", outputCol="_features", numFeatures=self.num_features
        ).transform(tokens)
        model = NaiveBayes(featuresCol="_features", labelCol="_label", smoothing=1.0).fit(
            features.where(F.col("_split") < self.train_fraction)
        )
        held_out = model.transform(features.where(F.col("_split") >= self.train_fraction))
        keys = [f"_g{i}" for i in range(len(groups))]
        counts = held_out.groupBy(*keys, "_label", "prediction").count().collect()
        cells: dict[tuple[Any, ...], dict[tuple[str, str], int]] = {}
        for row in counts:
            key = tuple(row[: len(keys)])
            pair = (labels[int(row["_label"])], labels[int(row["prediction"])])
            cells.setdefault(key, {})[pair] = int(row["count"])
        return {key: ConfusionState.of(pairs) for key, pairs in cells.items()}

    def _labels(self, data: DataFrame) -> list[str]:
        """The target's values, most frequent first; fails for too few rows, one or many classes."""
        counts = data.groupBy("_target").count().limit(self.max_classes + 1).collect()
        if len(counts) > self.max_classes:
            raise MetricComputationError(
                f"target {self.target!r} has more than max_classes={self.max_classes} distinct "
                "values; Predictability needs a categorical target (raise max_classes or bucket it)"
            )
        rows = sum(int(r["count"]) for r in counts)
        scope = f" matching where: {self.where}" if self.where else ""
        if rows < MIN_ROWS:
            raise MetricComputationError(
                f"{rows} rows with a non-null {self.target!r}{scope}; Predictability needs at "
                f"least {MIN_ROWS} to train and evaluate a model"
            )
        if len(counts) == 1:
            raise MetricComputationError(
                f"target {self.target!r} has the single value {counts[0]['_target']!r} in all "
                f"{rows} rows{scope}; Predictability needs at least two classes"
            )
        ordered = sorted(counts, key=lambda r: (-int(r["count"]), r["_target"]))
        return [r["_target"] for r in ordered]
