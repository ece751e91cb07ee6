"""The base of every config model (frozen, no unknown keys) and the keys allowed at a place."""

from __future__ import annotations

import re
import types
import typing
from typing import Any

from pydantic import BaseModel, ConfigDict

from anomaly.config.problems import Location

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class ConfigModel(BaseModel):
    """A section of the config file: frozen, and unknown keys are errors.

    Examples
    --------
    >>> class Section(ConfigModel):
    ...     colour: str = "red"
    >>> Section.model_validate({"colour": "blue"}).colour
    'blue'
    >>> Section.model_validate({"color": "blue"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for Section
    color
      Extra inputs are not permitted ...
    """

    model_config = ConfigDict(extra="forbid", frozen=True)


def allowed_keys(root: type[BaseModel], location: Location) -> list[str] | None:
    """The keys the model at `location` (a path from `root`) accepts, if it is a model.

    Examples
    --------
    >>> from anomaly.config.config import ServiceConfig
    >>> allowed_keys(ServiceConfig, ("scans", "daily", "schedule"))
    ['cron', 'interval', 'timezone', 'misfire_grace']
    >>> allowed_keys(ServiceConfig, ("scans",)) is None
    True
    """
    annotation: Any = root
    for part in location:
        annotation = _unwrap(annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            fields = {f.alias or name: f for name, f in annotation.model_fields.items()}
            if part not in fields:
                return None
            annotation = fields[part].annotation
        elif typing.get_origin(annotation) in (dict, list):
            annotation = typing.get_args(annotation)[-1]
        else:
            return None
    annotation = _unwrap(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [f.alias or name for name, f in annotation.model_fields.items()]
    return None


def _unwrap(annotation: Any) -> Any:
    """``X`` from ``Annotated[X, ...]`` and ``X | None``."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _unwrap(options[0]) if len(options) == 1 else annotation
    return annotation


def check_name(name: str, what: str) -> str:
    """A source, scan or alert name: letters, digits, ``_ . -`` (it ends up in tags and files).

    >>> check_name("orders-daily", "scan")
    'orders-daily'
    """
    if not NAME.match(name):
        raise ValueError(
            f"{what} name {name!r} is not allowed: use letters, digits, '_', '.', '-' "
            "(starting with a letter or digit)"
        )
    return name
