"""Plain-text tables and number formatting for the terminal, alerts and logs."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from anomaly.safe_text import terminal_safe
from repository import AnomalyVerdict


def number(value: float | None) -> str:
    """A metric value, compact: ``1,234``, ``0.9876``, ``42``, ``-`` for none.

    >>> [number(v) for v in (1234.0, 0.98765, 42.0, None, 1e-5)]
    ['1,234', '0.9877', '42', '-', '1e-05']
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if float(value).is_integer():
        return f"{value:.0f}"
    return f"{value:.4g}"


def band(lower: float | None, upper: float | None) -> str:
    """The expected band: ``[38.2, 81]``, ``>= 0.95``, ``<= 81`` or ``-``.

    >>> band(38.2, 81.0), band(0.95, float("inf")), band(None, None)
    ('[38.2, 81]', '>= 0.95', '-')
    """
    low = None if lower is None or math.isnan(lower) or lower == -math.inf else lower
    high = None if upper is None or math.isnan(upper) or upper == math.inf else upper
    if low is None and high is None:
        return "-"
    if high is None:
        return f">= {number(low)}"
    if low is None:
        return f"<= {number(high)}"
    return f"[{number(low)}, {number(high)}]"


def group_label(group: Mapping[str, str | None]) -> str:
    """``country=FR`` (several columns joined by ``, ``), ``(all)`` for the whole dataset.

    >>> group_label({"country": "FR"}), group_label({})
    ('country=FR', '(all)')
    """
    if not group:
        return "(all)"
    return ", ".join(f"{k}={'null' if v is None else v}" for k, v in group.items())


PROBLEM_HEADERS = ("severity", "group", "metric", "value", "expected", "history", "detector")
"""The columns of a problem's row in text reports (`problem_row`)."""


def problem_row(verdict: AnomalyVerdict) -> list[str]:
    """A judged point that is a problem as a text report's row (``PROBLEM_HEADERS``).

    >>> problem_row(AnomalyVerdict("Size(*)", "anomaly", "Adaptive", value=9.0, lower=1.0,
    ...                            upper=5.0, history_length=20, group={"c": "DE"}))
    ['WARNING', 'c=DE', 'Size(*)', '9', '[1, 5]', '20', 'Adaptive']
    """
    v = verdict
    return [
        (v.severity or "warning").upper(),
        group_label(v.group),
        v.metric_id,
        number(v.value) if v.status == "anomaly" else "failed",
        band(v.lower, v.upper),
        number(v.history_length),
        v.detector,
    ]


def text_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "") -> str:
    """Columns padded to their widest cell; numbers right-aligned; every cell made safe for a
    terminal (`terminal_safe`: a newline or escape from data cannot forge a line).

    >>> print(text_table(["group", "value"], [["country=FR", "15"], ["country=US", "140"]]))
    group       value
    country=FR     15
    country=US    140
    """
    cells = [[terminal_safe(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    numeric = [bool(cells) and all(_numeric(r[i]) for r in cells) for i in range(len(headers))]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if right else v.ljust(w)
            for v, w, right in zip(values, widths, numeric, strict=True)
        ]
        return (indent + "  ".join(parts)).rstrip()

    header = [h.rjust(w) if r else h for h, w, r in zip(headers, widths, numeric, strict=True)]
    return "\n".join([line(header), *(line(r) for r in cells)])


def _numeric(text: str) -> bool:
    try:
        float(text.replace(",", ""))
    except ValueError:
        return text in ("-", "inf", "-inf")
    return True
