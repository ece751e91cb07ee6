"""A PNG of a backtest: each series with its labels, and every detector's alerts marked.

Drawn on Matplotlib's Agg canvas directly (no pyplot, no global backend change), in the colours
and markers of :mod:`anomaly.chart_style`. It needs only what a replay holds
(:class:`Replayed`), so it does not import the result class that offers it as a method.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from anomaly.backtest.scoring import incidents
from anomaly.backtest.series import LabeledSeries
from anomaly.chart_scale import chart_scale, clip_band
from anomaly.chart_style import (
    ALERT_MARKERS,
    ANNOTATION_MARKERS,
    COLORS,
    FRAME,
    SPAN_ALPHA,
    alert_style,
    matplotlib_marker,
)
from anomaly.metric_domain import metric_domain
from anomaly.plots import draw_band, set_value_axis
from detectors import Evaluation
from detectors.evaluation import ANOMALY

MARKERS = tuple(matplotlib_marker(name) for name in ALERT_MARKERS)
"""Matplotlib markers of the detectors' alerts, in turn."""


class Replayed(Protocol):
    """What a backtest plot draws (:class:`~anomaly.backtest.result.BacktestResult` has it)."""

    @property
    def detectors(self) -> Mapping[str, Any]: ...

    @property
    def series(self) -> Sequence[LabeledSeries]: ...

    @property
    def evaluations(self) -> Mapping[tuple[str, int], Evaluation]: ...


def plot_backtest(result: Replayed, path: str | os.PathLike[str], max_panels: int = 12) -> Path:
    """Write the PNG: one panel per series (series with incidents or alerts first), incidents
    shaded red, expected changes grey, excluded points crossed, the band when there is one
    detector; returns the path.

    Examples
    --------
    >>> import tempfile
    >>> from anomaly.backtest import backtest
    >>> from detectors import OnlineNormal
    >>> points = pd.Series([10.0, 11, 9, 10, 11, 10, 40, 10],
    ...                    index=pd.date_range("2024-05-01", periods=8, tz="UTC"))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = backtest(points, OnlineNormal()).plot(Path(tmp) / "backtest.png")
    ...     png.read_bytes()[:4]
    b'\\x89PNG'
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = list(result.detectors)
    order = sorted(range(len(result.series)), key=lambda k: -_interest(result, names, k))
    shown = order[:max_panels]
    figure = Figure(figsize=(13, 2.6 * max(1, len(shown))), layout="constrained")
    FigureCanvasAgg(figure)
    legend: dict[str, Any] = {}
    for panel, k in enumerate(shown, start=1):
        axes = figure.add_subplot(len(shown), 1, panel)
        _panel(axes, result, names, k)
        for handle, label in zip(*axes.get_legend_handles_labels(), strict=True):
            legend.setdefault(label, handle)
    if shown:
        figure.axes[0].legend(
            legend.values(),
            legend.keys(),
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            fontsize="small",
        )
    if not shown:
        figure.add_subplot(1, 1, 1).set_title("no series to plot")
    hidden = len(result.series) - len(shown)
    if hidden > 0:
        figure.suptitle(f"{len(shown)} of {len(result.series)} series ({hidden} not shown)")
    target = Path(path)
    figure.savefig(target, format="png", dpi=90)
    return target


def _interest(result: Replayed, names: list[str], k: int) -> int:
    alerts = sum(int((result.evaluations[(n, k)].codes == ANOMALY).sum()) for n in names)
    return 1000 * int(result.series[k].incident.any()) + alerts


def _panel(axes: Any, result: Replayed, names: list[str], k: int) -> None:
    one = result.series[k]
    times = one.times
    domain = metric_domain(one.metric_id)
    band = result.evaluations[(names[0], k)] if len(names) == 1 else None
    lower, upper = clip_band(
        [] if band is None else band.lower, [] if band is None else band.upper, domain
    )
    scale = chart_scale(one.values, lower, upper, domain)
    values = np.asarray(one.values, dtype=float) / scale.size
    axes.plot(times, values, color=COLORS["value"], linewidth=1.0, label="value")
    half = _half_step(times)
    for flags, kind in ((one.incident, "incident"), (one.expected, "expected")):
        for n, (first, last) in enumerate(incidents(flags)):
            label = kind if n == 0 else None
            axes.axvspan(
                times[first] - half,
                times[last] + half,
                color=COLORS[kind],
                alpha=SPAN_ALPHA,
                label=label,
            )
    if one.excluded.any():
        axes.scatter(
            times[one.excluded],
            values[one.excluded],
            marker=matplotlib_marker(ANNOTATION_MARKERS["excluded"]),
            facecolors="none",
            edgecolors=COLORS["excluded"],
            label="excluded",
            zorder=3,
        )
    if band is not None:
        draw_band(axes, times[band.index], lower, upper, scale)
    for n, name in enumerate(names):
        ev = result.evaluations[(name, k)]
        hit = ev.index[ev.codes == ANOMALY]
        size = 90 - 50 * n / len(names)  # later detectors inside earlier ones' markers
        marker, colour = alert_style(n)
        axes.scatter(
            times[hit],
            values[hit],
            marker=matplotlib_marker(marker),
            s=size,
            facecolors="none",
            edgecolors=colour,
            linewidths=1.4,
            zorder=4,
            label=f"alert: {name}",
        )
    axes.set_title(f"{one.metric_id}  {one.group_label}", fontsize="medium", loc="left")
    axes.grid(True, color=FRAME["grid"])
    set_value_axis(axes, scale)


def _half_step(times: pd.Index) -> Any:
    """Half the typical spacing of the points, so a one-point incident still shows."""
    if len(times) < 2:
        return pd.Timedelta(hours=12) if isinstance(times, pd.DatetimeIndex) else 0.5
    steps = np.diff(np.asarray(times))
    return np.median(steps) / 2
