"""Schema changes between snapshots: every kind, at the top level and inside nested structs."""

from __future__ import annotations

from typing import Any

import pytest

from anomaly.monitors.schema_diff import diff, flatten, type_text


def field(name: str, kind: Any, nullable: bool = True) -> dict[str, Any]:
    return {"name": name, "type": kind, "nullable": nullable, "metadata": {}}


def struct(*fields: dict[str, Any]) -> dict[str, Any]:
    return {"type": "struct", "fields": list(fields)}


BASE = struct(
    field("id", "long", nullable=False),
    field("amount", "double"),
    field("customer", struct(field("name", "string"), field("zip", "string"))),
    field("note", "string"),
)

CASES = {
    "nothing changed": (BASE, []),
    "a column added": (
        struct(*BASE["fields"], field("tier", "string")),
        [("added", "tier", None, "string")],
    ),
    "a column removed": (
        struct(*BASE["fields"][:3]),
        [("removed", "note", "string", None)],
    ),
    "a column retyped": (
        struct(BASE["fields"][0], field("amount", "string"), *BASE["fields"][2:]),
        [("retyped", "amount", "double", "string")],
    ),
    "a column renamed (similar name, same type)": (
        struct(*BASE["fields"][:3], field("notes", "string")),
        [("renamed", "note", "note (string)", "notes")],
    ),
    "a column renamed in place (same position and type)": (
        struct(*BASE["fields"][:3], field("comment", "string")),
        [("renamed", "note", "note (string)", "comment")],
    ),
    "only the case of a name changed": (
        struct(BASE["fields"][0], field("Amount", "double"), *BASE["fields"][2:]),
        [("renamed", "amount", "amount (double)", "Amount")],
    ),
    "columns reordered only": (
        struct(BASE["fields"][1], BASE["fields"][0], *BASE["fields"][2:]),
        [("reordered", "*", "id, amount, customer, note", "amount, id, customer, note")],
    ),
    "nullability changed": (
        struct(field("id", "long", nullable=True), *BASE["fields"][1:]),
        [("nullability", "id", "not nullable", "nullable")],
    ),
    "a nested field added": (
        struct(*BASE["fields"][:2],
               field("customer", struct(field("name", "string"), field("zip", "string"),
                                        field("city", "string"))),
               BASE["fields"][3]),
        [("added", "customer.city", None, "string")],
    ),
    "a nested field retyped": (
        struct(*BASE["fields"][:2],
               field("customer", struct(field("name", "string"), field("zip", "integer"))),
               BASE["fields"][3]),
        [("retyped", "customer.zip", "string", "int")],
    ),
    "nested fields reordered": (
        struct(*BASE["fields"][:2],
               field("customer", struct(field("zip", "string"), field("name", "string"))),
               BASE["fields"][3]),
        [("reordered", "customer", "name, zip", "zip, name")],
    ),
    "a struct flattened to text is one retyped column, not three changes": (
        struct(*BASE["fields"][:2], field("customer", "string"), BASE["fields"][3]),
        [("retyped", "customer", "struct", "string")],
    ),
    "a whole struct removed is one change": (
        struct(*BASE["fields"][:2], BASE["fields"][3]),
        [("removed", "customer", "struct", None)],
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_diff(case: str) -> None:
    after, expected = CASES[case]
    found = [(c.kind, c.path, c.before, c.after) for c in diff(BASE, after)]
    assert found == expected


def test_several_changes_come_most_severe_first_with_words() -> None:
    after = struct(field("amount", "string"), field("id", "long", nullable=False),
                   field("tier", "string"))  # fmt: skip
    changes = diff(BASE, after)
    assert [c.kind for c in changes] == ["removed", "removed", "retyped", "added", "reordered"]
    assert changes[2].text == "column amount retyped: double -> string"
    assert changes[0].text == "column customer removed (was struct)"


def test_fields_of_arrays_of_structs_have_paths_of_their_own() -> None:
    items = {"type": "array", "containsNull": True,
             "elementType": struct(field("sku", "string"), field("qty", "integer"))}  # fmt: skip
    before = struct(field("items", items))
    after_items = {**items, "elementType": struct(field("sku", "string"), field("qty", "long"))}
    after = struct(field("items", after_items))
    assert [c.path for c in flatten(before)] == ["items", "items[].sku", "items[].qty"]
    assert [(c.kind, c.path) for c in diff(before, after)] == [("retyped", "items[].qty")]
    assert type_text(after_items) == "array<struct>"
