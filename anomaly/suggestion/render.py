"""Suggestions as Python code, JSON or a plain table (the CLI's output formats)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from anomaly.suggestion.suggestion import CHECK, Suggestion, literal

if TYPE_CHECKING:  # the CLI reads FORMATS without loading the profiler and its models
    from anomaly.suggestion.evaluation import Coverage
    from anomaly.suggestion.runner import SuggestionResult

FORMATS = ("code", "json", "table")


def as_code(suggestions: Sequence[Suggestion], read: str | None = None) -> str:
    """One runnable `Check` with every suggestion, each preceded by its rationale.

    With `read` (Python code for a DataFrame from ``spark``, e.g.
    ``spark.read.parquet("events.parquet")``), the code also verifies that data with the check
    and prints the outcome of every constraint: a script that runs as printed.

    >>> from anomaly.analyzers import Completeness
    >>> s = Suggestion("id", "CompleteIfComplete", "is_complete", 'is_complete("id")',
    ...                "all 5 rows have a value", Completeness("id"))
    >>> print(as_code([s]))
    from anomaly import Check, CheckLevel
    <BLANKLINE>
    check = (
        Check(CheckLevel.ERROR, "suggested")
        # id: all 5 rows have a value
        .is_complete("id")
    )
    """
    names = "Check, CheckLevel" + (", VerificationSuite, build_session" if read else "")
    lines = [f"from anomaly import {names}", "", "check = (", f"    {CHECK}"]
    for s in suggestions:
        lines += [f"    # {s.column}: {s.rationale}", f"    .{s.call}"]
    lines.append(")")
    if read:
        lines += [
            "",
            "# Verify the data the suggestions came from, read as `anomaly suggest` read it:",
            "spark = build_session()",
            f"df = {read}",
            "result = VerificationSuite(spark).on_data(df).add_check(check).run()",
            'print(result.to_pandas()[["constraint", "status", "message"]].to_string(index=False))',
        ]
    return "\n".join(lines)


def reader_code(kind: str, path: str) -> str:
    """Python code reading `path` as `kind` (csv with a header, parquet, json) from ``spark``.

    >>> print(reader_code("csv", "/data/users.csv"))
    spark.read.option("header", "true").csv("/data/users.csv")
    """
    reader = 'spark.read.option("header", "true")' if kind == "csv" else "spark.read"
    return f"{reader}.{kind}({literal(path)})"


def as_json(result: SuggestionResult) -> str:
    """Suggestions, vetoed suggestions and coverage (when measured) as JSON."""
    measured = {id(c.suggestion): c for c in result.coverage or []}

    def entry(s: Suggestion) -> dict[str, object]:
        found = measured.get(id(s))
        return found.to_dict() if found else s.to_dict()

    payload = {
        "rows": result.rows,
        "suggestions": [entry(s) for s in result.suggestions],
        "rejected": [entry(s) for s in result.rejected],
    }
    return json.dumps(payload, indent=2)


def as_table(result: SuggestionResult, width: int = 60) -> str:
    """A fixed-width table: column, constraint, (coverage), rationale cut to `width`."""
    measured: dict[int, Coverage] = {id(c.suggestion): c for c in result.coverage or []}
    headers = ["column", "constraint", *(["coverage"] if measured else []), "rationale"]
    rows = []
    for s in result.suggestions:
        cells = [s.column, s.call]
        if measured:
            cells.append(f"{measured[id(s)].coverage:.4f}")
        cells.append(s.rationale if len(s.rationale) <= width else s.rationale[: width - 3] + "...")
        rows.append(cells)
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(line.rstrip() for line in lines)


def render(result: SuggestionResult, kind: str, read: str | None = None) -> str:
    """`result` in one of `FORMATS`; `read` as in `as_code`."""
    if kind == "code":
        return as_code(result.suggestions, read)
    if kind == "json":
        return as_json(result)
    if kind == "table":
        return as_table(result)
    raise ValueError(f"format must be one of {FORMATS}, got {kind!r}")
