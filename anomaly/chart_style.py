"""The one chart style: colours and markers of the PNG plots, the backtest plots and the report.

A metric's series, its expected band, anomalies, failures and the points annotations cover look
the same wherever they are drawn: :func:`anomaly.plots.plot_metric` and
:func:`anomaly.backtest.plot.plot_backtest` draw with Matplotlib from these values, and the
report's charts (``anomaly/report/static/charts.js``, BokehJS) read :func:`chart_style_json`,
which the page embeds. Markers are named as BokehJS names them; :func:`matplotlib_marker` gives
Matplotlib's name of each.
"""

from __future__ import annotations

from typing import Any

from repository import ANNOTATION_KINDS

__all__ = [
    "ALERT_COLORS",
    "ALERT_MARKERS",
    "ANNOTATION_MARKERS",
    "BAND_ALPHA",
    "COLORS",
    "FRAME",
    "SPAN_ALPHA",
    "alert_style",
    "chart_style_json",
    "matplotlib_marker",
]

COLORS: dict[str, str] = {
    "value": "#1c4e80",
    "band": "#7aa6d6",
    "anomaly": "#d6336c",
    "error": "#f08c00",
    "incident": "#e8590c",
    "expected": "#7048e8",
    "excluded": "#868e96",
}
"""The colour of each thing drawn: the series, its band, anomalies, failed metrics, and each
annotation kind (the kind's span and the points it covers)."""

ANNOTATION_MARKERS: dict[str, str] = {
    "incident": "circle",
    "expected": "square",
    "excluded": "x",
}
"""The (hollow) marker of the points each annotation kind covers: the kind shows by its shape
as well as its colour."""

ALERT_MARKERS = (
    "circle",
    "square",
    "triangle",
    "diamond",
    "inverted_triangle",
    "plus",
    "x",
    "star",
)
"""The markers of several detectors' alerts on one series (a backtest), in turn."""

ALERT_COLORS = (COLORS["anomaly"], "#1098ad", "#f59f00", "#37b24d", "#ae3ec9", "#495057")
"""The colours of several detectors' alerts on one series, in turn: the first is the anomaly
colour."""

FRAME = {"grid": "#eef0f3", "axis": "#ced4da", "label": "#495057", "focus": "#212529"}
"""Grid lines, axis lines, tick labels, and the line that marks a chosen time."""

BAND_ALPHA = 0.28
SPAN_ALPHA = 0.12
"""Opacity of the expected band and of an annotation's time span."""

_MATPLOTLIB_MARKERS = {
    "circle": "o",
    "square": "s",
    "triangle": "^",
    "diamond": "D",
    "inverted_triangle": "v",
    "plus": "P",
    "x": "X",
    "star": "*",
}


def matplotlib_marker(name: str) -> str:
    """Matplotlib's name of the marker BokehJS calls ``name``.

    Examples
    --------
    >>> [matplotlib_marker(ANNOTATION_MARKERS[kind]) for kind in ANNOTATION_KINDS]
    ['o', 's', 'X']
    """
    try:
        return _MATPLOTLIB_MARKERS[name]
    except KeyError:
        raise ValueError(
            f"unknown marker {name!r}; the chart style has {sorted(_MATPLOTLIB_MARKERS)}"
        ) from None


def alert_style(n: int) -> tuple[str, str]:
    """The (marker, colour) of the ``n``-th detector's alerts (from 0), the lists taken in turn.

    Examples
    --------
    >>> alert_style(0) == ("circle", COLORS["anomaly"]), alert_style(len(ALERT_MARKERS))[0]
    (True, 'circle')
    """
    return ALERT_MARKERS[n % len(ALERT_MARKERS)], ALERT_COLORS[n % len(ALERT_COLORS)]


def chart_style_json() -> dict[str, Any]:
    """The style as the report's charts read it (embedded in the page as JSON).

    Examples
    --------
    >>> style = chart_style_json()
    >>> style["colors"]["anomaly"], style["annotationMarkers"]["excluded"]
    ('#d6336c', 'x')
    """
    return {
        "colors": dict(COLORS),
        "annotationKinds": list(ANNOTATION_KINDS),  # the order of the snapshot's bits
        "annotationMarkers": dict(ANNOTATION_MARKERS),
        "frame": dict(FRAME),
        "bandAlpha": BAND_ALPHA,
        "spanAlpha": SPAN_ALPHA,
    }
