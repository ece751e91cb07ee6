"""The benchmark's labelled metric histories: deterministic, several hundred series, daily and
hourly, long and short, split once into a development and a held-out half.

Every series is a ``LabeledSeries`` whose ``info`` says its ``id``, ``kind`` (row_count,
null_ratio, mean, distinct), ``frequency`` (daily, hourly), ``short`` (7-30 points: a new
dataset), ``split`` (dev, test) and ``incidents`` (type, first and last labelled position).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anomaly.backtest import LabeledSeries

from . import shapes
from .incidents import PERSISTENT, TYPES, mean_incident, null_incident, volume_incident

END_DAY = pd.Timestamp("2024-12-31", tz="UTC")
END_HOUR = pd.Timestamp("2024-11-30 23:00", tz="UTC")
METRIC_IDS = {
    "row_count": "Size(*)",
    "null_ratio": "Completeness(c) (1 - x)",
    "mean": "Mean(c)",
    "distinct": "CountDistinct(user_id)",
}
# (kind, frequency, long series, short series)
CATALOGUE = (
    ("row_count", "daily", 88, 22),
    ("null_ratio", "daily", 56, 14),
    ("mean", "daily", 64, 16),
    ("distinct", "daily", 48, 12),
    ("row_count", "hourly", 50, 0),
    ("null_ratio", "hourly", 30, 0),
)
INCIDENT_COUNTS = (0, 1, 2, 3)
INCIDENT_ODDS = (0.3, 0.4, 0.2, 0.1)


@dataclass(frozen=True)
class Spec:
    id: int
    kind: str
    frequency: str
    short: bool


def specs() -> Iterator[Spec]:
    n = 0
    for kind, frequency, long_count, short_count in CATALOGUE:
        for short, count in ((False, long_count), (True, short_count)):
            for _ in range(count):
                yield Spec(n, kind, frequency, short)
                n += 1


def generate(seed: int = 0) -> list[LabeledSeries]:
    """Every series of the benchmark, the same for the same ``seed``.

    >>> series = generate()
    >>> len(series), sorted({s.info["split"] for s in series})
    (400, ['dev', 'test'])
    """
    found = [_series(spec, np.random.default_rng([seed, spec.id])) for spec in specs()]
    return _split(found, np.random.default_rng([seed, 1_000_000]))


def _split(series: list[LabeledSeries], rng: np.random.Generator) -> list[LabeledSeries]:
    """Half of every stratum (kind, frequency, short) to dev, half to test, at random."""
    strata: dict[tuple[Any, ...], list[int]] = {}
    for k, s in enumerate(series):
        strata.setdefault((s.info["kind"], s.info["frequency"], s.info["short"]), []).append(k)
    split = {}
    for members in strata.values():
        order = rng.permutation(members)
        for position, k in enumerate(order.tolist()):
            split[k] = "dev" if position % 2 == 0 else "test"
    return [
        LabeledSeries(
            s.metric_id,
            s.group,
            s.times,
            s.values,
            s.incident,
            s.expected,
            s.excluded,
            {**s.info, "split": split[k]},
        )
        for k, s in enumerate(series)
    ]


def _series(spec: Spec, rng: np.random.Generator) -> LabeledSeries:
    hourly = spec.frequency == "hourly"
    if spec.short:
        n = int(rng.integers(7, 31))
    else:
        n = int(rng.integers(14 * 24, 29 * 24)) if hourly else int(rng.integers(60, 401))
    end = END_HOUR if hourly else END_DAY
    times = pd.date_range(end=end, periods=n, freq="h" if hourly else "D")
    settle = 24 if hourly else 7
    drift = int(rng.integers(24, 73)) if hourly else int(rng.integers(10, 31))
    plan = _plan(rng, spec, n, settle)
    incident = np.zeros(n, dtype=bool)
    expected = np.zeros(n, dtype=bool)
    spans = []
    if spec.kind in ("row_count", "distinct"):
        signal = shapes.volume(rng, times, hourly)
        values = shapes.noisy_volume(rng, signal.level, signal.noise)
        expected = signal.holiday
        for kind, t in plan:
            spans.append((kind, *volume_incident(rng, kind, values, t, settle)))
    elif spec.kind == "null_ratio":
        rows = shapes.ratio_rows(rng, times, hourly)
        p = np.full(n, shapes.null_probability(rng))
        for kind, t in plan:
            spans.append((kind, *null_incident(rng, kind, p, t, settle, drift)))
        values = shapes.null_ratio(rng, rows, np.clip(p, 0.0, 1.0))
    else:
        values, _, sd = shapes.column_mean(rng, times, hourly)
        for kind, t in plan:
            spans.append((kind, *mean_incident(rng, kind, values, sd, t, settle, drift)))
    for _, first, last in spans:
        incident[first : last + 1] = True
    info = {
        "id": spec.id,
        "kind": spec.kind,
        "frequency": spec.frequency,
        "short": spec.short,
        "incidents": [{"type": k, "first": f, "last": last} for k, f, last in spans],
    }
    return LabeledSeries.build(
        METRIC_IDS[spec.kind], pd.Series(values, index=times), group={"series": str(spec.id)},
        incident=incident, expected=expected & ~incident, info=info,
    )  # fmt: skip


def _plan(rng: np.random.Generator, spec: Spec, n: int, settle: int) -> list[tuple[str, int]]:
    """Incident types and positions: after enough history, apart, a persistent one last."""
    count = int(rng.choice(INCIDENT_COUNTS, p=INCIDENT_ODDS))
    if spec.short:
        count = min(count, 1)
        low = max(3, n // 2)
    else:
        low = max(14 * (24 if spec.frequency == "hourly" else 1) // 2, int(0.3 * n))
    gap = 3 * settle
    types = [str(t) for t in rng.choice(TYPES[spec.kind], size=count)]
    # At most one persistent incident, and it comes last: nothing after it is on the old level.
    types = [t for t in types if t not in PERSISTENT] + [t for t in types if t in PERSISTENT][:1]
    slots = n - 1 - low - gap * (len(types) - 1)
    if not types or slots < len(types):
        return []
    starts = np.sort(rng.choice(slots, size=len(types), replace=False))
    return [
        (kind, low + int(s) + gap * k)
        for k, (kind, s) in enumerate(zip(types, starts, strict=True))
    ]
