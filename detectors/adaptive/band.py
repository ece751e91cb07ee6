"""The band a point was judged against, in value units."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from detectors.adaptive.smoother import Forecasts
from detectors.adaptive.transform import Transforms

FloatMatrix = NDArray[np.float64]


def value_band(
    fc: Forecasts,
    below: FloatMatrix,
    above: FloatMatrix,
    transforms: Transforms,
    needed: NDArray[np.bool_],
    offset: FloatMatrix,
    side: str,
    min_change: tuple[float, float],
) -> tuple[FloatMatrix, FloatMatrix]:
    """The band each ``needed`` point was judged against: ``below``/``above`` scales around
    the forecast (the point test's half-width, or less where a lasting change was building),
    widened to the minimum practical change (``min_change``: absolute, relative), in value
    units (plus ``offset``: the previous value of a cumulative series); ``side`` ``"upper"`` /
    ``"lower"`` leaves the other side open."""
    cells = np.nonzero(needed)
    rows = transforms.take(cells[0])
    forecast, scale, shift = fc.forecast[cells], fc.scale[cells], offset[cells]
    with np.errstate(invalid="ignore"):
        low_y = forecast - below[cells] * scale
        high_y = forecast + above[cells] * scale
    if side == "upper":
        low_y = np.full(low_y.shape, -np.inf)
    if side == "lower":
        high_y = np.full(high_y.shape, np.inf)
    low, high = rows.inverse(low_y) + shift, rows.inverse(high_y) + shift
    centre = rows.inverse(forecast) + shift
    change = np.maximum(min_change[0], min_change[1] * np.abs(centre))
    if side != "upper":
        low = np.minimum(low, centre - change)
    if side != "lower":
        high = np.maximum(high, centre + change)
    lower, upper = np.full(needed.shape, np.nan), np.full(needed.shape, np.nan)
    lower[cells], upper[cells] = low, high
    return lower, upper
