"""Syntax tree of accuracy rules; ``str(node)`` is a canonical, fully parenthesised rendering."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_ESCAPED = str.maketrans({"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r"})


@dataclass(frozen=True)
class Node:
    """Base of every node; `pos` is the 0-based offset of the node in the rule text."""

    pos: int

    def children(self) -> Iterator[Node]:
        """Direct sub-nodes, in source order."""
        for f in fields(self):
            value = getattr(self, f.name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, Node):
                    yield item

    def sides(self) -> frozenset[str]:
        """The data sources (``source``, ``target``) the node refers to."""
        found: frozenset[str] = frozenset()
        for child in self.children():
            found |= child.sides()
        return found


# -- values (math expressions) ------------------------------------------------------------------


@dataclass(frozen=True)
class Literal(Node):
    """A string, number, boolean, null or time literal (`value` in milliseconds for times)."""

    kind: str  # string, number, boolean, null, time
    value: Any
    text: str

    def __str__(self) -> str:
        return quote(self.value) if self.kind == "string" else self.text.lower()


@dataclass(frozen=True)
class Field(Node):
    """``.name`` or ``['name']``: a struct field, map key or JSON key."""

    name: str

    def __str__(self) -> str:
        return f".{self.name}" if _IDENTIFIER.fullmatch(self.name) else f"[{quote(self.name)}]"


@dataclass(frozen=True)
class Index(Node):
    """``[expr]``: array position (0-based, negative from the end) or map key."""

    index: Node

    def __str__(self) -> str:
        return f"[{self.index}]"


@dataclass(frozen=True)
class AllItems(Node):
    """``[*]``: every item of an array."""

    def __str__(self) -> str:
        return "[*]"


@dataclass(frozen=True)
class Slice(Node):
    """``[(start, end)]``: items start..end, both included (0-based)."""

    start: Node
    end: Node

    def __str__(self) -> str:
        return f"[({self.start}, {self.end})]"


@dataclass(frozen=True)
class Filter(Node):
    """``['name' = value]``: the first array item whose field `name` compares true with value."""

    name: str
    op: str
    value: Node

    def __str__(self) -> str:
        return f"[{quote(self.name)} {self.op} {self.value}]"


@dataclass(frozen=True)
class Call(Node):
    """``.name(args)``: a function applied to the selection so far (``json()``)."""

    name: str
    args: tuple[Node, ...]

    def __str__(self) -> str:
        return f".{self.name}({', '.join(map(str, self.args))})"


@dataclass(frozen=True)
class Selection(Node):
    """``$source`` or ``$target`` followed by field, index, filter and function steps."""

    head: str
    steps: tuple[Node, ...]

    def sides(self) -> frozenset[str]:
        return super().sides() | {self.head}

    def path(self) -> str:
        """The selection without its head: ``a.b`` for ``$source.a.b``."""
        return "".join(map(str, self.steps)).removeprefix(".")

    def __str__(self) -> str:
        return f"${self.head}{''.join(map(str, self.steps))}"


@dataclass(frozen=True)
class Unary(Node):
    """``-x`` or ``+x``."""

    op: str
    operand: Node

    def __str__(self) -> str:
        return f"({self.op}{self.operand})"


@dataclass(frozen=True)
class Infix(Node):
    """``left op right``: the one shape of arithmetic, comparisons and logical connectives."""

    op: str
    left: Node
    right: Node

    def __str__(self) -> str:
        return f"({self.left} {self.op} {self.right})"


@dataclass(frozen=True)
class Binary(Infix):
    """Arithmetic: ``+ - * / %`` (``+`` concatenates when an operand is a string)."""


# -- predicates (logical statements) ------------------------------------------------------------


@dataclass(frozen=True)
class Compare(Infix):
    """``left op right`` with op one of ``= != < > <= >=``."""


@dataclass(frozen=True)
class InList(Node):
    """``operand [NOT] IN (items...)``."""

    operand: Node
    items: tuple[Node, ...]
    negated: bool

    def __str__(self) -> str:
        op = "NOT IN" if self.negated else "IN"
        return f"({self.operand} {op} ({', '.join(map(str, self.items))}))"


@dataclass(frozen=True)
class Between(Node):
    """``operand [NOT] BETWEEN low AND high`` (or ``BETWEEN (low, high)``), bounds included."""

    operand: Node
    low: Node
    high: Node
    negated: bool

    def __str__(self) -> str:
        op = "NOT BETWEEN" if self.negated else "BETWEEN"
        return f"({self.operand} {op} {self.low} AND {self.high})"


@dataclass(frozen=True)
class Not(Node):
    """``NOT p`` or ``!p``."""

    operand: Node

    def __str__(self) -> str:
        return f"(NOT {self.operand})"


@dataclass(frozen=True)
class Logical(Infix):
    """``left AND right`` / ``left OR right`` (``&&`` and ``||`` too; `op` is AND or OR)."""


@dataclass(frozen=True)
class Rule(Node):
    """A parsed rule: ``[IF (guard)] mapping [WHEN when]`` and the text it was parsed from."""

    guard: Node | None
    mapping: Node
    when: Node | None
    text: str

    def __str__(self) -> str:
        guard = f"IF {self.guard} " if self.guard else ""
        when = f" WHEN {self.when}" if self.when else ""
        return f"{guard}{self.mapping}{when}"


def conjuncts(node: Node | None) -> list[Node]:
    """The AND-connected parts of a predicate (``[]`` for None)."""
    if node is None:
        return []
    if isinstance(node, Logical) and node.op == "AND":
        return conjuncts(node.left) + conjuncts(node.right)
    return [node]


def quote(text: str) -> str:
    """A single-quoted string literal of the rule language.

    >>> print(quote("it's"))
    'it\\'s'
    """
    return "'" + text.translate(_ESCAPED) + "'"


def start(node: Node) -> int:
    """Where the text of `node` begins (its operators' positions are further right)."""
    return min([node.pos, *(start(child) for child in node.children())])
