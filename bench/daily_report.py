"""The daily regime's run, tables, verdicts and plot (``python3 bench/detection_quality.py
--daily``; ``bench/daily.py`` has the definitions, ``bench/daily_candidate.py`` ``evaluate``)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from common import RESULTS, print_table
from daily import (
    DEFAULT,
    FA_TARGETS,
    HOLIDAYS,
    PROPHET_EVERY,
    RATE_KEYS,
    SPECS,
    curves,
    peers,
    pooled,
    run,
    summarise,
)
from data.daily import (
    DEV_DRAWS,
    DEV_SEED,
    FIRST_JUDGED,
    SERIES_PER_FAMILY,
    TEST_DRAWS,
    TEST_SEED,
    describe,
    series,
)
from data.daily_real import load

PLOT = Path(__file__).resolve().parents[1] / "docs" / "images" / "daily-operating-curves.png"


def recall_table(summary: dict[str, Any], family: str, names: list[str]) -> list[list[Any]]:
    rows = []
    for name in names:
        row = summary.get(name, {}).get(family)
        if row is None:
            continue
        first = next(iter(row["defaults"].values()))
        rows.append(
            [
                name,
                *(f"{row['recall_at'][r]['recall']:.2f}" for r in RATE_KEYS),
                f"{first['f1']:.2f} ({first['fa_per_100']:.2f})",
                f"{row['best_f1']['f1']:.2f} @ {row['best_f1']['level']}",
            ]
        )
    return rows


HEADERS = ["detector", *(f"recall @{r}" for r in RATE_KEYS), "F1 default (FA/100)", "best F1"]


def print_split(title: str, summary: dict[str, Any], names: list[str]) -> None:
    families = sorted({f for n in names for f in summary.get(n, {})}, key=lambda f: f != "all")
    for family in families:
        print(f"\n{title}: {family}")
        print_table(HEADERS, recall_table(summary, family, names))


def verdicts(summary: dict[str, Any], names: list[str], detector: str = DEFAULT) -> dict[str, Any]:
    """Per family: the issue's targets for ``detector`` (the default) against the best peer
    (ties allowed in at most one cell per family; F1 at its default rate >= the best peer's
    best F1 + 0.05)."""
    out = {}
    for family, own in summary[detector].items():
        cells, ties = {}, 0
        for rate in RATE_KEYS:
            mine = own["recall_at"][rate]["recall"]
            best = max(
                (
                    (summary[n][family]["recall_at"][rate]["recall"], n)
                    for n in peers(names)
                    if family in summary.get(n, {})
                ),
                default=(0.0, ""),
            )
            ties += mine == best[0]
            cells[rate] = {
                "default": mine,
                "best_peer": best[0],
                "peer": best[1],
                "ok": mine >= best[0],
            }
        f1 = own["defaults"]["default"]["f1"]
        best_f1 = max(
            (
                (summary[n][family]["best_f1"]["f1"], n)
                for n in peers(names)
                if family in summary.get(n, {})
            ),
            default=(0.0, ""),
        )
        out[family] = {
            "recall": cells,
            "ties": ties,
            "f1_default": f1,
            "best_peer_f1": best_f1[0],
            "best_peer_f1_by": best_f1[1],
            "met": all(c["ok"] for c in cells.values()) and ties <= 1 and f1 >= best_f1[0] + 0.05,
        }
    return out


def plot(found: dict[str, Any], names: list[str], title: str) -> Path:
    """Recall against false alerts per 100 clean checks, one panel per family."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    families = sorted({f for n in names for f in found.get(n, {})}, key=lambda f: f != "all")
    cols = 4
    rows = (len(families) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), squeeze=False)
    for ax, family in zip(axes.flat, families, strict=False):
        for name in names:
            points = sorted(found.get(name, {}).get(family, []), key=lambda r: r["fa_per_100"])
            if points:
                xs = [max(p["fa_per_100"], 0.01) for p in points]
                style = "-o" if name == DEFAULT else "--."
                ax.plot(
                    xs,
                    [p["recall"] for p in points],
                    style,
                    label=name,
                    markersize=3,
                    linewidth=2.2 if name == DEFAULT else 1.0,
                )
        for target in FA_TARGETS:
            ax.axvline(target, color="grey", linewidth=0.5, linestyle=":")
        ax.set_xscale("log")
        ax.set_xlim(0.01, 30)
        ax.set_ylim(0, 1)
        ax.set_title(family, fontsize=10)
        ax.set_xlabel("false alerts per 100 clean checks", fontsize=8)
        ax.set_ylabel("incidents found", fontsize=8)
    for ax in list(axes.flat)[len(families) :]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=9)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.06, 1, 0.97))
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(PLOT, dpi=90)
    plt.close(fig)
    return PLOT


