"""Scoring a detector change on development data: a candidate's operating curves next to the best
peer's from the committed results (``bench/daily.py`` has the regime and the sweeps).

From the repository root::

    import sys; sys.path.append("bench")
    from daily_candidate import evaluate
    from detectors import Adaptive
    table = evaluate(lambda rate: Adaptive(false_alarm_rate=rate))        # split="dev"
    table = evaluate(lambda rate: Adaptive(false_alarm_rate=rate), quick=True)  # 1/4, faster
    table = across_draws(lambda rate: Adaptive(false_alarm_rate=rate))  # dev, dev2-dev4 pooled
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from common import RESULTS, print_table
from daily import (
    _EXTRA,
    FAR_LEVELS,
    RATE_KEYS,
    SERIES_PER_FAMILY,
    SPECS,
    Spec,
    measure,
    peers,
    pooled,
    summarise,
)
from data.daily import DEV_DRAWS


def best_peers(split: str, quick: bool) -> dict[str, Any]:
    """Per family, the best peer's recall at each matched rate and the best peer F1, from the
    committed results (empty when the daily section has not been run)."""
    path = RESULTS / "detection_quality.json"
    section = json.loads(path.read_text()).get("daily", {}) if path.exists() else {}
    summary = section.get(f"{split}_quick" if quick else split, {}).get("summary", {})
    out: dict[str, Any] = {}
    if not summary:  # a split whose peers were never run (a further development draw)
        return out
    for name in peers([n for n in summary if n in SPECS]):
        for family, row in summary[name].items():
            entry = out.setdefault(family, {"best_peer_recall_at": {}, "best_peer_f1": (-1, "")})
            for rate in RATE_KEYS:
                recall = row["recall_at"][rate]["recall"]
                if recall > entry["best_peer_recall_at"].get(rate, (-1, ""))[0]:
                    entry["best_peer_recall_at"][rate] = (recall, name)
            if row["best_f1"]["f1"] > entry["best_peer_f1"][0]:
                entry["best_peer_f1"] = (row["best_f1"]["f1"], name)
    return out


def print_candidate(table: dict[str, Any], split: str, quick: bool, seconds: float) -> None:
    print(
        f"candidate on {split}{' (quick)' if quick else ''}, {seconds:.0f} s: recall at "
        "matched false alerts per 100 clean checks (best peer's in brackets)"
    )
    rows = []
    for family, row in sorted(table.items()):
        peer = row.get("best_peer_recall_at", {})
        cells = [
            f"{row['recall_at'][r]['recall']:.2f} ({peer[r][0]:.2f})"
            if r in peer
            else f"{row['recall_at'][r]['recall']:.2f}"
            for r in RATE_KEYS
        ]
        f1 = row["defaults"]["default"]["f1"]
        best = row.get("best_peer_f1", (float("nan"), ""))[0]
        rows.append([family, *cells, f"{f1:.2f} ({best:.2f})"])
    print_table(["family", *(f"@{r}" for r in RATE_KEYS), "F1 default (best peer F1)"], rows)


def verdict(table: dict[str, Any]) -> dict[str, Any]:
    """Per family, the issue's targets for the candidate against the best peer, as
    ``daily.<split>.verdict`` of the JSON gives them for ``Adaptive()`` (every cell at least the
    best peer's, at most one tie, F1 at the default >= the best peer's best F1 + 0.05)."""
    out = {}
    for family, row in table.items():
        peer = row.get("best_peer_recall_at", {})
        cells = {
            rate: {
                "default": row["recall_at"][rate]["recall"],
                "best_peer": peer.get(rate, (0.0, ""))[0],
                "peer": peer.get(rate, (0.0, ""))[1],
                "ok": row["recall_at"][rate]["recall"] >= peer.get(rate, (0.0, ""))[0],
            }
            for rate in RATE_KEYS
        }
        ties = sum(c["default"] == c["best_peer"] for c in cells.values())
        f1 = row["defaults"]["default"]["f1"]
        best_f1, by = row.get("best_peer_f1", (0.0, ""))
        out[family] = {
            "recall": cells,
            "ties": ties,
            "f1_default": f1,
            "best_peer_f1": best_f1,
            "best_peer_f1_by": by,
            "met": all(c["ok"] for c in cells.values()) and ties <= 1 and f1 >= best_f1 + 0.05,
        }
    return out


def print_verdict(found: dict[str, Any]) -> None:
    """One line per family: candidate / best peer at each rate (``!`` lower), F1, met."""
    for family, row in sorted(found.items(), key=lambda item: item[0] != "all"):
        cells = " ".join(
            f"@{rate} {c['default']:.2f}/{c['best_peer']:.2f}{'' if c['ok'] else '!'}"
            for rate, c in row["recall"].items()
        )
        print(
            f"{family:20} {cells}  F1 {row['f1_default']:.2f}/{row['best_peer_f1']:.2f}"
            f" ties {row['ties']} {'met' if row['met'] else 'NOT met'}"
        )


def evaluate(
    factory: Callable[[Any], Any],
    levels: Sequence[Any] = FAR_LEVELS,
    *,
    default: Any = 0.001,
    split: str = "dev",
    quick: bool = False,
    jobs: int = 2,
    show: bool = True,
) -> dict[str, Any]:
    """Score a candidate detector (``factory(level)`` for each sensitivity level) on ``split``
    (development data unless told otherwise) next to the best peer of the committed results.

    Returns ``{family: {"recall_at": {rate: {"recall", "level"}}, "defaults": {"default": {f1,
    recall, fa_per_100, precision}}, "best_f1": ..., "best_peer_recall_at": {rate: (recall,
    peer)}, "best_peer_f1": (f1, peer)}}``.
    """
    per_family = SERIES_PER_FAMILY // 4 if quick else SERIES_PER_FAMILY
    table, seconds = _candidate(factory, levels, default, [split], per_family, jobs)
    return _next_to_peers(table, (split, quick), seconds, show)


def across_draws(
    factory: Callable[[Any], Any],
    levels: Sequence[Any] = FAR_LEVELS,
    *,
    default: Any = 0.001,
    jobs: int = 2,
    show: bool = True,
) -> dict[str, Any]:
    """A candidate on ``dev`` and the further development draws pooled as one set (about 200
    incidents per generated family, not 50: a gain of 0.02 on ``dev`` alone is often one
    draw's noise), next to the best peer on the same pool (the committed results'
    ``daily.dev_draws``). Returns what ``evaluate`` returns."""
    splits = ["dev", *DEV_DRAWS]
    table, seconds = _candidate(factory, levels, default, splits, SERIES_PER_FAMILY, jobs)
    return _next_to_peers(table, ("dev_draws", False), seconds, show)


def _candidate(
    factory: Callable[[Any], Any],
    levels: Sequence[Any],
    default: Any,
    splits: list[str],
    per_family: int,
    jobs: int,
) -> tuple[dict[str, Any], float]:
    """The candidate's summary per family over ``splits`` pooled (one split: as measured), and
    the seconds it took."""
    name, started = "candidate", time.perf_counter()
    _EXTRA[name] = Spec(
        factory, tuple(levels), {"default": default}, peer=False, label=lambda level: repr(level)
    )
    try:
        parts = [measure(split, [name], jobs, per_family)["curves"] for split in splits]
        table = summarise(pooled(parts), [name]).get(name, {})
    finally:
        _EXTRA.pop(name)
    return table, time.perf_counter() - started


def _next_to_peers(
    table: dict[str, Any], peers_of: tuple[str, bool], seconds: float, show: bool
) -> dict[str, Any]:
    """``table`` with the best peer's cells of the committed results' ``peers_of`` (split,
    quick), printed with the targets when ``show``."""
    peers = best_peers(*peers_of)
    for family, row in table.items():
        row.update(peers.get(family, {}))
    if show:
        print_candidate(table, *peers_of, seconds)
        print_verdict(verdict(table))
    return table
