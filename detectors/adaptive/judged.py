"""One pass of ``Adaptive``'s judging: its result, how ``aux`` packs a cell's scale and
season, and the text of an anomaly (kept apart from the detector, which runs the passes)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from detectors.adaptive import holiday_days, limits, scale_choice
from detectors.adaptive.smoother import Forecasts
from detectors.adaptive.transform import Transform, Transforms
from detectors.evaluation import ANOMALY, INSUFFICIENT, MISSING, OK, IntArray, fmt, outside
from detectors.vectorised import Cell, FloatMatrix, MatrixResult

PERIOD_SLOTS = 10_000
INCREMENTS = 4
"""``aux`` packs the scale and the period: (transform + 4 * increments) * 10_000 + period."""


def describe_anomaly(name: str, false_alarm_rate: float, cell: Cell) -> str:
    """The detail of an anomalous cell: its value, band, season and scale, or (``aux`` below
    0) the run of repeated values that made it one.

    >>> cell = Cell(position=3, length=10, value=9.0, lower=1.0, upper=5.0, code=2, aux=7)
    >>> print(describe_anomaly("Adaptive", 0.001, cell))
    [Adaptive] Value 9.0 is not in bounds [1.0, 5.0] (period 7, identity scale,
    false_alarm_rate 0.001).
    >>> print(describe_anomaly("Adaptive", 0.001, cell._replace(aux=-4)))
    [Adaptive] Value 9.0 came 5 times in a row, a run its history makes unlikely
    (false_alarm_rate 0.001); bounds were [1.0, 5.0].
    """
    if cell.aux < 0:
        return (
            f"[{name}] Value {fmt(cell.value)} came {int(-cell.aux) + 1} times in a row, a run"
            f" its history makes unlikely (false_alarm_rate {false_alarm_rate:g}); bounds were"
            f" [{fmt(cell.lower)}, {fmt(cell.upper)}]."
        )
    period = int(cell.aux) % PERIOD_SLOTS
    kind, increments = divmod(int(cell.aux) // PERIOD_SLOTS, INCREMENTS)[::-1]
    scale = Transform(kind).label + (" scale of the increments" if increments else " scale")
    season = f"period {period}" if period else "no season"
    return (
        f"[{name}] Value {fmt(cell.value)} is not in bounds [{fmt(cell.lower)}, "
        f"{fmt(cell.upper)}] ({season}, {scale}, false_alarm_rate "
        f"{false_alarm_rate:g})."
    )


class Judged(NamedTuple):
    """One pass of ``Adaptive._judge``: verdicts, forecasts of the rows asked for (value
    units), and what the scale choice needs: transforms, forecasts and the cells they learnt."""

    result: MatrixResult
    expected: FloatMatrix
    transforms: Transforms
    forecasts: Forecasts
    learnt: NDArray[np.bool_]

    def density(self, x: FloatMatrix, rows: IntArray) -> FloatMatrix:
        """``scale_choice.log_density`` of ``x``, the values of ``rows``."""
        fc, transforms = self.forecasts, self.transforms.take(rows)
        return scale_choice.log_density(x, fc.error[rows], fc.scale[rows], transforms,
                                        self.learnt[rows])  # fmt: skip


def verdicts(
    values: FloatMatrix,
    band: tuple[FloatMatrix, FloatMatrix],
    needed: NDArray[np.bool_],
    stale: NDArray[np.bool_],
    p: FloatMatrix,
    rate: float,
    domain: limits.Domain,
) -> tuple[NDArray[np.int8], FloatMatrix, FloatMatrix]:
    """Codes, p-values and confidences of a pass: a ``needed`` cell (``p``: their p-values, in
    order) is anomalous beyond its ``band`` or ``stale``; beyond a band the limits cut, its
    p-value is at most ``rate``, outside the ``domain`` 0 (the model cannot produce it)."""
    cells = np.nonzero(needed)
    codes = np.full(values.shape, INSUFFICIENT, dtype=np.int8)
    points = values[cells]
    beyond = outside(points, band[0][cells], band[1][cells])
    codes[cells] = np.where(beyond | stale[cells], ANOMALY, OK)
    p = np.where(beyond, np.minimum(p, rate), p)
    p[limits.out_of_domain(points, domain)] = 0.0
    codes[np.isnan(values)] = MISSING
    p_value, confidence = np.full(values.shape, np.nan), np.full(values.shape, np.nan)
    p_value[cells], confidence[cells] = p, 1.0 - p
    return codes, p_value, confidence


def pack_aux(
    needed: NDArray[np.bool_],
    period: NDArray[np.int64],
    transforms: Transforms,
    offset: FloatMatrix,
    holiday: NDArray[np.bool_],
    stale_run: tuple[NDArray[np.bool_], NDArray[Any]],
) -> FloatMatrix:
    """Each ``needed`` cell's ``aux``: its season's ``period`` and its row's scale (its
    transform, on increments where it has an ``offset``), flagged on a ``holiday``; minus the
    run of repeats on a stale cell (``stale_run``: where, how long; NaN elsewhere)."""
    stale, run = stale_run
    kind = transforms.kinds.astype(np.int64) + INCREMENTS * offset.any(axis=1)
    cells = np.nonzero(needed)
    aux = np.full(needed.shape, np.nan)
    aux[cells] = (period[cells] + PERIOD_SLOTS * kind[cells[0]]).astype(np.float64)
    aux[holiday & ~stale] += holiday_days.FLAG
    aux[stale] = -run[stale]  # describe() tells a stale value by its negative aux
    return aux


def splice(
    into: MatrixResult, part: MatrixResult, rows: NDArray[Any], cells: NDArray[np.bool_]
) -> None:
    """Write ``part``'s ``cells`` (of the sub-matrix of ``rows``) into ``into`` in place."""
    for whole, some in zip(into, part, strict=True):
        if whole is not None and some is not None:
            whole[rows] = np.where(cells, some, whole[rows])
