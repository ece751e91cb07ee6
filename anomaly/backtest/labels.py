"""Labels for a backtest from a CSV file, for histories whose incidents are not annotated in the
repository.

Columns: ``kind`` (``incident``, ``expected`` or ``excluded``) and ``start`` are required;
``end`` (default: ``start``, both inclusive), ``metric_id`` (empty: every metric), ``group``
(empty: every group; ``(all)`` or ``{}``: the whole-dataset series; ``country=DE;env=prod`` or a
JSON object; ``null`` is a null value) and ``note`` are optional. Times are ISO dates or times,
UTC unless they carry an offset::

    kind,start,end,metric_id,group,note
    incident,2024-05-03,,Size(*),,partial load
    expected,2024-12-24,2024-12-26,,,holidays
"""

from __future__ import annotations

import csv
import json
import os
from typing import Any

import pandas as pd

from anomaly.errors import ConfigurationError
from repository import Annotation

COLUMNS = ("kind", "start", "end", "metric_id", "group", "note")


def read_labels(path: str | os.PathLike[str]) -> list[Annotation]:
    """The labels of a CSV file (see the module doc), as annotations without tags.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     file = pathlib.Path(tmp) / "labels.csv"
    ...     _ = file.write_text("kind,start,group\\nincident,2024-05-03,country=DE\\n")
    ...     [(a.kind, a.start.isoformat(), a.group) for a in read_labels(file)]
    [('incident', '2024-05-03T00:00:00+00:00', {'country': 'DE'})]
    """
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        fields = [f.strip() for f in reader.fieldnames or []]
        missing = [c for c in ("kind", "start") if c not in fields]
        unknown = [c for c in fields if c not in COLUMNS]
        if missing or unknown:
            raise ConfigurationError(
                f"{path}: a labels CSV needs the columns kind and start and may have "
                f"{', '.join(COLUMNS[2:])}; missing {missing}, unknown {unknown}"
            )
        labels = []
        for number, row in enumerate(reader, start=2):
            cells = {k.strip(): (v or "").strip() for k, v in row.items() if k is not None}
            try:
                labels.append(
                    Annotation(
                        cells["kind"],
                        _time(cells["start"], "start"),
                        _time(cells["end"], "end") if cells.get("end") else None,
                        cells.get("metric_id") or None,
                        _group(cells.get("group", "")),
                        note=cells.get("note") or None,
                    )
                )
            except (ValueError, TypeError) as error:
                raise ConfigurationError(f"{path}, line {number}: {error}") from None
    return labels


def _time(text: str, column: str) -> pd.Timestamp:
    try:
        stamp = pd.Timestamp(text)
    except ValueError:
        stamp = None
    if stamp is None or pd.isna(stamp):
        raise ValueError(f"{column} {text!r} is not an ISO date or time (e.g. 2024-05-03)")
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")


def _group(text: str) -> dict[str, str | None] | None:
    """``None`` (every group) for an empty cell, else the group's column values."""
    if not text:
        return None
    if text in ("(all)", "{}"):
        return {}
    if text.startswith("{"):
        parsed: Any = json.loads(text)
        if not isinstance(parsed, dict):
            raise ValueError(f"group {text!r} must be a JSON object")
        return {str(k): None if v is None else str(v) for k, v in parsed.items()}
    group: dict[str, str | None] = {}
    for pair in text.replace(",", ";").split(";"):
        name, sep, value = pair.strip().partition("=")
        if not sep or not name.strip():
            raise ValueError(f"group {text!r} must be COLUMN=VALUE pairs separated by ';'")
        group[name.strip()] = None if value.strip() == "null" else value.strip()
    return group
