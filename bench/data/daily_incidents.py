"""Incidents on daily data-quality metrics, sized by the series' own day-to-day variation.

Most incidents a data team misses are not 10x: a partial load that lost 15% of the rows, a
null ratio that went from 2% to 4%. So an incident's size is drawn in *typical steps*: the
median absolute day-to-day change of the clean history before it. With probability
``SUBTLE_ODDS`` an incident is subtle (2-6 typical steps), otherwise obvious (a lost load, a
doubling, a unit change). Each injection changes ``values`` in place and returns the labelled
span ``[first, last]``; a lasting change (level shift, unit change) labels its first ``SETTLE``
points: after that the new level is the normal one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .daily_shapes import Floats

SUBTLE_ODDS = 0.6
SUBTLE_STEPS = (2.0, 6.0)
SETTLE = 7
COUNTS = ("partial_load", "zero_load", "duplicate_load", "level_shift", "stale")
TYPES: dict[str, tuple[str, ...]] = {
    "row_count": COUNTS,
    "distinct_count": COUNTS,
    "trend_weekly": COUNTS,
    "completeness": ("null_jump", "level_shift", "stale"),
    "share": ("share_doubling", "level_shift", "stale"),
    "column_mean": ("spike", "level_shift", "unit_change", "stale"),
    "drifting_level": ("spike", "level_shift", "unit_change", "stale"),
}
PERSISTENT = ("level_shift", "unit_change")
RATIOS = ("completeness", "share")
INTEGERS = ("row_count", "distinct_count", "trend_weekly")


def typical_step(history: Floats) -> float:
    """The median absolute day-to-day change (its mean, or 1% of the level, when the median is
    0: a mostly constant history)."""
    steps = np.abs(np.diff(history[np.isfinite(history)]))
    for candidate in (np.median(steps), steps.mean()) if len(steps) else ():
        if candidate > 0:
            return float(candidate)
    level = float(np.nanmean(np.abs(history))) if len(history) else 1.0
    return max(0.01 * level, 1e-3)


def inject(
    rng: np.random.Generator, kind: str, values: Floats, t: int, incident: str
) -> dict[str, Any]:
    """Inject ``incident`` into ``values`` (a metric of ``kind``) at ``t``; returns its record:
    type, first and last labelled position, size in typical steps (``None`` when the size is
    not a step count), and whether it is subtle."""
    n = len(values)
    step = typical_step(values[:t])
    subtle = rng.random() < SUBTLE_ODDS and incident not in ("zero_load", "stale", "unit_change")
    k = float(rng.uniform(*SUBTLE_STEPS))
    sign = 1.0 if rng.random() < 0.5 else -1.0
    run = int(rng.integers(1, 3))
    last = min(n - 1, t + run - 1)
    steps: float | None = k if subtle else None
    if incident == "partial_load":
        if subtle:
            values[t : last + 1] -= k * step
        else:
            values[t : last + 1] *= rng.uniform(0.2, 0.6)
    elif incident == "zero_load":
        last = t
        values[t] = 0.0
    elif incident == "duplicate_load":
        last = t
        values[t] = values[t] + k * step if subtle else values[t] * 2.0
    elif incident in ("spike", "null_jump"):
        size = k * step if subtle else float(rng.uniform(10, 40)) * step
        if incident == "null_jump":
            sign = 1.0
            size = size if subtle else max(size, float(rng.uniform(0.05, 0.3)))
        values[t : last + 1] += sign * size
    elif incident == "share_doubling":
        if rng.random() < 0.3:  # the category stays doubled (a duplicated dimension row)
            last = n - 1
        values[t : last + 1] = (
            values[t : last + 1] + k * step if subtle else values[t : last + 1] * 2
        )
        last = min(last, t + SETTLE - 1)
    elif incident == "level_shift":
        if subtle:
            values[t:] += sign * k * step
        elif kind in INTEGERS:
            values[t:] *= rng.uniform(0.4, 0.65) if sign < 0 else rng.uniform(1.5, 2.5)
        else:
            values[t:] += sign * float(rng.uniform(8, 20)) * step
        last = min(n - 1, t + SETTLE - 1)
    elif incident == "unit_change":
        values[t:] *= float(rng.choice([1000.0, 100.0, 0.001]))
        last = min(n - 1, t + SETTLE - 1)
    elif incident == "stale":  # the source stopped updating: yesterday's value again
        last = min(n - 1, t + int(rng.integers(2, 7)))
        values[t : last + 1] = values[t - 1]
    else:
        raise ValueError(
            f"no daily incident {incident!r} (known: {sorted(set(sum(TYPES.values(), ())))})"
        )
    _clip(kind, values)
    return {"type": incident, "first": t, "last": last, "steps": steps, "subtle": subtle}


def _clip(kind: str, values: Floats) -> None:
    """Keep the metric in its domain: ratios in [0, 1], counts whole and at least 0."""
    if kind in RATIOS:
        np.clip(values, 0.0, 1.0, out=values)
    elif kind in INTEGERS:
        np.maximum(np.round(values), 0.0, out=values)


def plan(rng: np.random.Generator, kind: str, n: int, first: int) -> list[tuple[str, int]]:
    """Zero to two incidents of ``kind`` from position ``first`` on, at least 10 days apart, a
    lasting one last (nothing after it is on the old level)."""
    count = int(rng.choice([0, 1, 2], p=[0.35, 0.45, 0.2]))
    chosen = [str(x) for x in rng.choice(TYPES[kind], size=count)]
    chosen = [x for x in chosen if x not in PERSISTENT] + [x for x in chosen if x in PERSISTENT][:1]
    gap = 10
    slots = n - 1 - first - gap * (len(chosen) - 1)
    if not chosen or slots < len(chosen):
        return []
    starts = np.sort(rng.choice(slots, size=len(chosen), replace=False))
    return [
        (x, first + int(s) + gap * i) for i, (x, s) in enumerate(zip(chosen, starts, strict=True))
    ]
