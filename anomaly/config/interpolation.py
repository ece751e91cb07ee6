"""``${VAR}`` and ``${VAR:-default}`` in config values, so secrets stay out of the file; a
default may hold references itself (``${A:-${B}}``). The values that came from the
environment are remembered, so that no error message shows them (`mask`)."""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from anomaly.errors import ConfigurationError

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_NESTING = 8
"""How deep defaults may hold references (``${A:-${B:-${C}}}`` is 3)."""
HOW = "write ${NAME} or ${NAME:-default} (NAME of letters, digits and _), or $$ for a literal $"
Location = tuple[str | int, ...]


class InterpolationError(ConfigurationError):
    """A ``${...}`` reference that cannot be resolved, with where it is in the config.

    >>> InterpolationError("environment variable X is not set", ("alerts", "slack")).location
    ('alerts', 'slack')
    """

    def __init__(self, message: str, location: Location = (), variable: str | None = None) -> None:
        super().__init__(message)
        self.location = location
        self.variable = variable
        """The unset variable, when that is what is wrong."""


def interpolate(
    text: str, env: Mapping[str, str], used: MutableMapping[str, str] | None = None
) -> str:
    """``text`` with ``${VAR}`` and ``${VAR:-default}`` replaced from `env`; ``$$`` is ``$``.

    The default applies when the variable is unset or empty (as in a POSIX shell), and is
    itself interpolated only then. `used` receives ``name -> value`` of every variable read.

    Examples
    --------
    >>> env = {"TOKEN": "s3cret", "EMPTY": "", "B": "b"}
    >>> interpolate("Bearer ${TOKEN}", env)
    'Bearer s3cret'
    >>> interpolate("${EMPTY:-fallback} costs $$5", env)
    'fallback costs $5'
    >>> interpolate("${A:-${B}}/${TOKEN:-${UNSET}}", env)
    'b/s3cret'
    >>> interpolate("${MISSING}", env)
    Traceback (most recent call last):
    ...
    anomaly.config.interpolation.InterpolationError: environment variable MISSING is not set ...
    """
    value, _ = _Reader(text, env).expand(0, used, depth=0, evaluate=True)
    return value


def references(text: str) -> list[str]:
    """The variables `text` reads when none is set (malformed references raise).

    >>> references("https://${HOST:-${FALLBACK_HOST}}/$${literal}/${TOKEN}")
    ['HOST', 'FALLBACK_HOST', 'TOKEN']
    """
    used: dict[str, str] = {}
    _Reader(text, {}).expand(0, used, depth=0, evaluate=False)
    return list(used)


@dataclass(frozen=True)
class _Reader:
    """One text's references, read against `env` (a default only when it is needed)."""

    text: str
    env: Mapping[str, str]

    def expand(
        self, start: int, used: MutableMapping[str, str] | None, depth: int, evaluate: bool
    ) -> tuple[str, int]:
        """The expansion from `start` to the end, or (``depth > 0``, in a default) to the
        ``}`` that closes the default; and where it stopped. Without `evaluate`, only the
        syntax is checked (and `used` gets every name, set or not)."""
        text, parts, i = self.text, list[str](), start
        while i < len(text):
            if depth and text[i] == "}":
                return "".join(parts), i
            if text.startswith("$$", i):
                parts.append("$")
                i += 2
            elif text.startswith("${", i):
                value, i = self.reference(i, used, depth, evaluate)
                parts.append(value)
            else:
                parts.append(text[i])
                i += 1
        if depth:
            raise InterpolationError(f"malformed reference {text[start:]!r}: no closing }}; {HOW}")
        return "".join(parts), i

    def reference(
        self, start: int, used: MutableMapping[str, str] | None, depth: int, evaluate: bool
    ) -> tuple[str, int]:
        """The value of the reference at `start` (``${...``) and the index after it."""
        text = self.text
        name = NAME.match(text, start + 2)
        end = name.end() if name else start + 2
        if name is None or not text.startswith(("}", ":-"), end):
            close = text.find("}", start)
            whole = text[start : close + 1 if close >= 0 else len(text)]
            raise InterpolationError(f"malformed reference {whole!r}: {HOW}")
        if depth >= MAX_NESTING:
            raise InterpolationError(f"references nest more than {MAX_NESTING} deep in defaults")
        variable = name.group()
        value = self.env.get(variable) if evaluate else None
        if used is not None and (value is not None or not evaluate):
            used[variable] = value or ""
        if text.startswith("}", end):
            if evaluate and value is None:
                raise InterpolationError(
                    f"environment variable {variable} is not set (use ${{{variable}:-default}} "
                    "for a default)",
                    variable=variable,
                )
            return value or "", end + 1
        # The whole default is checked first, so a malformed one fails before an unset variable.
        _, close = self.expand(end + 2, None if evaluate else used, depth + 1, False)
        if evaluate and not value:
            default, _ = self.expand(end + 2, used, depth + 1, True)
            return default, close + 1
        return value or "", close + 1


