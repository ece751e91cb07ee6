"""A lasting change too small for any single point to stand out: Page's CUSUM on the
standardised one-step errors.

The smoother follows a moderate shift within a few points, so no single error is extreme; the
errors it leaves on the way all have one sign, and their running sum (less an allowance per
point, clipped so one outlier cannot trigger it alone: :mod:`detectors.adaptive.cusum_shape`)
crosses a threshold set for a false-alarm rate. Errors that follow each other (a series the
model tracks with a lag) would add up without any change, so each step is divided by the
long-run standard deviation ``sqrt((1 + r) / (1 - r))`` of the series' own lag-one error
autocorrelation ``r`` (estimated from its past errors). The rate of a CUSUM on clipped normal
errors falls exponentially with its threshold, ``rate = SCALE * exp(-DECAY * threshold)`` per
point and side (fitted on 40 million simulated points), which turns a rate into a threshold and
an alarm's height into a p-value. After an alarm the sum restarts: one alert per change.

Page, "Continuous inspection schemes", Biometrika, 1954.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

FloatMatrix = NDArray[np.float64]
BoolMatrix = NDArray[np.bool_]

SCALE = 0.175
DECAY = 1.05
SHARE = 0.2
"""The share of the false-alarm rate spent on lasting changes."""


def threshold(rate: float) -> float:
    """The sum that fires at ``rate`` false alarms per point and side.

    >>> round(threshold(0.001 * SHARE / 2), 2)
    7.1
    """
    return math.log(SCALE / rate) / DECAY


def p_value(height: FloatMatrix) -> FloatMatrix:
    """The chance a CUSUM on normal errors is at least ``height`` at a given point (one side)."""
    return np.minimum(SCALE * np.exp(-DECAY * height), 1.0)


class Sums(NamedTuple):
    """Per cell: the CUSUMs below and above the forecast after the point, and the standardised
    errors (in scales, as ``z``) beyond which the point would have crossed the threshold
    (infinite where no single point could)."""

    below: FloatMatrix
    above: FloatMatrix
    z_low: FloatMatrix
    z_high: FloatMatrix


def lasting_sums(z: FloatMatrix, informs: BoolMatrix, side: str, rate: float) -> Sums:
    """The CUSUMs of lasting changes on ``side`` (``"both"``, ``"lower"``, ``"upper"``; with
    the errors each point could have had without crossing) spending ``SHARE`` of ``rate``."""
    sides = (side != "upper", side != "lower")
    share = SHARE * rate / (2 if all(sides) else 1)
    return cusum(z, informs, threshold(share), sides)


def lasting_p(sums: Sums, at: BoolMatrix | tuple[NDArray[np.intp], ...], side: str) -> FloatMatrix:
    """The lasting changes' p-values (:func:`lasting_sums`) of the cells ``at`` (a mask, or
    indices in row-major order), one per cell: a newest-point check has one cell a row."""
    height = np.maximum(sums.below[at], sums.above[at])
    return p_value(height) * (2 if side == "both" else 1)


def cusum(z: FloatMatrix, informs: BoolMatrix, limit: float, sides: tuple[bool, bool]) -> Sums:
    """The CUSUMs of ``z``, reset to 0 wherever one crossed ``limit``; ``informs`` marks the
    errors that may enter the sums; ``sides`` says which of (below, above) to track."""
    from detectors.adaptive.kernels import by_rows
    from detectors.adaptive.kernels.cusum import cusum_rows

    z = np.ascontiguousarray(z, dtype=np.float64)
    informs = np.ascontiguousarray(informs)
    # The kernel writes every cell of a side it tracks: only the other side's are filled here.
    low, high = sides
    sums = Sums(np.empty(z.shape) if low else np.zeros(z.shape),
                np.empty(z.shape) if high else np.zeros(z.shape),
                np.empty(z.shape) if low else np.full(z.shape, -np.inf),
                np.empty(z.shape) if high else np.full(z.shape, np.inf))  # fmt: skip

    def rows(part: slice) -> None:
        cusum_rows(z[part], informs[part], limit, sides[0], sides[1], *(a[part] for a in sums))

    by_rows(rows, z.shape[0], z.size)
    return sums
