"""Incidents that happen in pipelines, injected into generated metric histories.

Each injection changes ``values`` (or the null probabilities ``p``) in place and returns the
labelled span ``[first, last]``: the points an alert should catch. A level shift persists but
only its first ``settle`` points are labelled: after that the new level is the normal one, and
alerts on it are false alarms (a detector that never adapts keeps paging).
"""

from __future__ import annotations

import numpy as np

from .shapes import Floats

# Incident types by metric kind (a duplicated load does not change a distinct count or a mean).
TYPES = {
    "row_count": ("zero_load", "partial_load", "duplicate_load", "late_partition", "level_shift"),
    "distinct": ("zero_load", "partial_load", "late_partition", "level_shift"),
    "null_ratio": ("null_spike", "level_shift", "slow_drift"),
    "mean": ("level_shift", "slow_drift"),
}
PERSISTENT = ("level_shift", "slow_drift")


def volume_incident(
    rng: np.random.Generator, kind: str, values: Floats, t: int, settle: int
) -> tuple[int, int]:
    """Inject ``kind`` into row or distinct counts at ``t``."""
    n = len(values)
    run = 1 if rng.random() < 0.7 else 2
    last = min(n - 1, t + run - 1)
    if kind == "zero_load":
        values[t : last + 1] = 0.0
    elif kind == "partial_load":
        values[t : last + 1] = np.round(values[t : last + 1] * rng.uniform(0.4, 0.6))
    elif kind == "duplicate_load":
        values[t : last + 1] *= 2.0
    elif kind == "late_partition":  # part of the partition arrives with the next one
        arrived = rng.uniform(0.1, 0.5)
        late = np.round(values[t] * (1 - arrived))
        values[t] -= late
        last = min(n - 1, t + 1)
        if last > t:
            values[last] += late
    elif kind == "level_shift":
        factor = rng.uniform(0.55, 0.75) if rng.random() < 0.6 else rng.uniform(1.35, 1.8)
        values[t:] = np.round(values[t:] * factor)
        last = min(n - 1, t + settle - 1)
    else:
        raise ValueError(f"no volume incident {kind!r}")
    return t, last


def null_incident(
    rng: np.random.Generator, kind: str, p: Floats, t: int, settle: int, drift: int
) -> tuple[int, int]:
    """Inject ``kind`` into null probabilities at ``t``."""
    n = len(p)
    if kind == "null_spike":
        last = min(n - 1, t + int(rng.integers(0, 3)))
        p[t : last + 1] += rng.uniform(0.02, 0.3)
        return t, last
    if kind == "level_shift":
        p[t:] += rng.uniform(0.01, 0.08)
        return t, min(n - 1, t + settle - 1)
    if kind == "slow_drift":
        return _ramp(p, t, drift, rng.uniform(0.02, 0.1), settle)
    raise ValueError(f"no null-ratio incident {kind!r}")


def mean_incident(
    rng: np.random.Generator, kind: str, values: Floats, sd: float, t: int, settle: int, drift: int
) -> tuple[int, int]:
    """Inject ``kind`` into a column's mean at ``t`` (sizes in the point noise ``sd``)."""
    sign = 1.0 if rng.random() < 0.5 else -1.0
    if kind == "level_shift":
        values[t:] += sign * rng.uniform(3, 6) * sd
        return t, min(len(values) - 1, t + settle - 1)
    if kind == "slow_drift":
        return _ramp(values, t, drift, sign * rng.uniform(4, 8) * sd, settle)
    raise ValueError(f"no mean incident {kind!r}")


def _ramp(values: Floats, t: int, length: int, size: float, settle: int) -> tuple[int, int]:
    """A linear drift of ``size`` over ``length`` points from ``t``, then held."""
    n = len(values)
    steps = np.minimum(np.arange(n - t) + 1, length) / length
    values[t:] += size * steps
    return t, min(n - 1, t + length + settle - 1)
