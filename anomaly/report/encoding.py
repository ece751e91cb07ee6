"""Compact, safe JSON for embedding the report's data in a page.

Numbers are rounded to 6 significant digits (what a chart and its hover show) and NaN or
infinities become ``null``; the text is safe inside ``<script type="application/json">``:
``<``, ``>`` and ``&`` are escaped, so no user string (a group named ``</script>...``) can close
the element.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

DIGITS = 6
_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def rounded(values: np.ndarray | list[float], digits: int = DIGITS) -> list[float | None]:
    """Values rounded to `digits` significant digits, NaN and infinities as None.

    >>> rounded(np.array([1234567.0, 0.000123456789, float("nan"), -2.5, float("inf")]))
    [1234570.0, 0.000123457, None, -2.5, None]
    """
    return rounded_rows(np.asarray(values, dtype="float64")[np.newaxis], digits)[0]


def rounded_rows(matrix: np.ndarray, digits: int = DIGITS) -> list[list[float | None]]:
    """`rounded` of every row of a 2-d array, vectorised.

    >>> rounded_rows(np.array([[1.0, np.nan], [2.0 / 3, 5.0]]))
    [[1.0, None], [0.666667, 5.0]]
    """
    array = np.asarray(matrix, dtype="float64")
    finite = np.isfinite(array)
    with np.errstate(divide="ignore", invalid="ignore"):
        magnitude = np.floor(np.log10(np.abs(np.where(finite & (array != 0), array, 1.0))))
    shift = (digits - 1 - magnitude).astype("int64")
    out = array.copy()
    # Scale by an exact power of ten on the side that keeps it an integer, so the result is the
    # double nearest the decimal and prints short.
    with np.errstate(over="ignore", invalid="ignore"):
        up = finite & (shift >= 0)
        out[up] = np.round(array[up] * 10.0 ** shift[up]) / 10.0 ** shift[up]
        down = finite & (shift < 0)
        out[down] = np.round(array[down] / 10.0 ** -shift[down]) * 10.0 ** -shift[down]
    # Near the ends of the double range the power of ten overflows: keep those values as they are.
    out[finite & ~np.isfinite(out)] = array[finite & ~np.isfinite(out)]
    cells = out.astype(object)
    cells[~finite] = None
    return cells.tolist()


def number(value: Any) -> float | None:
    """One value as `rounded` gives it.

    >>> number(2.0 / 3), number(None), number(float("-inf"))
    (0.666667, None, None)
    """
    if value is None:
        return None
    try:
        result = float(value)
    except (TypeError, ValueError):
        return None
    return float(f"{result:.{DIGITS}g}") if math.isfinite(result) else None


def plain(value: Any) -> Any:
    """A JSON-ready value: numpy scalars as Python ones, NaN/NaT as None, pandas times as ISO.

    >>> plain(np.int64(3)), plain(float("nan")), plain(np.bool_(True))
    (3, None, True)
    """
    if value is None:
        return None
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return number(value)
    if hasattr(value, "isoformat"):
        try:
            return value.isoformat()
        except ValueError:  # NaT
            return None
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return str(value)


def script_json(data: Any) -> str:
    """`data` as JSON text that can sit inside ``<script type="application/json">``.

    >>> script_json({"group": "</script><script>alert(1)</script>"})
    '{"group":"\\\\u003c/script\\\\u003e\\\\u003cscript\\\\u003ealert(1)\\\\u003c/script\\\\u003e"}'
    """
    text = json.dumps(data, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    for char, escaped in _UNSAFE.items():
        text = text.replace(char, escaped)
    return text
