"""Config problems: where in the file (key path, line) and what is wrong, one line each."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anomaly.errors import ConfigurationError

if TYPE_CHECKING:  # pydantic loads with the config's models: `anomaly history -r` needs neither
    from pydantic_core import PydanticCustomError

Location = tuple[str | int, ...]


def key_path(location: Location) -> str:
    """``('scans', 'daily', 'metrics', 1, 'column')`` as ``scans.daily.metrics[1].column``.

    >>> key_path(("scans", "daily", "metrics", 1, "column"))
    'scans.daily.metrics[1].column'
    >>> key_path(())
    '(top level)'
    """
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for a close match, else nothing.

    >>> suggest("shedule", ["schedule", "source"])
    " (did you mean 'schedule'?)"
    """
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def choice_error(what: str, value: str, allowed: Sequence[str]) -> str:
    """``unknown analyzer 'Meen' (did you mean 'Mean'?); allowed: ...``."""
    return f"unknown {what} {value!r}{suggest(value, allowed)}; allowed: {', '.join(allowed)}"


def custom_error(message: str, key: str | int | None = None) -> PydanticCustomError:
    """A validation error with our own message; `key` extends its location in reports.

    The key travels in the error's context as ``location_key`` (pydantic fills ``{name}``
    placeholders of the message from the context, so no message text can collide with it).
    """
    from pydantic_core import PydanticCustomError

    context: dict[str, Any] = {} if key is None else {"location_key": key}
    return PydanticCustomError("config", message, context)


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a config file.

    >>> Problem(("scans", "daily", "metrics", 0, "colum"), "unknown key 'colum'", 12).render()
    "line 12, scans.daily.metrics[0].colum: unknown key 'colum'"
    """

    location: Location
    message: str
    line: int | None = None

    def render(self) -> str:
        where = [f"line {self.line}"] if self.line else []
        if self.location:
            where.append(key_path(self.location))
        return f"{', '.join(where)}: {self.message}" if where else self.message


class ConfigFileError(ConfigurationError):
    """A config file that cannot be used; the message lists every problem with its place.

    >>> str(ConfigFileError("anomaly.yml", [Problem(("scans",), "must be a mapping", 3)]))
    'anomaly.yml: line 3, scans: must be a mapping'
    """

    def __init__(self, file: str | Path, problems: Sequence[Problem]) -> None:
        self.file = str(file)
        self.problems = list(problems)
        if len(self.problems) == 1:
            text = f"{self.file}: {self.problems[0].render()}"
        else:
            lines = "\n".join(f"  {p.render()}" for p in self.problems)
            text = f"{self.file}: {len(self.problems)} problems\n{lines}"
        super().__init__(text)


def from_pydantic(
    error: Mapping[str, Any], allowed: Callable[[Location], list[str] | None] | None = None
) -> Problem:
    """A `Problem` from one entry of ``ValidationError.errors()``, in our wording; `allowed`
    gives the keys accepted at a location, for unknown-key messages."""
    location: Location = tuple(error["loc"])
    context = error.get("ctx") or {}
    if "location_key" in context:
        location = (*location, context["location_key"])
    kind, message, given = error["type"], str(error["msg"]), error.get("input")
    if kind == "config":
        return Problem(location, message)
    if kind == "missing":
        return Problem(location[:-1], f"missing required key {location[-1]!r}")
    if kind == "extra_forbidden":
        key = str(location[-1])
        keys = allowed(location[:-1]) if allowed else None
        if not keys:
            return Problem(location, f"unknown key {key!r}")
        hint = f"{suggest(key, keys)}; allowed keys: {', '.join(keys)}"
        return Problem(location, f"unknown key {key!r}{hint}")
    if kind == "literal_error":
        return Problem(location, f"must be one of {context.get('expected')}; got {given!r}")
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return Problem(location, f"must be a mapping (key: value), got {_kind(given)}")
    if kind == "list_type":
        return Problem(location, f"must be a list, got {_kind(given)}")
    if message.startswith("Value error, "):
        return Problem(location, message.removeprefix("Value error, "))
    message = message.replace("Input should be", "must be")
    return Problem(location, f"{message[:1].lower()}{message[1:]}; got {given!r}")


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (an empty value)"
    return f"{type(value).__name__} {value!r}"
