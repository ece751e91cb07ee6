"""``${VAR}`` and ``${VAR:-default}`` in config values, so secrets stay out of the file."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from anomaly.errors import ConfigurationError

PATTERN = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{[^}]*\}?")
Location = tuple[str | int, ...]


class InterpolationError(ConfigurationError):
    """A ``${...}`` reference that cannot be resolved, with where it is in the config.

    >>> InterpolationError("environment variable X is not set", ("alerts", "slack")).location
    ('alerts', 'slack')
    """

    def __init__(self, message: str, location: Location = ()) -> None:
        super().__init__(message)
        self.location = location


def interpolate(text: str, env: Mapping[str, str]) -> str:
    """``text`` with ``${VAR}`` and ``${VAR:-default}`` replaced from `env`; ``$$`` is ``$``.

    The default applies when the variable is unset or empty (as in a POSIX shell).

    Examples
    --------
    >>> env = {"TOKEN": "s3cret", "EMPTY": ""}
    >>> interpolate("Bearer ${TOKEN}", env)
    'Bearer s3cret'
    >>> interpolate("${EMPTY:-fallback} costs $$5", env)
    'fallback costs $5'
    >>> interpolate("${MISSING}", env)
    Traceback (most recent call last):
    ...
    anomaly.config.interpolation.InterpolationError: environment variable MISSING is not set ...
    """

    def replace(match: re.Match[str]) -> str:
        whole = match.group(0)
        if whole == "$$":
            return "$"
        name, default = match.group(1), match.group(2)
        if name is None:
            raise InterpolationError(
                f"malformed reference {whole!r}: write ${{NAME}} or ${{NAME:-default}} (NAME of "
                "letters, digits and _), or $$ for a literal $"
            )
        value = env.get(name)
        if value:
            return value
        if default is not None:
            return default
        if value == "":
            return value
        raise InterpolationError(
            f"environment variable {name} is not set (use ${{{name}:-default}} for a default)"
        )

    return PATTERN.sub(replace, text)


def interpolate_tree(data: Any, env: Mapping[str, str], location: Location = ()) -> Any:
    """A copy of parsed YAML with every string value interpolated (keys are left alone).

    Errors carry the key path of the offending value.

    >>> interpolate_tree({"alerts": [{"url": "${HOOK}"}], "n": 3}, {"HOOK": "http://x"})
    {'alerts': [{'url': 'http://x'}], 'n': 3}
    """
    if isinstance(data, str):
        try:
            return interpolate(data, env)
        except InterpolationError as error:
            raise InterpolationError(str(error), location) from None
    if isinstance(data, Mapping):
        return {k: interpolate_tree(v, env, (*location, k)) for k, v in data.items()}
    if isinstance(data, list):
        return [interpolate_tree(v, env, (*location, i)) for i, v in enumerate(data)]
    return data
