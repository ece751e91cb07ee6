"""Keyword parameters from a config mapping, checked against what a class accepts."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from anomaly.config.problems import custom_error, suggest
from anomaly.errors import ConfigurationError

KEYWORD = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def accepted(factory: Callable[..., Any]) -> tuple[list[str], list[str]] | None:
    """(all parameter names, required ones) of `factory`; None when it takes ``**kwargs``.

    >>> from detectors import RobustMAD
    >>> accepted(RobustMAD)[0]
    ['lower_deviation_factor', 'upper_deviation_factor', 'window', 'min_history']
    """
    try:
        return _accepted(factory)
    except TypeError:  # an unhashable callable
        return _accepted.__wrapped__(factory)


@functools.lru_cache(maxsize=1024)
def _accepted(factory: Callable[..., Any]) -> tuple[list[str], list[str]] | None:
    """`accepted`, computed once per factory (signatures are slow to read)."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    names = [p.name for p in parameters if p.kind in KEYWORD]
    required = [p.name for p in parameters if p.kind in KEYWORD and p.default is p.empty]
    return names, required


def check_parameters(owner: str, factory: Callable[..., Any], params: Mapping[str, Any]) -> None:
    """Raise a config error for a parameter `factory` does not take, or one it needs."""
    signature = accepted(factory)
    if signature is None:
        return
    names, required = signature
    for key in params:
        if key not in names:
            allowed = ", ".join(names) or "none"
            raise custom_error(
                f"{owner} has no parameter {key!r}{suggest(key, names)}; allowed: {allowed}",
                key=key,
            )
    missing = [name for name in required if name not in params]
    if missing:
        raise custom_error(f"{owner} needs {', '.join(map(repr, missing))}")


def build(owner: str, factory: Callable[..., Any], params: Mapping[str, Any]) -> Any:
    """``factory(**params)`` after `check_parameters`; construction errors name `owner`."""
    check_parameters(owner, factory, params)
    try:
        return factory(**params)
    except (TypeError, ValueError) as error:
        key = getattr(error, "parameter", None)
        # A parameter the file does not set (a default, or several at once) has no key there.
        raise custom_error(f"{owner}: {error}", key=key if key in params else None) from None


def pairs(items: list[str] | None, option: str) -> list[tuple[str, str]]:
    """``["country=DE"]`` as ``[("country", "DE")]``.

    >>> pairs(["country=DE", "env=prod"], "--group")
    [('country', 'DE'), ('env', 'prod')]
    """
    found = []
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ConfigurationError(f"{option} takes NAME=VALUE, got {item!r}")
        found.append((name, value))
    return found
