"""How much later (or earlier) than its source row a matching target row may be, from the rule.

A stream cannot wait forever for a target row: a window's accuracy is final once no target row
that could still match one of its source rows can arrive. The rule's own time conditions say
how far apart the two event times may be, e.g. example 2 of Apache Griffin's rule language
``$source.__time + 24h <= $target.__time`` (a target row at least 24 hours later). Conditions
linear in the two time fields (sums and differences of the fields, time literals and numbers,
compared with ``<``, ``<=``, ``>``, ``>=``, ``=`` or ``BETWEEN``) among the rule's top-level
AND-connected conditions bound ``target time - source time``; other conditions are ignored here
(they still decide every match).
"""

from __future__ import annotations

from dataclasses import dataclass

from anomaly.accuracy import nodes
from anomaly.accuracy.plan import RulePlan

Linear = tuple[float, float, float]
"""``a * source_time + b * target_time + c`` (times and constants in milliseconds)."""


@dataclass(frozen=True)
class TimeBounds:
    """Bounds of ``target time - source time`` in milliseconds (None: unbounded).

    >>> TimeBounds(0, 3_600_000).tightened(TimeBounds(60_000, None))
    TimeBounds(lower=60000, upper=3600000)
    """

    lower: float | None = None
    upper: float | None = None

    def tightened(self, other: TimeBounds) -> TimeBounds:
        """Both bounds at once: the larger lower bound and the smaller upper bound."""
        lowers = [b for b in (self.lower, other.lower) if b is not None]
        uppers = [b for b in (self.upper, other.upper) if b is not None]
        return TimeBounds(max(lowers) if lowers else None, min(uppers) if uppers else None)


def rule_time_bounds(plan: RulePlan, source_time: str, target_time: str) -> TimeBounds:
    """The bounds of ``$target.<target_time> - $source.<source_time>`` the rule implies.

    Examples
    --------
    >>> from anomaly.accuracy import parse_rule, plan_rule
    >>> def bounds(rule):
    ...     return rule_time_bounds(plan_rule(parse_rule(rule)), "t", "t")
    >>> bounds("IF ($source.t + 24h <= $target.t) $source.id = $target.id")
    TimeBounds(lower=86400000.0, upper=None)
    >>> bounds("$source.id = $target.id AND $target.t BETWEEN $source.t - 5m AND $source.t + 1h")
    TimeBounds(lower=-300000.0, upper=3600000.0)
    >>> bounds("$source.id = $target.id AND ($target.t < $source.t OR $source.id > 3)")
    TimeBounds(lower=None, upper=None)
    """
    fields = {"source": source_time, "target": target_time}
    found = TimeBounds()
    for condition in plan.conditions:
        found = found.tightened(_bounds(condition, fields))
    return found


def _bounds(node: nodes.Node, fields: dict[str, str]) -> TimeBounds:
    if isinstance(node, nodes.Between) and not node.negated:
        low = _bounds(nodes.Compare(node.pos, ">=", node.operand, node.low), fields)
        high = _bounds(nodes.Compare(node.pos, "<=", node.operand, node.high), fields)
        return low.tightened(high)
    if not isinstance(node, nodes.Compare) or node.op in ("!=", "<>"):
        return TimeBounds()
    left, right = _linear(node.left, fields), _linear(node.right, fields)
    if left is None or right is None:
        return TimeBounds()
    a, b, c = (x - y for x, y in zip(left, right, strict=True))
    # a*S + b*T + c (op) 0; a bound of T - S needs b = -a != 0: then T - S (op) -c / b.
    if b == 0 or a != -b:
        return TimeBounds()
    limit = -c / b
    op = node.op if b > 0 else {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(node.op, node.op)
    if op in ("<", "<="):
        return TimeBounds(None, limit)
    if op in (">", ">="):
        return TimeBounds(limit, None)
    return TimeBounds(limit, limit)  # = and ==


def _linear(node: nodes.Node, fields: dict[str, str]) -> Linear | None:
    if isinstance(node, nodes.Selection):
        step = node.steps[0] if len(node.steps) == 1 else None
        if isinstance(step, nodes.Field) and step.name == fields.get(node.head):
            return (1.0, 0.0, 0.0) if node.head == "source" else (0.0, 1.0, 0.0)
        return None
    if isinstance(node, nodes.Literal) and node.kind in ("time", "number"):
        return (0.0, 0.0, float(node.value))
    if isinstance(node, nodes.Unary):
        inner = _linear(node.operand, fields)
        if inner is None:
            return None
        return inner if node.op == "+" else (-inner[0], -inner[1], -inner[2])
    if isinstance(node, nodes.Binary) and node.op in ("+", "-"):
        left, right = _linear(node.left, fields), _linear(node.right, fields)
        if left is None or right is None:
            return None
        sign = 1.0 if node.op == "+" else -1.0
        return (left[0] + sign * right[0], left[1] + sign * right[1], left[2] + sign * right[2])
    return None
