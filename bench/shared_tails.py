"""Benchmark: what sharing tail heaviness across series (``Adaptive(share_tails=True)``, the
default) does to detection, on the series of ``bench/detection_quality.py``.

That benchmark backtests every series on its own, so sharing never happens there. Here the
series of each family (all the row counts, all the hourly flights, ...; the 7-30 point ones left
out) are judged walk-forward in one call (``anomaly.backtest`` replays a tail-sharing detector's
series together, as a scan judges the groups of a metric), once with ``share_tails=False``
(exactly the verdicts of the per-series replay) and once with the default; scored the same way,
per family and in total, on the development and the held-out split. Nothing was chosen on these
numbers (``detectors/adaptive/pooling.py`` was built on ``bench/calibration.py``).

    python3 bench/shared_tails.py            # writes bench/results/shared_tails.json
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from common import print_table, write_results  # puts the repository root first on sys.path
from detection_quality import _dataset

from anomaly.backtest import LabeledSeries, Score, backtest
from anomaly.backtest.scoring import score
from detectors import Adaptive


def judged_together(family: list[LabeledSeries], share: bool) -> tuple[Score, Score]:
    """The family's score (all series, and those without incidents) judged in one call: a
    backtest replays a tail-sharing detector's series together, as the scan judges groups."""
    result = backtest(family, {"adaptive": Adaptive(share_tails=share)}, labels=None)
    clean = Score()
    for k, one in enumerate(family):
        if not one.info["incidents"]:
            ev = result.evaluations[("adaptive", k)]
            at = ev.index
            clean += score(ev.codes, one.incident[at], one.expected[at], one.times[at])[0]
    return result.score("adaptive"), clean


def row(name: str, scores: dict[bool, tuple[Score, Score]]) -> dict[str, Any]:
    def part(total: Score, clean: Score) -> dict[str, float]:
        return {"f1": total.f1, "precision": total.precision, "recall": total.recall,
                "false_alerts_per_100_checks_clean": 100 * clean.false_alert_rate}  # fmt: skip

    return {"family": name, "alone": part(*scores[False]), "together": part(*scores[True])}


def main() -> None:
    series = _dataset()
    payload: dict[str, Any] = {}
    for split in ("dev", "test"):
        families: dict[str, list[LabeledSeries]] = defaultdict(list)
        for one in series:
            if one.info["split"] == split and not one.info["short"]:
                families[one.info["family"]].append(one)
        rows, sums = [], {share: (Score(), Score()) for share in (False, True)}
        for name, family in sorted(families.items()):
            scores = {share: judged_together(family, share) for share in (False, True)}
            for share, (total, clean) in scores.items():
                sums[share] = (sums[share][0] + total, sums[share][1] + clean)
            rows.append(row(f"{name} ({len(family)})", scores))
        rows.append(row("all", sums))
        payload[split] = rows
        print(f"\n{split}: F1 / false alerts per 100 clean checks")
        print_table(
            ["family (series)", "alone F1", "alone FA", "together F1", "together FA"],
            [[r["family"], f"{r['alone']['f1']:.3f}",
              f"{r['alone']['false_alerts_per_100_checks_clean']:.3f}",
              f"{r['together']['f1']:.3f}",
              f"{r['together']['false_alerts_per_100_checks_clean']:.3f}"] for r in rows],
        )  # fmt: skip
    print(f"\nwrote {write_results('shared_tails', payload)}")


if __name__ == "__main__":
    main()
