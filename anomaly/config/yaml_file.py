"""Reading a YAML config file safely: the data, plus the line of every key for error messages.

A config is small and hand-written, so the reader refuses what only a mistake or an attack
produces, before it costs time or memory: a file larger than `MAX_BYTES`, nesting deeper than
`MAX_DEPTH`, more than `MAX_ALIASES` aliases or aliases that expand the document by more than
`MAX_VALUES` values (a "billion laughs" bomb), an alias to a node containing itself, and a key
given twice in one mapping (YAML would silently keep the last one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from anomaly.config.problems import ConfigFileError, Location, Problem

MAX_BYTES = 1_000_000
"""The largest config file read, in bytes (a large real config is a few tens of kB)."""
MAX_DEPTH = 50
"""The deepest nesting of mappings and lists (a deep real config nests about 12 levels)."""
MAX_ALIASES = 100
"""The most YAML aliases (``*name``) in a file."""
MAX_VALUES = 100_000
"""The most values (keys, scalars, lists, mappings) that aliases may add by repeating nodes."""
CAP = 10 * MAX_BYTES  # more values than any file within MAX_BYTES holds, plus MAX_VALUES

Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when installed: fast
MERGE_TAG = "tag:yaml.org,2002:merge"


def read_yaml(path: Path) -> tuple[Any, dict[Location, int]]:
    """The parsed document and ``key path -> line`` (1-based) of every key and list item.

    Missing, unreadable, too large and hostile files, YAML syntax errors and duplicate keys
    raise `ConfigFileError`.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".yml") as f:
    ...     _ = f.write("scans:\\n  daily: {source: a}\\n  daily: {source: b}\\n"); f.flush()
    ...     read_yaml(Path(f.name))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    anomaly.config.problems.ConfigFileError: ...: line 3, scans.daily: duplicate key 'daily' \
(first at line 2); a key may appear once in a mapping
    """
    text = _text(path)
    try:
        _check_events(path, text)
        loader = Loader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None, {}
            _check_graph(path, node)
            data = loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        reason = getattr(error, "problem", None) or str(error)
        raise ConfigFileError(path, [Problem((), f"invalid YAML: {reason}", line)]) from None
    lines: dict[Location, int] = {}
    _index(node, (), lines)
    return data, lines


def _text(path: Path) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:  # refused before reading it
            message = f"the file is {size:,} bytes; a config may be at most {MAX_BYTES:,} bytes"
            raise ConfigFileError(path, [Problem((), message)])
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigFileError(path, [Problem((), "file does not exist")]) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigFileError(path, [Problem((), f"cannot read the file: {error}")]) from None


def _check_events(path: Path, text: str) -> None:
    """Depth and alias count from the parser's event stream, before any node is built."""
    depth = aliases = 0
    for event in yaml.parse(text, Loader=Loader):
        found = ""
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                found = f"nesting {depth} levels deep; a config may nest mappings and lists at"
                found += f" most {MAX_DEPTH} levels deep"
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > MAX_ALIASES:
                found = f"alias *{event.anchor} is alias number {aliases}; a config may use at"
                found += f" most {MAX_ALIASES} aliases"
        if found:
            line = event.start_mark.line + 1 if event.start_mark else None
            raise ConfigFileError(path, [Problem((), found, line)])


def _check_graph(path: Path, root: yaml.Node) -> None:
    """Refuse an alias cycle, aliases that nest too deep or add more than `MAX_VALUES` values, and
    duplicate keys. Each node is walked once (an alias is a node reached again, answered from
    `seen`), so a bomb costs no time here."""
    seen: dict[int, tuple[int, int]] = {}  # id -> (values, levels) once expanded
    problems: list[Problem] = []

    def walk(node: yaml.Node, location: Location, depth: int, open_: set[int], at: int) -> int:
        line = node.start_mark.line + 1 if id(node) not in seen else at  # an alias: its use
        if id(node) in open_:
            message = "an alias refers to the mapping or list that contains it"
            raise ConfigFileError(path, [Problem(location, message, line)])
        if id(node) not in seen:
            open_.add(id(node))
            children: list[tuple[Location, yaml.Node]] = []
            if isinstance(node, yaml.MappingNode):
                problems.extend(_duplicates(node, location))
                for key, value in node.value:
                    children += [(location, key), ((*location, str(key.value)), value)]
            elif isinstance(node, yaml.SequenceNode):
                children = [((*location, i), item) for i, item in enumerate(node.value)]
            values, levels = 1, 0
            for place, child in children:
                values += walk(child, place, depth + 1, open_, line)
                levels = max(levels, seen[id(child)][1] + 1)
            open_.discard(id(node))
            seen[id(node)] = (min(values, CAP), levels)  # capped: a bomb's numbers stay small
        values, levels = seen[id(node)]
        if depth + levels > MAX_DEPTH:
            message = (
                f"aliases nest the file {depth + levels} levels deep; a config may nest "
                f"mappings and lists at most {MAX_DEPTH} levels deep"
            )
            raise ConfigFileError(path, [Problem(location[:3], message, line)])  # short path
        return values

    added = walk(root, (), 0, set(), 1) - len(seen)  # values that aliases repeat
    if added > MAX_VALUES:
        message = (
            f"aliases expand the file by more than {MAX_VALUES:,} values; they may add at most "
            f"{MAX_VALUES:,} (and a config may use at most {MAX_ALIASES} aliases)"
        )
        raise ConfigFileError(path, [Problem((), message, root.start_mark.line + 1)])
    if problems:
        raise ConfigFileError(path, problems)


def _duplicates(node: yaml.MappingNode, location: Location) -> list[Problem]:
    first: dict[tuple[str, str], int] = {}
    found = []
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == MERGE_TAG:
            continue  # keys a merge (<<) brings in may be overridden: that is what it is for
        line = key.start_mark.line + 1
        if (key.tag, key.value) in first:
            seen = first[(key.tag, key.value)]
            message = f"duplicate key {key.value!r} (first at line {seen}); a key may appear once"
            found.append(Problem((*location, key.value), f"{message} in a mapping", line))
        first.setdefault((key.tag, key.value), line)
    return found


def _index(node: yaml.Node, location: Location, lines: dict[Location, int]) -> None:
    lines.setdefault(location, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            child = (*location, key.value)
            lines[child] = key.start_mark.line + 1  # after a merge, an override's line wins
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
