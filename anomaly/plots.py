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
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from anomaly.chart_scale import ChartScale, chart_scale, clip_band, significant
from anomaly.chart_style import ANNOTATION_MARKERS as _MARKER_NAMES
from anomaly.chart_style import BAND_ALPHA, COLORS, FRAME, matplotlib_marker
from anomaly.judging.queries import Point, QueryError, metric_points, verdict_rows
from anomaly.judging.tables import group_label
from anomaly.metric_domain import MetricDomain, metric_domain
from repository import MetricsRepository
from repository.keys import group_of

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
    if not points:
        raise QueryError(f"{metric} has no stored points{' for this group' if group else ''}")
    verdicts = verdict_rows(repo, [metric], tags, group)
    anomalous = {v["group"] for v in verdicts if v["status"] == "anomaly"}
    groups = sorted({p.group for p in points}, key=lambda g: (g not in anomalous, g))
    shown = groups[:max_panels]
    domain = metric_domain(metric)
    figure = Figure(figsize=(10, 1.0 + 2.2 * len(shown)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(len(shown), 1, sharex=True, squeeze=False)[:, 0]
    for ax, key in zip(axes, shown, strict=True):
        of_group = [v for v in verdicts if v["group"] == key]
        _panel(ax, [p for p in points if p.group == key], of_group, domain)
        ax.set_title(group_label(group_of(key)), loc="left", fontsize=10)
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


def _panel(
    ax: Any, points: list[Point], verdicts: list[dict[str, Any]], domain: MetricDomain
) -> None:
    judged = sorted(
        (v for v in verdicts if _known(v["lower"]) or _known(v["upper"])),
        key=lambda v: v["timestamp"],
    )
    lower, upper = clip_band([v["lower"] for v in judged], [v["upper"] for v in judged], domain)
    values = np.array([p.value for p in points], dtype=float)
    scale = chart_scale(values, lower, upper, domain)
    ax.plot(
        _naive([p.timestamp for p in points]),
        values / scale.size,
        color=COLORS["value"],
        linewidth=1.2,
        marker=".",
        markersize=3,
        label="value",
    )
    if judged:
        draw_band(ax, _naive([v["timestamp"] for v in judged]), lower, upper, scale)
    flagged = [v for v in verdicts if v["status"] == "anomaly"]
    if flagged:
        ax.scatter(
            _naive([v["timestamp"] for v in flagged]),
            np.array([v["value"] for v in flagged], dtype=float) / scale.size,
            s=40,
            color=COLORS["anomaly"],
            edgecolors="white",
            zorder=3,
            label="anomaly",
        )
    for kind, (marker, colour) in ANNOTATION_MARKERS.items():
        marked = [p for p in points if kind in p.annotations.split(", ")]
        if marked:
            ax.scatter(
                _naive([p.timestamp for p in marked]),
                np.array([p.value for p in marked], dtype=float) / scale.size,
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


def _known(edge: float | None) -> bool:
    return edge is not None and not np.isnan(edge)


def _naive(times: list[datetime]) -> np.ndarray:
    """UTC times as the wall-clock times Matplotlib draws (no time zone on the axis)."""
    return np.array([t.replace(tzinfo=None) for t in times], dtype="datetime64[us]")


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
