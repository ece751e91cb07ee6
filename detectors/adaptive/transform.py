"""Variance-stabilising transforms, chosen per series from its first points.

Row counts and positive magnitudes grow and shrink multiplicatively (a logarithm makes their
noise additive, and a unit change a plain shift), small counts are Poisson-like (a square root
stabilises their variance), ratios and signed metrics are modelled as they are. Every transform
is defined, continuous and increasing on the whole real line, so a value outside the usual
domain (a negative count, a zero on a log scale) is still judged, and bands map back to value
units with the inverse.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from enum import IntEnum

import numpy as np
from numpy.typing import NDArray

FloatMatrix = NDArray[np.float64]

DECIDING_POINTS = 7
"""How many first finite values decide a series' transform (it never changes afterwards, so
the verdict on a point depends only on the points before it; a magnitude's verdicts may later
come from the identity scale instead, :mod:`detectors.adaptive.scale_choice`)."""
LARGE_COUNTS = 10.0
"""Counts whose deciding values are mostly this large are modelled on a log scale, others (a
table that is empty at night) on a square-root scale."""
LOW_QUANTILE = 0.25
LINEAR_ZONE = 0.5
"""A positive magnitude's log scale turns linear below this share of its typical value, so a
metric that sometimes nears zero (a mean delay) does not swing wildly there."""
ANSCOMBE = 3.0 / 8.0


class Transform(IntEnum):
    """How values are mapped before forecasting."""

    IDENTITY = 0
    LOG = 1  # asinh(x / 2c): log(x / c) for x >> c, linear near 0
    SQRT = 2  # 2 * sqrt(x + 3/8) (Anscombe), continued linearly below 0

    @property
    def label(self) -> str:
        return ("identity", "log", "square root")[self]


@dataclass(frozen=True)
class Transforms:
    """One transform per row (``kinds``) and the log scale's linear zone per row (``zone``).

    Examples
    --------
    >>> rows = np.array([[1e5, 2e5, 1.5e5], [1.0, 0.0, 3.0], [0.98, 0.99, 0.97], [-1.0, 2.0, 1.0],
    ...                  [20.5, 30.5, 25.5]])
    >>> chosen = Transforms.choose(rows)
    >>> [Transform(t).name for t in chosen.kinds]
    ['LOG', 'SQRT', 'IDENTITY', 'IDENTITY', 'LOG']
    >>> bool(np.allclose(chosen.inverse(chosen.forward(rows)), rows))
    True
    """

    kinds: NDArray[np.int8]
    zone: FloatMatrix
    counts: NDArray[np.bool_]
    """Rows of whole numbers >= 0, which cannot go below 0."""

    @classmethod
    def choose(cls, x: FloatMatrix, points: int = DECIDING_POINTS) -> Transforms:
        """From the first ``points`` finite values of each row."""
        deciding, found = first_values(x, points)
        ordered = np.sort(deciding, axis=1)  # NaN last
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: no transform
            lowest = np.nanmin(deciding, axis=1)
            median = _sorted_quantile(ordered, found, 0.5)
            low = _sorted_quantile(ordered, found, LOW_QUANTILE)
            whole = np.all(np.isnan(deciding) | (deciding == np.round(deciding)), axis=1)
            unit = np.nanmax(deciding, axis=1) <= 1.0
        kinds = np.full(len(x), Transform.IDENTITY, dtype=np.int8)
        counts = whole & (lowest >= 0)
        magnitudes = ~whole & (lowest > 0) & ~unit
        kinds[counts & (low >= LARGE_COUNTS)] = Transform.LOG
        kinds[counts & (low < LARGE_COUNTS)] = Transform.SQRT
        kinds[magnitudes] = Transform.LOG
        zone = np.where(magnitudes, LINEAR_ZONE * np.abs(median), 1.0)
        kinds[np.isnan(median)] = Transform.IDENTITY
        zone = np.where(np.isfinite(zone) & (zone > 0), zone, 1.0)
        return cls(kinds, zone, counts & (kinds != Transform.IDENTITY))

    def take(self, rows: NDArray[np.int64]) -> Transforms:
        """The transforms of ``rows`` only."""
        return Transforms(self.kinds[rows], self.zone[rows], self.counts[rows])

    def as_identity(self) -> Transforms:
        """The same rows with no transform."""
        rows = len(self.kinds)
        return Transforms(np.zeros(rows, np.int8), np.ones(rows), np.zeros(rows, bool))

    def floor(self) -> NDArray[np.float64]:
        """Per row, the transformed value of 0 for counts, else ``-inf``."""
        return np.where(self.counts, self.forward(np.zeros(len(self.kinds))), -np.inf)

    def _rows(self, y: FloatMatrix) -> tuple[NDArray[np.int8], FloatMatrix]:
        shape = (-1, *([1] * (y.ndim - 1)))
        kinds = np.broadcast_to(self.kinds.reshape(shape), y.shape)
        zone = np.broadcast_to(self.zone.reshape(shape), y.shape)
        return kinds, zone

    def forward(self, x: FloatMatrix) -> FloatMatrix:
        """Apply each row's transform (infinite values stay infinite, NaN stays NaN)."""
        kinds, zone = self._rows(x)
        out = np.array(x, dtype=np.float64, copy=True)
        with np.errstate(invalid="ignore", over="ignore"):
            if (self.kinds == Transform.LOG).all():  # (magnitudes alone: no masks to gather by)
                column = (2 * self.zone).reshape((-1, *([1] * (out.ndim - 1))))
                return np.arcsinh(np.divide(out, column, out=out), out=out)
            log = kinds == Transform.LOG
            out[log] = np.arcsinh(x[log] / (2 * zone[log]))
            root = kinds == Transform.SQRT
            v = x[root]
            base = 2.0 * np.sqrt(ANSCOMBE)
            out[root] = np.where(
                v >= 0, 2.0 * np.sqrt(np.maximum(v, 0.0) + ANSCOMBE), base + v / np.sqrt(ANSCOMBE)
            )
        return out

    def log_slope(self, x: FloatMatrix) -> FloatMatrix:
        """The log of each transform's derivative at ``x``: densities on the transformed
        scale times it are densities in value units."""
        kinds, zone = self._rows(x)
        with np.errstate(invalid="ignore", divide="ignore"):
            log = -np.log(np.hypot(2 * zone, x))
            root = -0.5 * np.log(np.maximum(x, 0.0) + ANSCOMBE)
        return np.select([kinds == Transform.LOG, kinds == Transform.SQRT], [log, root], 0.0)

    def inverse(self, y: FloatMatrix) -> FloatMatrix:
        """Undo :meth:`forward`."""
        kinds, zone = self._rows(y)
        out = np.array(y, dtype=np.float64, copy=True)
        base = 2.0 * np.sqrt(ANSCOMBE)
        with np.errstate(invalid="ignore", over="ignore"):
            log = kinds == Transform.LOG
            out[log] = 2 * zone[log] * np.sinh(y[log])
            root = kinds == Transform.SQRT
            v = y[root]
            out[root] = np.where(
                v >= base,
                np.maximum((v / 2.0) ** 2 - ANSCOMBE, 0.0),
                (v - base) * np.sqrt(ANSCOMBE),
            )
        return out


