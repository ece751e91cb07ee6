"""The consistency constraints' names: ``has_type_consistency`` is a deprecated alias."""

from __future__ import annotations

import pytest

from anomaly.checks import Check, CheckLevel, at_least


@pytest.mark.parametrize("where", [None, "kind = 'phone'"])
def test_has_type_consistency_warns_and_builds_has_consistent_type(where: str | None) -> None:
    assertion = at_least(0.8)
    with pytest.warns(DeprecationWarning, match="has_type_consistency is deprecated"):
        old = Check(CheckLevel.ERROR, "c").has_type_consistency("zip", assertion, where=where)
    new = Check(CheckLevel.ERROR, "c").has_consistent_type("zip", assertion, where=where)
    (was,), (now,) = old.constraints, new.constraints
    assert (was.analyzer, was.assertion, was.pick, was.subject) == (
        now.analyzer,
        now.assertion,
        now.pick,
        now.subject,
    )
    # The old name stays the constraint's name: its stored outcomes stay one series.
    assert (was.name, now.name) == ("has_type_consistency(zip)", "has_consistent_type(zip)")
