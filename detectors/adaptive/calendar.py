"""Timestamps as calendar slots: which hour of the day and day of the week a point falls on."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

IntMatrix = NDArray[np.int64]
NAT = np.iinfo(np.int64).min
MONDAY = int(pd.Timestamp("1970-01-05").value)
"""Slots count from a Monday midnight, so week-long seasons start on Mondays."""


def nanoseconds(times: Any) -> IntMatrix | None:
    """Times as int64 nanoseconds since the epoch (``NAT`` where missing), 1-d or 2-d as given;
    ``None`` when they are not timestamps (positions, numbers).

    >>> nanoseconds(pd.to_datetime(["1970-01-01 00:00:01"])).tolist()
    [1000000000]
    >>> nanoseconds([3, 4]) is None
    True
    """
    if isinstance(times, pd.DatetimeIndex | pd.Series) and isinstance(
        getattr(times, "dtype", None), pd.DatetimeTZDtype
    ):
        times = pd.DatetimeIndex(times).tz_convert("UTC").tz_localize(None)
    array = np.asarray(times)
    if array.dtype == object:
        try:
            array = np.asarray(pd.to_datetime(array.ravel(), utc=True).tz_localize(None)).reshape(
                array.shape
            )
        except (TypeError, ValueError):
            return None
    if not np.issubdtype(array.dtype, np.datetime64):
        return None
    return array.astype("datetime64[ns]").astype(np.int64)


def spacing_of(stamps: IntMatrix) -> float | None:
    """The median positive gap between consecutive times of each row, in seconds."""
    rows = stamps[None, :] if stamps.ndim == 1 else stamps
    valid = (rows[:, 1:] != NAT) & (rows[:, :-1] != NAT)
    gaps = (rows[:, 1:] - rows[:, :-1])[valid]
    gaps = gaps[gaps > 0]
    return float(np.median(gaps)) / 1e9 if len(gaps) else None


def slots(stamps: IntMatrix, spacing: float) -> IntMatrix:
    """Each time's slot: whole spacings since a Monday midnight (0 where the time is missing).

    >>> day = 86_400.0
    >>> slots(nanoseconds(pd.to_datetime(["1970-01-05", "1970-01-07"])), day).tolist()
    [0, 2]
    """
    step = round(spacing * 1e9)
    return np.where(stamps == NAT, 0, (stamps - MONDAY) // step).astype(np.int64)


def elapsed(slots: IntMatrix | None, present: NDArray[np.bool_]) -> IntMatrix:
    """Per cell, the spacings since the row's first ``present`` point (negative before it;
    positions stand in for ``slots`` when the times are unknown).

    >>> elapsed(np.array([[5, 6, 9, 10]]), np.array([[False, True, True, True]])).tolist()
    [[-1, 0, 3, 4]]
    """
    if slots is None:
        slots = np.broadcast_to(np.arange(present.shape[1], dtype=np.int64), present.shape)
    first = np.argmax(present, axis=1)
    start = np.where(
        present.any(axis=1), slots[np.arange(len(slots)), first], np.iinfo(np.int64).max // 2
    )
    return slots - start[:, None]


def bound_slots(slots: NDArray[Any] | None, shape: tuple[int, int]) -> NDArray[Any] | None:
    """The slots a detector was bound to (``at_times``), or anything else bound per time (its
    holidays), cut to a values matrix of `shape`.

    >>> bound_slots(np.arange(5), (1, 3)).tolist()
    [[0, 1, 2]]
    """
    if slots is None:
        return None
    slots = slots[None, :] if slots.ndim == 1 else slots
    if slots.shape[0] != shape[0] or slots.shape[1] < shape[1]:
        raise ValueError(
            f"this detector was bound to times of shape {slots.shape}; values have shape {shape}"
        )
    return slots[:, : shape[1]]
