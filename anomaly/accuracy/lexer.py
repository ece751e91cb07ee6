"""Tokens of the accuracy rule language: the lexer, and whitespace normalisation.

The language is the Apache Griffin measure DSL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from anomaly.accuracy.errors import RuleSyntaxError

KEYWORDS = frozenset({"and", "or", "not", "in", "between", "when", "if", "true", "false", "null"})
TIME_UNITS = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
OPERATORS = (
    "==", "!=", "<>", "<=", ">=", "&&", "||", "=", "<", ">", "+", "-", "*", "/", "%", "!",
)  # fmt: skip
PUNCTUATION = "()[],."
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}

_HEAD = re.compile(r"\$\{(\w*)\}|\$(\w*)")
_NAME = re.compile(r"[A-Za-z_]\w*")
_NUMBER = re.compile(r"(\d+)(\.\d+)?([eE][+-]?\d+)?(\w*)")


@dataclass(frozen=True)
class Token:
    """One token: `kind` is head, name, keyword, string, number, time, op, punct or end.

    `value` is the parsed value: ``source``/``target`` for heads, the lower-case keyword, the
    unescaped string, the number, or the milliseconds of a time literal.
    """

    kind: str
    text: str
    pos: int
    value: Any = None

    def describe(self) -> str:
        """How error messages name the token."""
        return "end of rule" if self.kind == "end" else repr(self.text)


def tokenize(rule: str) -> list[Token]:
    """The tokens of `rule`, ending with an ``end`` token.

    Examples
    --------
    >>> [(t.kind, t.value) for t in tokenize("$source.t + 24h <= ${target}['t']")][2:7]
    [('name', 't'), ('op', '+'), ('time', 86400000), ('op', '<='), ('head', 'target')]
    """
    tokens: list[Token] = []
    pos = 0
    while True:
        while pos < len(rule) and rule[pos].isspace():
            pos += 1
        if pos == len(rule):
            tokens.append(Token("end", "", pos))
            return tokens
        token = _next_token(rule, pos)
        tokens.append(token)
        pos += len(token.text)


def _next_token(rule: str, pos: int) -> Token:
    char = rule[pos]
    if char == "$":
        return _head(rule, pos)
    if char in "'\"":
        return _string(rule, pos)
    if char.isdigit():
        return _number(rule, pos)
    name = _NAME.match(rule, pos)
    if name:
        word = name.group()
        if word.lower() in KEYWORDS:
            return Token("keyword", word, pos, word.lower())
        return Token("name", word, pos, word)
    for op in OPERATORS:
        if rule.startswith(op, pos):
            return Token("op", op, pos, "!=" if op == "<>" else op)
    if char in PUNCTUATION:
        return Token("punct", char, pos, char)
    raise RuleSyntaxError(f"unexpected character {char!r}", rule, pos)


def _head(rule: str, pos: int) -> Token:
    match = _HEAD.match(rule, pos)
    assert match is not None  # '$' always matches `\$(\w*)`
    name = match.group(1) if match.group(1) is not None else match.group(2)
    if name not in ("source", "target"):
        raise RuleSyntaxError(
            f"unknown data source {match.group()!r}; a selection starts with $source or $target",
            rule,
            pos,
        )
    return Token("head", match.group(), pos, name)


def _string(rule: str, pos: int) -> Token:
    quote, chars, i = rule[pos], [], pos + 1
    while i < len(rule) and rule[i] != quote:
        if rule[i] == "\\" and i + 1 < len(rule):
            i += 1
            chars.append(ESCAPES.get(rule[i], "\\" + rule[i]))
        else:
            chars.append(rule[i])
        i += 1
    if i == len(rule):
        raise RuleSyntaxError(f"unterminated string: missing closing {quote}", rule, pos)
    return Token("string", rule[pos : i + 1], pos, "".join(chars))


def _number(rule: str, pos: int) -> Token:
    match = _NUMBER.match(rule, pos)
    assert match is not None  # starts with a digit
    whole, fraction, exponent, suffix = match.groups()
    text = match.group()
    if not suffix:
        value = float(text) if fraction or exponent else int(text)
        return Token("number", text, pos, value)
    if suffix in TIME_UNITS and not fraction and not exponent:
        return Token("time", text, pos, int(whole) * TIME_UNITS[suffix])
    units = ", ".join(TIME_UNITS)
    raise RuleSyntaxError(
        f"invalid number or time literal {text!r}; a time literal is an integer followed by one of "
        f"{units} (e.g. 24h)",
        rule,
        pos,
    )


def normalize(rule: str) -> str:
    """`rule` with whitespace between tokens collapsed to one space (string literals untouched).

    >>> normalize("  $source.id =\\n   $target.id  AND $source.s = 'a  b' ")
    "$source.id = $target.id AND $source.s = 'a  b'"
    """
    parts: list[str] = []
    end = None
    for token in tokenize(rule):
        if token.kind == "end":
            break
        if end is not None and token.pos > end:
            parts.append(" ")
        parts.append(token.text)
        end = token.pos + len(token.text)
    return "".join(parts)
