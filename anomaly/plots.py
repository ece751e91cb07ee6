"""PNG plots of a metric's history: the series, the expected band, anomalies and annotated points
marked.

Drawn with Matplotlib's Agg canvas directly (no pyplot, no global backend change), one panel
per group, or only the chosen group, in the colours and markers of :mod:`anomaly.chart_style`
(the report's charts use the same). The value axis follows the values (:mod:`anomaly.chart_scale`):
a band far beyond them is cut at the axis, with triangles where it goes on; bands are clipped
to the metric's domain and durations shown in s, min, h or d.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anomaly.chart_scale import ChartScale, chart_scale, clip_band, significant
from anomaly.chart_style import ANNOTATION_MARKERS as _MARKER_NAMES
from anomaly.chart_style import BAND_ALPHA, COLORS, FRAME, matplotlib_marker
from anomaly.judging.history import group_of as group_values
from anomaly.judging.queries import QueryError, metric_points, verdict_rows
from anomaly.judging.tables import group_label
from anomaly.metric_domain import MetricDomain, metric_domain
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
    domain = metric_domain(metric)
    figure = Figure(figsize=(10, 1.0 + 2.2 * len(shown)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(len(shown), 1, sharex=True, squeeze=False)[:, 0]
    for ax, key in zip(axes, shown, strict=True):
        _panel(ax, points[points["group"] == key], verdicts[verdicts["group"] == key], domain)
        ax.set_title(group_label(group_values(key)), loc="left", fontsize=10)
    locator = AutoDateLocator()
    axes[-1].xaxis.set_major_locator(locator)
    axes[-1].xaxis.set_major_formatter(ConciseDateFormatter(locator))
    labelled: dict[str, Any] = {}  # each label once, from whichever panel has it
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            labelled.setdefault(label, handle)
    figure.legend(  # outside the panels: it never hides a point
        labelled.values(), labelled.keys(), loc="outside upper right", fontsize=8, ncols=6
    )
    more = f" (showing {len(shown)} of {len(groups)} groups)" if len(groups) > len(shown) else ""
    figure.suptitle(f"{title or metric}{more}", fontsize=12, x=0.01, ha="left")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(target, dpi=100)
    return target


def _panel(ax: Any, points: pd.DataFrame, verdicts: pd.DataFrame, domain: MetricDomain) -> None:
    judged = verdicts.dropna(subset=["lower", "upper"], how="all").sort_values("timestamp")
    lower, upper = clip_band(judged["lower"], judged["upper"], domain)
    scale = chart_scale(points["value"], lower, upper, domain)
    times = points["timestamp"].dt.tz_localize(None)
    ax.plot(
        times,
        points["value"] / scale.size,
        color=COLORS["value"],
        linewidth=1.2,
        marker=".",
        markersize=3,
        label="value",
    )
    if not judged.empty:
        draw_band(ax, judged["timestamp"].dt.tz_localize(None), lower, upper, scale)
    flagged = verdicts[verdicts["status"] == "anomaly"]
    if not flagged.empty:
        ax.scatter(
            flagged["timestamp"].dt.tz_localize(None),
            flagged["value"] / scale.size,
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
                marked["value"] / scale.size,
                s=90,
                marker=marker,
                facecolors="none",
                edgecolors=colour,
                linewidths=1.5,
                zorder=4,
                label=kind,
            )
    ax.grid(color=FRAME["grid"])
    set_value_axis(ax, scale)


def draw_band(ax: Any, when: Any, lower: np.ndarray, upper: np.ndarray, scale: ChartScale) -> None:
    """Shade the band (clipped to the metric's domain, in stored units) within `scale`'s axis: a
    one-sided band up to the axis' edge, a band beyond the axis cut there, with a triangle at
    each point where it goes on."""
    axis = scale.axis
    lo, hi = lower / scale.size, upper / scale.size
    some = ~np.isnan(lo) | ~np.isnan(hi)
    ax.fill_between(
        when,
        axis.inside(np.where(np.isnan(lo), axis.low, lo)),
        axis.inside(np.where(np.isnan(hi), axis.high, hi)),
        where=some,
        color=COLORS["band"],
        alpha=BAND_ALPHA,
        linewidth=0,
        label="expected band",
    )
    for side in (lo, hi):  # the edges, left out where they leave the axis
        shown = np.where((side < axis.low) | (side > axis.high), np.nan, side)
        ax.plot(when, shown, color=COLORS["band"], linewidth=0.8, linestyle="--")
    above, below = axis.cut_points(lo, hi)
    inset = (axis.high - axis.low) * 0.04
    for cut, y, marker, label in (
        (above, axis.high - inset, "^", "band goes on above"),
        (below, axis.low + inset, "v", "band goes on below"),
    ):
        if cut.any():
            ax.scatter(
                np.asarray(when)[cut],
                np.full(int(cut.sum()), y),
                marker=marker,
                s=22,
                color=COLORS["band"],
                edgecolors=COLORS["value"],
                linewidths=0.5,
                zorder=3,
                label=label,
            )


def set_value_axis(ax: Any, scale: ChartScale) -> None:
    """Limit the y axis to `scale`'s axis, with plain numbers (no offset, no exponent) and the
    unit of durations as its label."""
    from matplotlib.ticker import FuncFormatter

    ax.set_ylim(scale.axis.low, scale.axis.high)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: significant(value, 4)))
    if scale.unit:
        ax.set_ylabel(scale.unit, fontsize=9)
