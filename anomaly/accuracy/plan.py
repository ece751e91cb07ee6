"""How a rule is executed: the join index, the remaining predicate, and the WHEN filters.

Decided from the syntax tree alone (no schema, no Spark), so a rule that cannot be joined
fails when the analyzer is built.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from anomaly.accuracy import nodes
from anomaly.accuracy.errors import RuleJoinError
from anomaly.errors import ConfigurationError


@dataclass(frozen=True)
class JoinKey:
    """One equality of the index: a value of the source equal to a value of the target."""

    source: nodes.Node
    target: nodes.Node

    def names(self) -> tuple[str, ...]:
        """How an explicit index may name this key: ``uid``, ``$source.uid``, ``$target.uid``."""
        names = [str(self.source), str(self.target)]
        sides = (self.source, self.target)
        names += [side.path() for side in sides if isinstance(side, nodes.Selection)]
        return tuple(names)


@dataclass(frozen=True)
class RulePlan:
    """A rule split for execution.

    Attributes
    ----------
    keys
        Equalities the index consists of (all top-level ``$source... = $target...`` conjuncts,
        or those an explicit index names); their source sides identify unmatched rows.
    conditions
        Every conjunct of the IF guard and the mapping rule (the keys included): a source row
        matches when one target row satisfies them all.
    source_filters, target_filters
        The WHEN conjuncts: they choose which source rows are measured and which target rows
        may match.

    Examples
    --------
    >>> from anomaly.accuracy.parser import parse_rule
    >>> plan = plan_rule(parse_rule("$source.id = $target.id AND $source.n > $target.n "
    ...                             "WHEN $target.live = true"))
    >>> [str(k.source) for k in plan.keys], len(plan.conditions)
    (['$source.id'], 2)
    >>> [str(condition) for condition in plan.target_filters]
    ['($target.live = true)']
    """

    rule: nodes.Rule
    keys: tuple[JoinKey, ...]
    conditions: tuple[nodes.Node, ...]
    source_filters: tuple[nodes.Node, ...]
    target_filters: tuple[nodes.Node, ...]


def plan_rule(rule: nodes.Rule, index: Sequence[str] = ()) -> RulePlan:
    """Split `rule`; raises `RuleJoinError` when there is nothing to join on."""
    conditions = tuple(nodes.conjuncts(rule.guard) + nodes.conjuncts(rule.mapping))
    keys = [key for key in map(_join_key, conditions) if key is not None]
    if not keys:
        raise RuleJoinError(_no_key_message(rule.mapping), rule.text, _no_key_position(rule))
    if index:
        keys = _named(keys, index)
    source_filters: list[nodes.Node] = []
    target_filters: list[nodes.Node] = []
    for condition in nodes.conjuncts(rule.when):
        sides = condition.sides()
        if sides == {"source", "target"}:
            raise RuleJoinError(
                "a WHEN condition filters $source or $target rows and cannot compare the two; "
                "move it before WHEN to make it part of the matching",
                rule.text,
                nodes.start(condition),
            )
        (target_filters if sides == {"target"} else source_filters).append(condition)
    return RulePlan(rule, tuple(keys), conditions, tuple(source_filters), tuple(target_filters))


def _join_key(node: nodes.Node) -> JoinKey | None:
    if not isinstance(node, nodes.Compare) or node.op != "=":
        return None
    left, right = node.left.sides(), node.right.sides()
    if left == {"source"} and right == {"target"}:
        return JoinKey(node.left, node.right)
    if left == {"target"} and right == {"source"}:
        return JoinKey(node.right, node.left)
    return None


def _named(keys: list[JoinKey], index: Sequence[str]) -> list[JoinKey]:
    chosen: list[JoinKey] = []
    for name in index:
        found = [key for key in keys if name.strip() in key.names()]
        if not found:
            available = ", ".join(key.names()[-1] for key in keys)
            raise ConfigurationError(
                f"index {name.strip()!r} names no equality of the rule between $source and "
                f"$target; the rule's equalities are on: {available}"
            )
        chosen += [key for key in found if key not in chosen]
    return chosen


def _no_key_message(mapping: nodes.Node) -> str:
    top = ""
    if isinstance(mapping, nodes.Logical) and mapping.op == "OR":
        top = "; the rule's top level is OR, so no single equality must hold"
    elif isinstance(mapping, nodes.Not):
        top = "; the rule's top level is NOT, so no equality must hold"
    return (
        "no equality between a $source value and a $target value among the AND-connected "
        f"conditions of the rule: nothing to join on (e.g. $source.id = $target.id){top}"
    )


def _no_key_position(rule: nodes.Rule) -> int:
    mapping = rule.mapping
    if isinstance(mapping, nodes.Not) or (
        isinstance(mapping, nodes.Logical) and mapping.op == "OR"
    ):
        return mapping.pos  # the operator that makes every equality optional
    return nodes.start(mapping)
