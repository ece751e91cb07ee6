"""The benchmark's labelled metric histories: deterministic, several hundred series, daily and
hourly, long and short, synthetic and real, split once into a development and a held-out half.

Every series is a ``LabeledSeries`` whose ``info`` says its ``id``, ``family`` (what the report
groups by), ``kind`` (row_count, null_ratio, mean, distinct, heavy_tailed, small_counts,
growing_table, or the real source's kind), ``frequency`` (daily, hourly), ``short`` (7-30 points:
a new dataset), ``split`` (dev, test) and ``incidents`` (type, first and last labelled
position). The first 400 series are the original generator's (same seeds, same split); the
families added later follow them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anomaly.backtest import LabeledSeries

from . import families, real, shapes
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
NEW_FAMILIES = (("heavy_tailed", 60), ("small_counts", 60), ("growing_table", 60))
FIRST_NEW_ID = 400


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


def generate(seed: int = 0, *, real_series: bool = True) -> list[LabeledSeries]:
    """Every series of the benchmark, the same for the same ``seed``.

    >>> series = generate(real_series=False)
    >>> len(series), sorted({s.info["split"] for s in series})
    (580, ['dev', 'test'])
    """
    found = [_series(spec, np.random.default_rng([seed, spec.id])) for spec in specs()]
    original = _split(found, np.random.default_rng([seed, 1_000_000]))
    added = [*_new_families(seed), *(_real(seed) if real_series else [])]
    return original + _split(added, np.random.default_rng([seed, 2_000_000]), first=len(found))


HELD_OUT_SEEDS = (2, 3)
REAL_HELD_OUT_SEEDS = (2, 3, 4, 5, 6, 7, 8, 9)
"""The real families have a few dozen series each: eight draws of incidents give them enough
incidents for an F1 of their own (the generated families have hundreds of series)."""
HELD_OUT_IDS = 100_000


def benchmark(*, real_series: bool = True) -> list[LabeledSeries]:
    """The development data and the held-out split of the detection benchmark.

    The first round split ``generate(0)`` into halves; its held-out half was looked at while
    ``Adaptive`` was built, so both halves are development data now. The test half of
    ``generate(1)`` was the held-out split of the next measurements and was looked at family by
    family, so it is retired. The held-out split is the test halves of ``generate(2)`` and
    ``generate(3)``: new draws of every generated family; and the real series of the test halves
    of ``generate(2)`` to ``generate(9)``: new incidents at new places in the real series (whose
    values are the same public data). Ids of held-out series start at ``HELD_OUT_IDS``.
    """
    dev = [_relabelled(s, "dev", 0) for s in generate(0, real_series=real_series)]
    test = [
        _relabelled(s, "test", HELD_OUT_IDS * (draw + 1))
        for draw, seed in enumerate(REAL_HELD_OUT_SEEDS if real_series else HELD_OUT_SEEDS)
        for s in generate(seed, real_series=real_series)
        if s.info["split"] == "test" and (seed in HELD_OUT_SEEDS or "source" in s.info)
    ]
    return dev + test


def _relabelled(s: LabeledSeries, split: str, ids: int) -> LabeledSeries:
    info = {**s.info, "split": split, "id": ids + s.info["id"]}
    return LabeledSeries(
        s.metric_id, s.group, s.times, s.values, s.incident, s.expected, s.excluded, info
    )


def _split(
    series: list[LabeledSeries], rng: np.random.Generator, first: int = 0
) -> list[LabeledSeries]:
    """Half of every stratum (kind, frequency, short; source for real series) to dev, half to
    test, at random; ids from ``first``."""
    strata: dict[tuple[Any, ...], list[int]] = {}
    for k, s in enumerate(series):
        info = s.info
        key = (info["kind"], info["frequency"], info["short"], info.get("source"))
        strata.setdefault(key, []).append(k)
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
            {**s.info, "split": split[k], "id": first + k, "family": family_of(s.info)},
        )
        for k, s in enumerate(series)
    ]


def family_of(info: dict[str, Any]) -> str:
    """The family a series is reported in: its kind and frequency, ``short`` for new datasets
    of any kind, ``real/<source>`` for real series."""
    if "source" in info:
        return f"real/{info['source']}"
    if info["short"]:
        return "short (7-30 points)"
    return f"{info['kind']}/{info['frequency']}"


def _new_families(seed: int) -> Iterator[LabeledSeries]:
    number = FIRST_NEW_ID
    for family, count in NEW_FAMILIES:
        for _ in range(count):
            rng = np.random.default_rng([seed, number])
            n = int(rng.integers(60, 401))
            times = pd.date_range(end=END_DAY, periods=n, freq="D")
            values = families.MAKE[family](rng, times)
            count_incidents = int(rng.choice(INCIDENT_COUNTS, p=INCIDENT_ODDS))
            spans = []
            for t in _positions(rng, n, 7, count_incidents):
                spans.append(families.inject(rng, family, values, t))
            yield _labelled(family, "daily", times, values, spans, rng, number, family)
            number += 1


def _real(seed: int) -> Iterator[LabeledSeries]:
    for number, (source, kind, times, values) in enumerate(real.load(), start=10_000):
        rng = np.random.default_rng([seed, number])
        present = np.isfinite(values)
        times, values = times[present], values[present]
        hourly = bool(np.median(np.diff(times.asi8)) < 86_400e9)
        settle = 24 if hourly else 7
        values = values.copy()
        spans = []
        positions = _positions(rng, len(values), settle,
                               int(rng.choice(INCIDENT_COUNTS, p=INCIDENT_ODDS)))  # fmt: skip
        for t in positions:
            before = values.copy()
            span = _real_incident(rng, kind, values, t, settle)
            # An incident that changes nothing (a lost load in an hour without flights) is not
            # one: no detector could see it, so it is not labelled.
            if not np.array_equal(before[t : span[2] + 1], values[t : span[2] + 1]):
                spans.append(span)
        info_kind = {"volume": "row_count", "heavy": "heavy_tailed", "temperature": "mean"}[kind]
        expected = real.holidays(times) if source in real.HOLIDAY_FAMILIES else None
        yield _labelled(info_kind, "hourly" if hourly else "daily", times, values, spans, rng,
                        number, source, expected)  # fmt: skip


def _real_incident(
    rng: np.random.Generator, kind: str, values: np.ndarray, t: int, settle: int
) -> tuple[str, int, int]:
    if kind == "volume":
        incident = str(rng.choice(TYPES["row_count"]))
        return (incident, *volume_incident(rng, incident, values, t, settle))
    if kind == "heavy":
        incident = str(rng.choice(families.TYPES["heavy_tailed"]))
        return (incident, *families.INJECT["heavy_tailed"](rng, incident, values, t))
    return (*_temperature_incident(rng, values, t, settle),)


def _temperature_incident(
    rng: np.random.Generator, values: np.ndarray, t: int, settle: int
) -> tuple[str, int, int]:
    """A sensor reporting Celsius instead of Fahrenheit, stuck at one value for half a day, or
    one wild reading."""
    n = len(values)
    kind = str(rng.choice(["unit_change", "stuck", "spike"]))
    if kind == "unit_change":
        values[t:] = (values[t:] - 32.0) * 5.0 / 9.0
        return kind, t, min(n - 1, t + settle - 1)
    if kind == "stuck":
        last = min(n - 1, t + 11)
        values[t : last + 1] = values[t - 1]
        return kind, t, last
    values[t] += (1 if rng.random() < 0.5 else -1) * rng.uniform(30, 60)
    return kind, t, t


def _positions(rng: np.random.Generator, n: int, settle: int, count: int) -> list[int]:
    """Where ``count`` incidents start: after enough history, apart (the last may persist)."""
    low = max(14 * max(settle // 7, 1) // 2 + settle, int(0.3 * n))
    gap = 3 * settle
    slots = n - 1 - low - gap * (count - 1)
    if count == 0 or slots < count:
        return []
    starts = np.sort(rng.choice(slots, size=count, replace=False))
    return [low + int(s) + gap * k for k, s in enumerate(starts)]


def _labelled(
    kind: str,
    frequency: str,
    times: pd.DatetimeIndex,
    values: np.ndarray,
    spans: list[tuple[str, int, int]],
    rng: np.random.Generator,
    number: int,
    source: str,
    expected: np.ndarray | None = None,
) -> LabeledSeries:
    # Persistent incidents come last in ``_positions``; later spans would sit on a new level.
    n = len(values)
    incident = np.zeros(n, dtype=bool)
    for _, first, last in spans:
        incident[first : last + 1] = True
    info: dict[str, Any] = {
        "id": number,
        "kind": kind,
        "frequency": frequency,
        "short": False,
        "incidents": [{"type": k, "first": f, "last": last} for k, f, last in spans],
    }
    if source in real.KINDS:
        info["source"] = source
    return LabeledSeries.build(
        METRIC_IDS.get(kind, kind), pd.Series(values, index=times), group={"series": str(number)},
        incident=incident, info=info,
        expected=None if expected is None else expected & ~incident,
    )  # fmt: skip


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
