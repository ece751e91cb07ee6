"""Column-name model: is a column unique, judging by its table's name, its name and its type?

Schelter et al., PVLDB 2018, §4.2: logistic regression on hashed character n-grams of the table
and column names plus a one-hot type. Written with numpy/scipy (L2-regularised, L-BFGS) instead
of adding scikit-learn for one small linear model. It trains in well under a second from the
shipped CSV.
"""

from __future__ import annotations

import csv
import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np
from scipy import optimize, sparse
from scipy.stats import rankdata

from anomaly.errors import ConfigurationError

TRAINING_SET = "unique_columns.csv"
DIMENSIONS = 2**18
L2 = 3e-3
NGRAMS = (2, 4)
"""Chosen by the 5-fold grouped cross-validation in docs/suggestion.md."""


@dataclass(frozen=True)
class NamedColumn:
    """One training example: a column of a table in a public schema, and whether it is unique."""

    source: str
    table: str
    column: str
    data_type: str
    unique: bool


def normalised(name: str) -> str:
    """Lower case words joined by ``_`` (camelCase and punctuation split).

    >>> normalised("wp_posts"), normalised("OwnerUserId"), normalised("ID")
    ('wp_posts', 'owner_user_id', 'id')
    """
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return "_".join(w for w in re.split(r"[^a-z0-9]+", name.lower()) if w)


def features(table: str, column: str, data_type: str, ngrams: tuple[int, int]) -> list[str]:
    """Character n-grams of both names (``^`` and ``$`` mark the ends), their words, the type,
    and whether the column names the table (``post_id`` in ``posts``).

    >>> features("t", "id", "Integral", (3, 3))
    ['table:^t$', 'column:^id', 'column:id$', 'table_word:t', 'column_word:id',
     'type:Integral', 'names_table']
    """
    names = {"table": normalised(table), "column": normalised(column)}
    result = []
    for field, text in names.items():
        padded = f"^{text}$"
        for n in range(ngrams[0], ngrams[1] + 1):
            result += [f"{field}:{padded[i : i + n]}" for i in range(len(padded) - n + 1)]
    for field, text in names.items():
        result += [f"{field}_word:{w}" for w in text.split("_")]
    result.append(f"type:{data_type}")
    stem = re.sub(r"_?(id|key|no|code|name)$", "", names["column"])
    if not stem or stem.rstrip("s") in names["table"]:
        result.append("names_table")
    return result


def hashed(rows: Iterable[tuple[str, str, str]], ngrams: tuple[int, int]) -> sparse.csr_matrix:
    """The feature matrix: each feature hashed (CRC32, stable across processes) to a column."""
    indptr, indices = [0], []
    for table, column, data_type in rows:
        indices += [
            zlib.crc32(f.encode()) % DIMENSIONS for f in features(table, column, data_type, ngrams)
        ]
        indptr.append(len(indices))
    data = np.ones(len(indices))
    matrix = sparse.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, DIMENSIONS))
    matrix.sum_duplicates()
    return matrix


@dataclass(frozen=True, eq=False)
class ColumnNameModel:
    """A trained logistic regression over hashed name features.

    Examples
    --------
    >>> rows = [NamedColumn("s", "users", c, "Integral", c == "id") for c in ("id", "age")] * 3
    >>> model = ColumnNameModel.train(rows, l2=0.1)
    >>> model.probability("customers", "id", "Integral") > 0.5
    True
    """

    weights: np.ndarray
    bias: float
    ngrams: tuple[int, int]

    @classmethod
    def train(
        cls, rows: Sequence[NamedColumn], l2: float = L2, ngrams: tuple[int, int] = NGRAMS
    ) -> ColumnNameModel:
        """Fit on `rows` by minimising the mean log-loss plus ``l2 / 2 * |w|^2``."""
        if not rows or len({r.unique for r in rows}) < 2:
            raise ConfigurationError("training needs unique and non-unique examples, got one kind")
        if l2 <= 0:
            raise ConfigurationError(f"l2 must be positive, got {l2}")
        x = hashed(((r.table, r.column, r.data_type) for r in rows), ngrams)
        y = np.array([1.0 if r.unique else -1.0 for r in rows])
        used = np.unique(x.indices)  # optimise only the weights of features that occur
        x = x[:, used]

        def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
            w, b = theta[:-1], theta[-1]
            margin = y * (x @ w + b)
            value = np.logaddexp(0.0, -margin).mean() + l2 / 2 * w @ w
            slope = -y * _sigmoid(-margin) / len(y)
            return float(value), np.append(x.T @ slope + l2 * w, slope.sum())

        start = np.zeros(x.shape[1] + 1)
        theta = optimize.minimize(loss, start, jac=True, method="L-BFGS-B").x
        weights = np.zeros(DIMENSIONS)
        weights[used] = theta[:-1]
        return cls(weights, float(theta[-1]), ngrams)

    @classmethod
    def default(cls) -> ColumnNameModel:
        """The model trained on the shipped training set (built once per process)."""
        return _default_model()

    def probabilities(self, rows: Iterable[tuple[str, str, str]]) -> np.ndarray:
        """P(unique) for (table, column, type) triples."""
        return _sigmoid(hashed(rows, self.ngrams) @ self.weights + self.bias)

    def probability(self, table: str, column: str, data_type: str) -> float:
        """P(unique) of one column."""
        return float(self.probabilities([(table, column, data_type)])[0])


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return np.exp(-np.logaddexp(0.0, -z))


def auc(labels: Sequence[bool] | np.ndarray, scores: Sequence[float] | np.ndarray) -> float:
    """Area under the ROC curve (Mann-Whitney; ties count half).

    >>> auc([True, False, True, False], [0.9, 0.1, 0.4, 0.4])
    0.875
    """
    truth = np.asarray(labels, dtype=bool)
    positives, negatives = int(truth.sum()), int((~truth).sum())
    if not positives or not negatives:
        raise ConfigurationError("AUC needs positive and negative examples")
    ranks = rankdata(np.asarray(scores, dtype=float))
    return float((ranks[truth].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def cross_validated_auc(
    rows: Sequence[NamedColumn], folds: int = 5, l2: float = L2, ngrams: tuple[int, int] = NGRAMS
) -> float:
    """AUC of out-of-fold predictions; all columns of one table fall in the same fold, so a
    table's own column names never help to predict it."""
    tables = sorted({(r.source, r.table) for r in rows})
    order = np.random.default_rng(0).permutation(len(tables))
    fold_of = {tables[i]: k % folds for k, i in enumerate(order)}
    scores = np.zeros(len(rows))
    for fold in range(folds):
        test = [i for i, r in enumerate(rows) if fold_of[(r.source, r.table)] == fold]
        train = [r for r in rows if fold_of[(r.source, r.table)] != fold]
        model = ColumnNameModel.train(train, l2, ngrams)
        scores[test] = model.probabilities(
            (rows[i].table, rows[i].column, rows[i].data_type) for i in test
        )
    return auc([r.unique for r in rows], scores)


def training_set() -> list[NamedColumn]:
    """The shipped training set (``anomaly/suggestion/data/unique_columns.csv``)."""
    text = resources.files("anomaly.suggestion").joinpath("data", TRAINING_SET).read_text()
    return [
        NamedColumn(r["source"], r["table"], r["column"], r["type"], r["unique"] == "1")
        for r in csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    ]


@lru_cache(maxsize=1)
def _default_model() -> ColumnNameModel:
    return ColumnNameModel.train(training_set())
