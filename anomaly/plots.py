"""PNG plots of a metric's history: the series, the expected band, anomalies and annotated points
marked.

Drawn with Matplotlib's Agg canvas directly (no pyplot, no global backend change), one panel
per group, or only the chosen group, in the colours and markers of :mod:`anomaly.chart_style`
(the report's charts use the same).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anomaly.chart_style import ANNOTATION_MARKERS as _MARKER_NAMES
from anomaly.chart_style import BAND_ALPHA, COLORS, FRAME, matplotlib_marker
from anomaly.judging.history import group_of as group_values
from anomaly.judging.queries import QueryError, metric_points, verdict_rows
from anomaly.judging.tables import group_label
from repository import MetricsRepository

MAX_PANELS = 12
ANNOTATION_MARKERS = {
    kind: (matplotlib_marker(marker), COLORS[kind]) for kind, marker in _MARKER_NAMES.items()
}
"""Marker and colour of the points each annotation kind covers (hollow, drawn over the series)."""


def plot_metric(
    repo: MetricsRepository,
    metric: str,
    path: str | os.PathLike[str],
    *,
    tags: Mapping[str, str] | None = None,
    group: Mapping[str, str | None] | None = None,
    title: str | None = None,
    max_panels: int = MAX_PANELS,
) -> Path:
    """Write a PNG of `metric`'s stored series per group with the band its detector expected,
    its anomalies and the points annotations cover (``repo.annotate``); returns the path.
    Groups with anomalies come first when there are more than `max_panels`.

    Examples
    --------
    >>> import tempfile
    >>> from datetime import datetime, timezone
    >>> from repository import AnomalyVerdict, MetricRecord, ResultKey
    >>> repo = MetricsRepository(":memory:")
    >>> for day, value in enumerate([10.0, 11.0, 9.0, 30.0], start=1):
    ...     key = ResultKey(datetime(2026, 3, day, tzinfo=timezone.utc), {"dataset": "d"})
    ...     status = "anomaly" if value > 20 else "normal"
    ...     repo.save(key, [MetricRecord("Dataset", "*", "Size", "Size(*)", value)],
    ...               verdicts=[AnomalyVerdict("Size(*)", status, "RobustMAD", value, 8.0, 12.0)])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = plot_metric(repo, "Size(*)", Path(tmp) / "size.png")
    ...     png.read_bytes()[:4]
    b'\\x89PNG'
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
    from matplotlib.figure import Figure

    points = metric_points(repo, metric, tags, group)
    if points.empty:
        raise QueryError(f"{metric} has no stored points{' for this group' if group else ''}")
    verdicts = verdict_rows(repo, [metric], tags, group)
    anomalous = set(verdicts.loc[verdicts["status"] == "anomaly", "group"])
    groups = sorted(points["group"].unique(), key=lambda g: (g not in anomalous, g))
    shown = groups[:max_panels]
    figure = Figure(figsize=(10, 1.0 + 2.2 * len(shown)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(len(shown), 1, sharex=True, squeeze=False)[:, 0]
    for ax, key in zip(axes, shown, strict=True):
        _panel(ax, points[points["group"] == key], verdicts[verdicts["group"] == key])
        ax.set_title(group_label(group_values(key)), loc="left", fontsize=10)
    locator = AutoDateLocator()
    axes[-1].xaxis.set_major_locator(locator)
    axes[-1].xaxis.set_major_formatter(ConciseDateFormatter(locator))
    labelled: dict[str, Any] = {}  # each label once, from whichever panel has it
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            labelled.setdefault(label, handle)
    axes[0].legend(labelled.values(), labelled.keys(), loc="upper left", fontsize=8, ncols=3)
    more = f" (showing {len(shown)} of {len(groups)} groups)" if len(groups) > len(shown) else ""
    figure.suptitle(f"{title or metric}{more}", fontsize=12)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(target, dpi=100)
    return target


def _panel(ax: Any, points: pd.DataFrame, verdicts: pd.DataFrame) -> None:
    times = points["timestamp"].dt.tz_localize(None)
    ax.plot(
        times,
        points["value"],
        color=COLORS["value"],
        linewidth=1.2,
        marker=".",
        markersize=3,
        label="value",
    )
    judged = verdicts.dropna(subset=["lower", "upper"], how="all").sort_values("timestamp")
    if not judged.empty:
        when = judged["timestamp"].dt.tz_localize(None)
        lower, upper = _finite(judged["lower"]), _finite(judged["upper"])
        both = ~np.isnan(lower) & ~np.isnan(upper)
        ax.fill_between(
            when,
            lower,
            upper,
            where=both,
            color=COLORS["band"],
            alpha=BAND_ALPHA,
            linewidth=0,
            label="expected band",
        )
        for side in (lower, upper):
            ax.plot(when, side, color=COLORS["band"], linewidth=0.8, linestyle="--")
    flagged = verdicts[verdicts["status"] == "anomaly"]
    if not flagged.empty:
        ax.scatter(
            flagged["timestamp"].dt.tz_localize(None),
            flagged["value"],
            s=40,
            color=COLORS["anomaly"],
            edgecolors="white",
            zorder=3,
            label="anomaly",
        )
    kinds = points["annotations"].str.split(", ")
    for kind, (marker, colour) in ANNOTATION_MARKERS.items():
        marked = points[kinds.map(lambda found, kind=kind: kind in found)]
        if not marked.empty:
            ax.scatter(
                marked["timestamp"].dt.tz_localize(None),
                marked["value"],
                s=90,
                marker=marker,
                facecolors="none",
                edgecolors=colour,
                linewidths=1.5,
                zorder=4,
                label=kind,
            )
    ax.grid(color=FRAME["grid"])


def _finite(values: pd.Series) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    return np.where([math.isfinite(v) for v in array], array, np.nan)
