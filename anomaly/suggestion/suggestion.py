"""Suggestion: one suggested constraint with its rationale and the code of the `Check` call."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from anomaly.analyzers.base import Analyzer

CHECK = 'Check(CheckLevel.ERROR, "suggested")'
TOLERANCE = 1e-9


def literal(value: Any) -> str:
    """Python source for a str, number, bool or list of those (strings in double quotes).

    >>> literal("id"), literal([1, "a", True]), literal(0.27)
    ('"id"', '[1, "a", True]', '0.27')
    """
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    return repr(value)


def call(method: str, *arguments: Any, assertion: str | None = None) -> str:
    """The text of one `Check` method call.

    >>> call("has_completeness", "email", assertion="lambda c: c >= 0.27")
    'has_completeness("email", lambda c: c >= 0.27)'
    """
    parts = [literal(a) for a in arguments]
    if assertion is not None:
        parts.append(assertion)
    return f"{method}({', '.join(parts)})"


@dataclass(frozen=True)
class Suggestion:
    """A suggested constraint on `column`, for a human to accept or drop.

    `analyzer` is the metric the constraint checks and `bound` the smallest value for which it
    holds, so a suggestion can be measured on other data: its *coverage* is
    ``min(1, value / bound)``, 1.0 when it holds (for a row-level constraint, the fraction of rows
    that satisfy it). `score` is the column-name model's probability (unique suggestions only);
    `accepted` is False when that model vetoed the rule.

    Examples
    --------
    >>> from anomaly.analyzers import Completeness
    >>> s = Suggestion("id", "CompleteIfComplete", "is_complete", call("is_complete", "id"),
    ...                "all 100 rows have a value", Completeness("id"))
    >>> s.code
    'Check(CheckLevel.ERROR, "suggested").is_complete("id")'
    >>> s.holds(0.98), s.coverage(0.98)
    (False, 0.98)
    """

    column: str
    rule: str
    constraint: str
    call: str
    rationale: str
    analyzer: Analyzer[Any]
    bound: float = 1.0
    score: float | None = None
    accepted: bool = True

    @property
    def code(self) -> str:
        """The Python code of the `Check` call, e.g. ``Check(...).is_complete("id")``."""
        return f"{CHECK}.{self.call}"

    def holds(self, value: float) -> bool:
        """Whether the constraint holds for a metric `value` of `analyzer`."""
        return not math.isnan(value) and value >= self.bound - TOLERANCE

    def coverage(self, value: float) -> float:
        """How much of the constraint `value` satisfies: 1.0 when it holds."""
        if math.isnan(value):
            return 0.0
        return 1.0 if self.holds(value) else max(0.0, value / self.bound)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (the analyzer as its metric id)."""
        return {
            "column": self.column,
            "rule": self.rule,
            "constraint": self.constraint,
            "code": self.code,
            "rationale": self.rationale,
            "metric": self.analyzer.metric_id,
            "bound": self.bound,
            "score": self.score,
            "accepted": self.accepted,
        }
