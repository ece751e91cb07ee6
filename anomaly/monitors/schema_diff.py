"""Schema changes between two snapshots (Spark's StructType JSON): what was added, removed,
renamed, retyped, reordered or changed nullability, at any depth of nested structs."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

CHANGES = ("removed", "retyped", "renamed", "added", "reordered", "nullability")
SIMILAR = 0.8
"""Name similarity (difflib ratio) above which a removed and an added column of the same type
look like one renamed column, wherever they are."""

SCHEMA_DETECTOR = "SchemaChange"
"""The detector name of schema-change verdicts."""


@dataclass(frozen=True)
class Column:
    """One field of a flattened schema: its path (``a.b`` inside structs, ``a[].b`` inside
    arrays of structs), type text, nullability and position among its siblings."""

    path: str
    type: str
    nullable: bool
    position: int
    parent: str

    @property
    def name(self) -> str:
        """The last part of the path."""
        return self.path[len(self.parent) + 1 :] if self.parent else self.path


@dataclass(frozen=True)
class SchemaChange:
    """One change, e.g. ``SchemaChange("retyped", "amount", "double", "string")``.

    >>> print(SchemaChange("renamed", "Price", "price (double)", "price", "case only").text)
    column Price renamed to price (double; case only)
    """

    kind: str
    path: str
    before: str | None = None
    after: str | None = None
    note: str | None = None

    @property
    def text(self) -> str:
        """The change in words."""
        note = f"; {self.note}" if self.note else ""
        if self.kind == "renamed":
            old_type = (self.before or "").partition(" (")[2].rstrip(")")
            return f"column {self.path} renamed to {self.after} ({old_type}{note})"
        if self.kind == "reordered":
            where = f"inside {self.path}" if self.path != "*" else "of the table"
            return f"columns {where} reordered: {self.before} -> {self.after}"
        if self.kind == "added":
            return f"column {self.path} added ({self.after}{note})"
        if self.kind == "removed":
            return f"column {self.path} removed (was {self.before}{note})"
        return f"column {self.path} {self.kind.replace('_', ' ')}: {self.before} -> {self.after}"


def flatten(schema: Mapping[str, Any]) -> list[Column]:
    """Every field of a StructType JSON, parents before their children.

    >>> s = {"type": "struct", "fields": [{"name": "a", "type": "long", "nullable": True},
    ...      {"name": "b", "nullable": False, "type": {"type": "struct", "fields": [
    ...          {"name": "c", "type": "string", "nullable": True}]}}]}
    >>> [(c.path, c.type, c.nullable) for c in flatten(s)]
    [('a', 'bigint', True), ('b', 'struct', False), ('b.c', 'string', True)]
    """
    found: list[Column] = []
    _walk(schema, "", found)
    return found


def _walk(struct: Mapping[str, Any], parent: str, found: list[Column]) -> None:
    for i, field in enumerate(struct.get("fields", ())):
        path = f"{parent}.{field['name']}" if parent else str(field["name"])
        kind = field["type"]
        found.append(Column(path, type_text(kind), bool(field.get("nullable", True)), i, parent))
        if isinstance(kind, Mapping) and kind.get("type") == "struct":
            _walk(kind, path, found)
        elif isinstance(kind, Mapping) and kind.get("type") == "array":
            element = kind.get("elementType")
            if isinstance(element, Mapping) and element.get("type") == "struct":
                _walk(element, f"{path}[]", found)


def type_text(kind: Any) -> str:
    """A JSON type as Spark's short text; structs (their fields are listed on their own) as
    ``struct``.

    >>> type_text({"type": "map", "keyType": "string", "valueType": "long"})
    'map<string,bigint>'
    """
    if isinstance(kind, str):
        return {"long": "bigint", "integer": "int", "short": "smallint", "byte": "tinyint"}.get(
            kind, kind
        )
    name = kind.get("type")
    if name == "array":
        return f"array<{type_text(kind['elementType'])}>"
    if name == "map":
        return f"map<{type_text(kind['keyType'])},{type_text(kind['valueType'])}>"
    return str(name)


def describe(schema: Mapping[str, Any], shown: Collection[str] | None = None) -> str:
    """The top-level columns in one line: ``id bigint, name string?`` (``?``: nullable); with
    `shown`, only those columns, the others elided.

    >>> fields = [{"name": n, "type": "long", "nullable": False} for n in "abcd"]
    >>> describe({"fields": fields[:2]}), describe({"fields": fields}, {"b", "c"})
    ('a bigint, b bigint', '..., b bigint, c bigint, ... (4 columns)')
    """
    top = [c for c in flatten(schema) if not c.parent]
    parts: list[str] = []
    for c in top:
        if shown is None or c.path in shown:
            parts.append(f"{c.path} {c.type}{'?' if c.nullable else ''}")
        elif not parts or parts[-1] != "...":
            parts.append("...")
    return ", ".join(parts) if shown is None else f"{', '.join(parts)} ({len(top)} columns)"


def around(schema: Mapping[str, Any], paths: Collection[str], context: int = 2) -> set[str]:
    """The top-level columns within `context` places of `paths` (or of their parents).

    >>> fields = [{"name": n, "type": "long"} for n in "abcdefg"]
    >>> sorted(around({"fields": fields}, ["d.x"], context=1))
    ['c', 'd', 'e']
    """
    names = [c.path for c in flatten(schema) if not c.parent]
    roots = {path.replace("[]", "").split(".")[0] for path in paths}
    return {
        names[j]
        for i, name in enumerate(names) if name in roots
        for j in range(max(i - context, 0), min(i + context + 1, len(names)))
    }  # fmt: skip


def diff(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[SchemaChange]:
    """The changes from `before` to `after`, most severe kinds first.

    Examples
    --------
    >>> def schema(*fields):
    ...     return {"fields": [{"name": n, "type": t, "nullable": True} for n, t in fields]}
    >>> old = schema(("id", "long"), ("amount", "double"), ("note", "string"))
    >>> new = schema(("id", "long"), ("amount", "string"), ("notes", "string"), ("x", "long"))
    >>> [(c.kind, c.path) for c in diff(old, new)]
    [('retyped', 'amount'), ('renamed', 'note'), ('added', 'x')]
    """
    old, new = flatten(before), flatten(after)
    old_paths, new_paths = {c.path: c for c in old}, {c.path: c for c in new}
    changes: list[SchemaChange] = []
    for column in old:
        current = new_paths.get(column.path)
        if current is None:
            continue
        if current.type != column.type and not _inside_retyped(column.path, old_paths, new_paths):
            changes.append(SchemaChange("retyped", column.path, column.type, current.type))
        elif current.nullable != column.nullable:
            states = ("nullable", "not nullable")
            was, became = states[not column.nullable], states[not current.nullable]
            changes.append(SchemaChange("nullability", column.path, was, became))

    def changed(columns: list[Column], others: Mapping[str, Column]) -> list[Column]:
        return _tops([
            c for c in columns
            if c.path not in others and not _inside_retyped(c.path, old_paths, new_paths)
        ])  # fmt: skip

    gone, came = changed(old, new_paths), changed(new, old_paths)
    for old_column, new_column in _renames(gone, came):
        gone.remove(old_column)
        came.remove(new_column)
        case = "case only" if old_column.path.lower() == new_column.path.lower() else None
        old_name = f"{old_column.name} ({old_column.type})"
        changes.append(SchemaChange("renamed", old_column.path, old_name, new_column.path, case))
    changes += [SchemaChange("removed", c.path, before=c.type) for c in gone]
    changes += [SchemaChange("added", c.path, after=c.type) for c in came]
    changes += _reorders(old, new)
    return sorted(changes, key=lambda c: CHANGES.index(c.kind))


def _inside_retyped(path: str, old: Mapping[str, Column], new: Mapping[str, Column]) -> bool:
    """Whether a parent of `path` is itself reported as retyped (report the parent only)."""
    parts = path.replace("[]", "").split(".")
    for end in range(1, len(parts)):
        for parent in (".".join(parts[:end]), ".".join(parts[:end]) + "[]"):
            if parent in old and parent in new and old[parent].type != new[parent].type:
                return True
    return False


def _tops(columns: list[Column]) -> list[Column]:
    """Columns whose parent is not in the list too (a removed struct, not each of its fields)."""
    paths = {c.path for c in columns}
    return [c for c in columns if not (c.parent and c.parent.removesuffix("[]") in paths)]


def _renames(gone: Sequence[Column], came: Sequence[Column]) -> list[tuple[Column, Column]]:
    """Pairs that look like one column renamed: same parent and type, and the same name but
    for case, the same position, or a similar name."""
    pairs: list[tuple[Column, Column]] = []
    taken: set[str] = set()
    for was in gone:
        candidates = [
            c for c in came if c.parent == was.parent and c.type == was.type and c.path not in taken
        ]
        match = next((c for c in candidates if c.name.lower() == was.name.lower()), None)
        match = match or next((c for c in candidates if c.position == was.position), None)
        match = match or next(
            (c for c in candidates if difflib.SequenceMatcher(None, c.name, was.name).ratio()
             >= SIMILAR), None,
        )  # fmt: skip
        if match is not None:
            pairs.append((was, match))
            taken.add(match.path)
    return pairs


def _reorders(old: Iterable[Column], new: Iterable[Column]) -> list[SchemaChange]:
    """One change per struct whose common fields changed their relative order."""

    def names_by_parent(columns: Iterable[Column]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for c in columns:
            found.setdefault(c.parent, []).append(c.name)
        return found

    before, after = names_by_parent(old), names_by_parent(new)
    changes = []
    for parent, names in before.items():
        common = [n for n in names if n in after.get(parent, ())]
        moved = [n for n in after.get(parent, ()) if n in common]
        if common != moved:
            changes.append(
                SchemaChange("reordered", parent or "*", ", ".join(common), ", ".join(moved))
            )
    return changes
