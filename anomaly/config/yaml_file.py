"""Reading a YAML config file: the data, plus the line of every key for error messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from anomaly.config.problems import ConfigFileError, Location, Problem


def read_yaml(path: Path) -> tuple[Any, dict[Location, int]]:
    """The parsed document and ``key path -> line`` (1-based) of every key and list item.

    Missing files, unreadable files and YAML syntax errors raise `ConfigFileError`.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigFileError(path, [Problem((), "file does not exist")]) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigFileError(path, [Problem((), f"cannot read the file: {error}")]) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        reason = getattr(error, "problem", None) or str(error)
        raise ConfigFileError(path, [Problem((), f"invalid YAML: {reason}", line)]) from None
    lines: dict[Location, int] = {}
    if node is not None:
        _index(node, (), lines)
    return data, lines


def _index(node: yaml.Node, location: Location, lines: dict[Location, int]) -> None:
    lines.setdefault(location, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            child = (*location, key.value)
            lines[child] = key.start_mark.line + 1
            _index(value, child, lines)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index(item, (*location, i), lines)


def line_of(location: Location, lines: dict[Location, int]) -> int | None:
    """The line of the deepest known key on `location`'s path."""
    for end in range(len(location), -1, -1):
        if location[:end] in lines:
            return lines[location[:end]]
    return None
