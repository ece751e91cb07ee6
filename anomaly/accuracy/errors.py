"""Errors of accuracy rules: each points at the place in the rule where it was found."""

from __future__ import annotations

from anomaly.errors import ConfigurationError


class RuleError(ConfigurationError):
    """A rule that cannot be used; ``str()`` shows the rule's line with a caret under the column.

    Parameters
    ----------
    message
        What was wrong, with the offending text and what is allowed.
    rule
        The rule as given.
    position
        0-based offset in `rule` where the problem starts.

    Examples
    --------
    >>> error = RuleSyntaxError("expected a value, found end of rule", "$source.a = ", 12)
    >>> print(error)
    expected a value, found end of rule (line 1, column 13)
      $source.a =
                  ^
    >>> error.one_line()
    'expected a value, found end of rule at column 13 of rule: $source.a ='
    """

    def __init__(self, message: str, rule: str, position: int) -> None:
        self.message = message
        self.rule = rule
        self.position = max(0, min(position, len(rule)))
        super().__init__(self._render())

    @property
    def line(self) -> int:
        """1-based line of `position`."""
        return self.rule.count("\n", 0, self.position) + 1

    @property
    def column(self) -> int:
        """1-based column of `position` within its line."""
        return self.position - (self.rule.rfind("\n", 0, self.position) + 1) + 1

    def _render(self) -> str:
        text = self.rule.splitlines()[self.line - 1] if self.rule.strip() else ""
        caret = " " * (self.column - 1) + "^"
        where = f"line {self.line}, column {self.column}"
        return f"{self.message} ({where})\n  {text.rstrip()}\n  {caret}"

    def one_line(self) -> str:
        """The message on one line (how a failed metric carries it)."""
        where = f"column {self.column}"
        if "\n" in self.rule.strip():
            where = f"line {self.line}, {where}"
        return f"{self.message} at {where} of rule: {' '.join(self.rule.split())}"


class RuleSyntaxError(RuleError):
    """The rule is not in the grammar (see docs/accuracy.md)."""


class UnknownFieldError(RuleError):
    """A selection names a field, index or function the data does not have."""


class RuleTypeError(RuleError):
    """Operands of incompatible types, e.g. a string compared with a number."""


class RuleJoinError(RuleError):
    """The rule gives nothing to join on, or its index / WHEN clause cannot be used."""