def first_values(x: FloatMatrix, points: int) -> tuple[FloatMatrix, NDArray[np.int64]]:
    """Each row's first ``points`` finite values in place (NaN elsewhere), cut to the columns
    that hold them, and how many each row has.

    >>> values, found = first_values(np.array([[1.0, np.nan, 2, 3], [4, 5, 6, 7]]), 2)
    >>> values.tolist(), found.tolist()
    ([[1.0, nan, 2.0], [4.0, 5.0, nan]], [2, 2])
    """
    head = x[:, : 2 * points]
    if head.shape[1] < x.shape[1] and len(x):  # most rows have them early: count there first
        values, found = first_values(head, points)
        if (found >= points).all():
            return values, found
    finite = np.isfinite(x)
    rank = np.cumsum(finite, axis=1)
    reached = np.flatnonzero(rank.min(axis=0, initial=points) >= points)
    width = reached[0] + 1 if len(reached) else x.shape[1]
    found = np.minimum(rank[:, -1], points) if x.shape[1] else np.zeros(len(x), np.int64)
    return np.where(finite & (rank <= points), x, np.nan)[:, :width], found


def _sorted_quantile(ordered: FloatMatrix, found: NDArray[np.int64], q: float) -> FloatMatrix:
    """The ``q`` quantile of each row's first ``found`` values of ``ordered`` (sorted, NaN
    last), interpolated linearly; NaN for rows without values."""
    position = q * np.maximum(found - 1, 0)
    below = np.floor(position).astype(np.int64)
    above = np.minimum(below + 1, np.maximum(found - 1, 0))
    rows = np.arange(len(ordered))
    if ordered.shape[1] == 0:
        return np.full(len(ordered), np.nan)
    low, high = ordered[rows, below], ordered[rows, above]
    value = low + (position - below) * (high - low)
    return np.where(found > 0, value, np.nan)