def unset(text: str, env: Mapping[str, str]) -> list[str]:
    """The variables `text` needs that `env` does not set (those with a default are not).

    >>> unset("${HOST:-${FALLBACK}}:${PORT:-80}/${TOKEN}", {})
    ['FALLBACK', 'TOKEN']
    """
    known, missing = dict(env), list[str]()
    while True:
        try:
            interpolate(text, known)
            return missing
        except InterpolationError as error:
            if error.variable is None:
                raise
            missing.append(error.variable)
            known[error.variable] = "set"


def interpolate_tree(
    data: Any,
    env: Mapping[str, str],
    location: Location = (),
    used: MutableMapping[Location, dict[str, str]] | None = None,
) -> Any:
    """A copy of parsed YAML with every string value interpolated (keys are left alone);
    `used` receives ``location -> {name: value}`` of the variables each value read.

    Errors carry the key path of the offending value.

    >>> used = {}
    >>> interpolate_tree({"alerts": [{"url": "${HOOK}"}], "n": 3}, {"HOOK": "http://x"}, (), used)
    {'alerts': [{'url': 'http://x'}], 'n': 3}
    >>> used
    {('alerts', 0, 'url'): {'HOOK': 'http://x'}}
    """
    if isinstance(data, str):
        read: dict[str, str] = {}
        try:
            value = interpolate(data, env, read)
        except InterpolationError as error:
            raise InterpolationError(str(error), location, error.variable) from None
        if read and used is not None:
            used[location] = read
        return value
    if isinstance(data, Mapping):
        return {k: interpolate_tree(v, env, (*location, k), used) for k, v in data.items()}
    if isinstance(data, list):
        return [interpolate_tree(v, env, (*location, i), used) for i, v in enumerate(data)]
    return data


def secrets_near(location: Location, used: Mapping[Location, dict[str, str]]) -> dict[str, str]:
    """Every variable read, those at `location` (or inside it, or around it) first, so that
    `mask` names the variable of the value an error is about when two hold the same value.

    >>> secrets_near(("b",), {("a",): {"A": "v"}, ("b", "c"): {"B": "v"}})
    {'B': 'v', 'A': 'v'}
    """
    n = len(location)
    near = [v for at, v in used.items() if at[:n] == location or location[: len(at)] == at]
    merged: dict[str, str] = {}
    for read in [*near, *used.values()]:
        merged.update({k: v for k, v in read.items() if k not in merged})
    return merged


def mask(message: str, used: Mapping[str, str]) -> str:
    """`message` with every value read from the environment shown as its ``${NAME}``: quoted
    values of any length, bare ones of 6 characters or more (shorter ones would match words).

    >>> mask("url must start with http://, got 'ftp://tok3n'", {"HOOK": "ftp://tok3n"})
    "url must start with http://, got '${HOOK}'"
    >>> mask("got 'ab' in a tab", {"X": "ab"})
    "got '${X}' in a tab"
    """
    for name, value in sorted(used.items(), key=lambda item: -len(item[1])):
        if not value:
            continue
        for quote in ("'", '"'):
            message = message.replace(f"{quote}{value}{quote}", f"{quote}${{{name}}}{quote}")
        if len(value) >= 6:
            message = message.replace(value, f"${{{name}}}")
    return message