def _quick_subset(records: list[Any], split: str) -> list[Any]:
    small = {s.info["key"] for s in series(split, SERIES_PER_FAMILY // 4)}
    full = series(split)
    return [r for r in records if full[r[0]].info["key"] in small]


def prophet_subsample(jobs: int) -> dict[str, Any]:
    """Every spec, Soda's Prophet included, on 1 in ``PROPHET_EVERY`` test series (all their
    judged points): the JSON's ``test_prophet_subsample``."""
    started = time.perf_counter()
    data = series("test")
    ids = [k for k in range(len(data)) if k % PROPHET_EVERY == 0]
    names = list(SPECS)
    found = curves(run("test", names, ids, jobs, SERIES_PER_FAMILY), "test", SERIES_PER_FAMILY)
    summary = summarise(found, names)
    print_split(f"test subsample with Prophet ({len(ids)} series)", summary, names)
    return {
        "series": len(ids),
        "incidents": sum(len(data[k].info["incidents"]) for k in ids),
        "summary": summary,
        "verdict": verdicts(summary, names),
        "seconds": round(time.perf_counter() - started, 1),
    }


def pooled_draws(
    first: tuple[str, dict[str, Any]],
    further: dict[str, int],
    stored: dict[str, Any],
    replayed: list[str],
    names: list[str],
    jobs: int,
) -> dict[str, Any]:
    """A split (``first``: its name and curves) and its ``further`` draws pooled as one set of
    about four times the incidents, with the targets on it: the JSON's ``dev_draws`` and
    ``held_out_draws``. The further draws' own pooled curves are kept (``stored``), so
    ``rerun`` replays only the specs it names."""
    split, curves_of_first = first
    stale = [n for n in names if any("detected" not in r for rows in curves_of_first.get(n, {})
                                     .values() for r in rows)]  # fmt: skip
    if stale:  # curves of a run before the counts were kept: they cannot be pooled
        print(f"{split} draws: left out (replay them to pool them): {', '.join(stale)}")
        names = [n for n in names if n not in stale]
    kept = {n: c for n, c in stored.get("curves", {}).items() if n in names and n not in replayed}
    todo = [n for n in names if n not in kept]
    parts = []
    for draw in further if todo else ():
        data = series(draw)
        parts.append(curves(run(draw, todo, list(range(len(data))), jobs, SERIES_PER_FAMILY),
                            draw, SERIES_PER_FAMILY))  # fmt: skip
    pooled_further = {**kept, **pooled(parts)}
    first_part = {n: curves_of_first[n] for n in names if n in curves_of_first}
    summary = summarise(pooled([first_part, pooled_further]), names)
    print_split(f"{split} + {', '.join(further)} pooled", summary, names)
    found = {
        "draws": [split, *further],
        "families": {d: describe(series(d)) for d in further},
        "curves": pooled_further,
        "summary": summary,
    }
    for key, detector in (("verdict", DEFAULT), ("verdict_with_calendar", HOLIDAYS)):
        if detector in summary:
            found[key] = verdicts(summary, names, detector)
    return found


def stored_section() -> dict[str, Any]:
    """The committed JSON's ``daily`` section (empty when there is none)."""
    path = RESULTS / "detection_quality.json"
    return json.loads(path.read_text()).get("daily", {}) if path.exists() else {}


def main(jobs: int, quick: bool, rerun: list[str] | None = None) -> dict[str, Any]:
    """Dev and test runs of every spec but the slow ones; prints the tables and returns the
    JSON section. ``rerun``: replay only these specs and keep the others' curves from the
    committed results (the same series: the peers' rules and data did not change)."""
    started = time.perf_counter()
    per_family = SERIES_PER_FAMILY // 4 if quick else SERIES_PER_FAMILY
    cheap = [n for n, s in SPECS.items() if not s.slow]
    stored = stored_section() if rerun else {}
    replayed = [n for n in cheap if n in rerun] if rerun else cheap
    section: dict[str, Any] = {
        "regime": {
            "points": "14-120 daily",
            "first_judged_position": FIRST_JUDGED,
            "fa_targets_per_100_clean_checks": list(FA_TARGETS),
            "matched_recall": "best recall among the sweep's operating points with false "
            "alerts per 100 clean checks <= the target (no interpolation)",
            "recall": "incidents with at least one alert on a labelled point / incidents",
            "seeds": {"dev": DEV_SEED, "test": TEST_SEED, **DEV_DRAWS, **TEST_DRAWS},
            "real_series": {
                s: sorted({r.source for r in load() if r.split == s}) for s in ("dev", "test")
            },
            "sweeps": {n: [s.label(v) for v in s.levels] for n, s in SPECS.items()},
            "defaults": {
                n: {k: s.label(v) for k, v in s.defaults.items()} for n, s in SPECS.items()
            },
        },
    }
    for split in ("dev", "test"):
        data = series(split, per_family)
        records = run(split, replayed, list(range(len(data))), jobs, per_family)
        kept = {n: c for n, c in stored.get(split, {}).get("curves", {}).items()
                if n in cheap and n not in replayed}  # fmt: skip
        found = {**kept, **curves(records, split, per_family)}
        summary = summarise(found, cheap)
        section[split] = {
            "families": describe(data),
            "summary": summary,
            "curves": found,
            "verdict": verdicts(summary, cheap),
        }
        if HOLIDAYS in summary:  # the same targets for the opt-in calendar, for comparison
            section[split]["verdict_with_calendar"] = verdicts(summary, cheap, HOLIDAYS)
        if not quick:
            small = _quick_subset(records, split)
            old = stored.get(f"{split}_quick", {}).get("summary", {})
            section[f"{split}_quick"] = {
                "summary": {
                    **{n: v for n, v in old.items() if n in kept},
                    **summarise(curves(small, split, per_family), replayed),
                }
            }
        print_split(f"{split} ({len(data)} series)", summary, cheap)
        if split == "test":
            plot(found, cheap, "daily, 14-120 points, test split: recall vs false alerts")
    if not quick:
        for key, split, further in (("dev_draws", "dev", DEV_DRAWS),
                                    ("held_out_draws", "test", TEST_DRAWS)):  # fmt: skip
            section[key] = pooled_draws((split, section[split]["curves"]), further,
                                        stored.get(key, {}), replayed, cheap, jobs)  # fmt: skip
    section["seconds"] = round(time.perf_counter() - started, 1)
    if rerun:
        section["replayed"] = replayed
        section["kept_from_the_previous_run"] = sorted(set(cheap) - set(replayed))
    return section
