"""Recursive-descent parser of accuracy rules (the row-matching subset of Griffin's DSL BNF).

Precedence, loosest first: ``OR``/``||``, ``AND``/``&&``, ``NOT``/``!``, comparisons (``= == != <>
< > <= >=``, ``[NOT] IN``, ``[NOT] BETWEEN``), ``+ -``, ``* / %``, unary ``+ -``, selections.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from anomaly.accuracy import nodes
from anomaly.accuracy.errors import RuleSyntaxError
from anomaly.accuracy.lexer import Token, tokenize

T = TypeVar("T")
COMPARISONS = ("=", "==", "!=", "<", ">", "<=", ">=")
VALUE = "a value (a literal, a $source/$target selection or '(')"


def parse_rule(text: str) -> nodes.Rule:
    """Parse ``[IF (guard)] mapping [WHEN condition]``; raises `RuleSyntaxError` with a caret.

    Examples
    --------
    >>> print(parse_rule("$source.id = $target.id AND $source.n IN (1, 2) WHEN $source.n > 0"))
    (($source.id = $target.id) AND ($source.n IN (1, 2))) WHEN ($source.n > 0)
    >>> parse_rule("$source.id = ")
    Traceback (most recent call last):
    ...
    anomaly.accuracy.errors.RuleSyntaxError: expected a value (...), found end of rule (...)
      $source.id =
                   ^
    """
    return _Parser(text).rule()


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0
        self.furthest: RuleSyntaxError | None = None

    # -- token helpers ---------------------------------------------------------------------------

    @property
    def token(self) -> Token:
        return self.tokens[self.i]

    def peek(self, offset: int = 1) -> Token:
        return self.tokens[min(self.i + offset, len(self.tokens) - 1)]

    def at(self, kind: str, *values: str) -> bool:
        return self.token.kind == kind and (not values or self.token.value in values)

    def accept(self, kind: str, *values: str) -> Token | None:
        if not self.at(kind, *values):
            return None
        token = self.token
        self.i += 1
        return token

    def expect(self, kind: str, value: str, what: str) -> Token:
        token = self.accept(kind, value)
        if token is None:
            raise self.error(f"expected {what}, found {self.token.describe()}")
        return token

    def error(self, message: str, pos: int | None = None) -> RuleSyntaxError:
        error = RuleSyntaxError(message, self.text, self.token.pos if pos is None else pos)
        if self.furthest is not None and self.furthest.position > error.position:
            return self.furthest  # a failed alternative got further: its message is the better one
        return error

    def attempt(self, parse: Callable[[], T]) -> T | None:
        """`parse()`, or None (with the position restored) if it fails."""
        start = self.i
        try:
            return parse()
        except RuleSyntaxError as failure:
            if self.furthest is None or failure.position > self.furthest.position:
                self.furthest = failure
            self.i = start
            return None

    def fallback(self, parse: Callable[[], T]) -> T:
        """`parse()` after a failed `attempt`: once it succeeds, that failure is forgotten."""
        result = parse()
        self.furthest = None
        return result

    # -- logical statements ----------------------------------------------------------------------

    def rule(self) -> nodes.Rule:
        guard = None
        if self.accept("keyword", "if"):
            self.expect("punct", "(", "'(' after IF")
            guard = self.statement()
            self.expect("punct", ")", "')' closing the IF condition")
        mapping = self.statement()
        when = self.statement() if self.accept("keyword", "when") else None
        if not self.at("end"):
            expected = "AND, OR or end of rule" if when else "AND, OR, WHEN or end of rule"
            raise self.error(f"expected {expected}, found {self.token.describe()}")
        return nodes.Rule(self.tokens[0].pos, guard, mapping, when, self.text)

    def statement(self) -> nodes.Node:
        left = self.conjunction()
        while token := self.accept("keyword", "or") or self.accept("op", "||"):
            left = nodes.Logical(token.pos, "OR", left, self.conjunction())
        return left

    def conjunction(self) -> nodes.Node:
        left = self.negation()
        while token := self.accept("keyword", "and") or self.accept("op", "&&"):
            left = nodes.Logical(token.pos, "AND", left, self.negation())
        return left

    def negation(self) -> nodes.Node:
        token = self.accept("keyword", "not") or self.accept("op", "!")
        return nodes.Not(token.pos, self.negation()) if token else self.predicate()

    def predicate(self) -> nodes.Node:
        if self.at("punct", "("):
            group = self.attempt(self.group)
            if group is not None:
                return group
        return self.fallback(self.comparison)

    def group(self) -> nodes.Node:
        """``( statement )`` not followed by an operator (else it was a parenthesised value)."""
        self.expect("punct", "(", "'('")
        inner = self.statement()
        self.expect("punct", ")", "')'")
        if (self.at("op") and self.token.value not in ("&&", "||", "!")) or self.at(
            "keyword", "in", "between"
        ):
            raise self.error(f"unexpected {self.token.describe()} after a parenthesised condition")
        return inner

    def comparison(self) -> nodes.Node:
        left = self.math()
        if self.at("op", *COMPARISONS):
            token = self.token
            self.i += 1
            op = "=" if token.value == "==" else str(token.value)
            return nodes.Compare(token.pos, op, left, self.math())
        start = self.token.pos
        negated = self.at("keyword", "not") and self.peek().value in ("in", "between")
        if negated:
            self.i += 1
        if self.accept("keyword", "in"):
            return nodes.InList(start, left, tuple(self.values()), negated)
        if self.accept("keyword", "between"):
            low, high = self.bounds()
            return nodes.Between(start, left, low, high, negated)
        raise self.error(
            "expected a comparison (=, !=, <, >, <=, >=, IN or BETWEEN) after "
            f"{left}, found {self.token.describe()}"
        )

    def values(self) -> list[nodes.Node]:
        """``( [value [, value]...] )``."""
        self.expect("punct", "(", "'(' starting a list of values")
        items: list[nodes.Node] = []
        if not self.accept("punct", ")"):
            items.append(self.math())
            while self.accept("punct", ","):
                items.append(self.math())
            self.expect("punct", ")", "',' or ')' in the list of values")
        return items

    def bounds(self) -> tuple[nodes.Node, nodes.Node]:
        """``(low, high)`` as in Griffin's BNF, or SQL's ``low AND high``."""
        pos, start = self.token.pos, self.i
        if self.at("punct", "("):
            items = self.attempt(self.values)
            if items is not None and len(items) != 1:
                if len(items) != 2:
                    raise self.error(f"BETWEEN needs two bounds (low, high), got {len(items)}", pos)
                return items[0], items[1]
            self.i = start  # "(low) AND high": the parentheses belong to the first bound
        low = self.fallback(self.math)
        self.expect("keyword", "and", "AND between the two bounds of BETWEEN")
        return low, self.math()

    # -- math expressions ------------------------------------------------------------------------

    def math(self) -> nodes.Node:
        left = self.term()
        while token := self.accept("op", "+", "-"):
            left = nodes.Binary(token.pos, str(token.value), left, self.term())
        return left

    def term(self) -> nodes.Node:
        left = self.unary()
        while token := self.accept("op", "*", "/", "%"):
            left = nodes.Binary(token.pos, str(token.value), left, self.unary())
        return left

    def unary(self) -> nodes.Node:
        token = self.accept("op", "+", "-")
        if token is None:
            return self.factor()
        operand = self.unary()
        if (
            token.value == "-"
            and isinstance(operand, nodes.Literal)
            and operand.kind == "number"
            and not operand.text.startswith("-")
        ):
            return nodes.Literal(token.pos, "number", -operand.value, f"-{operand.text}")
        return nodes.Unary(token.pos, str(token.value), operand)

    def factor(self) -> nodes.Node:
        token = self.token
        if token.kind in ("string", "number", "time"):
            self.i += 1
            return nodes.Literal(token.pos, token.kind, token.value, token.text)
        if self.accept("keyword", "true", "false"):
            return nodes.Literal(token.pos, "boolean", token.value == "true", token.text)
        if self.accept("keyword", "null"):
            return nodes.Literal(token.pos, "null", None, token.text)
        if token.kind == "head":
            return self.selection()
        if self.accept("punct", "("):
            inner = self.math()
            self.expect("punct", ")", "')'")
            return inner
        raise self.error(f"expected {VALUE}, found {token.describe()}")

    def selection(self) -> nodes.Selection:
        head = self.token
        self.i += 1
        steps: list[nodes.Node] = []
        while True:
            if dot := self.accept("punct", "."):
                steps.append(self.member(dot))
            elif bracket := self.accept("punct", "["):
                steps.append(self.bracket(bracket))
                if self.at("punct", ","):
                    raise self.error("only one item per [...] is supported, found ','")
                self.expect("punct", "]", "']'")
            else:
                return nodes.Selection(head.pos, str(head.value), tuple(steps))

    def member(self, dot: Token) -> nodes.Node:
        """``.field`` or ``.function(args)``."""
        name = self.accept("name") or self.accept("keyword")
        if name is None:
            raise self.error(f"expected a field name after '.', found {self.token.describe()}")
        if not self.at("punct", "("):
            return nodes.Field(name.pos, name.text)
        return nodes.Call(name.pos, name.text, tuple(self.values()))

    def bracket(self, bracket: Token) -> nodes.Node:
        """``[*]``, ``['field' op value]``, ``[(start, end)]``, ``['field']`` or ``[index]``."""
        if self.at("op", "*") and self.peek().value == "]":
            self.i += 1
            return nodes.AllItems(bracket.pos)
        if self.at("string") and self.peek().kind == "op" and self.peek().value in COMPARISONS:
            name = self.token
            self.i += 1
            op = self.token.value
            self.i += 1
            return nodes.Filter(name.pos, name.value, "=" if op == "==" else op, self.math())
        if self.at("punct", "("):
            start = self.i
            items = self.attempt(self.values)
            if items is not None and len(items) == 2 and self.at("punct", "]"):
                return nodes.Slice(bracket.pos, items[0], items[1])
            self.i = start
        index = self.fallback(self.math)
        if isinstance(index, nodes.Literal) and index.kind == "string":
            return nodes.Field(index.pos, index.value)
        return nodes.Index(index.pos, index)
