"""``--format csv`` writes what pandas' ``DataFrame.to_csv`` wrote before the query commands
stopped loading pandas: the same text for any records the commands emit."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from anomaly.service.query_commands import csv_text

CELLS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**53), 2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), max_size=8),
)
COLUMNS = st.sampled_from(["time", "metric", "value", "history", "country", "note"])


def pandas_csv(records: list[dict[str, Any]]) -> str:
    return str(pd.DataFrame(records).to_csv(index=False))


@pytest.mark.parametrize(
    "records",
    [
        [],
        [{"time": "2026-03-01T00:00:00Z", "metric": "Size(*)", "value": 42.0}],
        [{"history": 30}, {"history": None}],  # whole numbers with a null: floats
        [{"history": 30}, {"history": 31}],
        [{"value": 1}, {"value": 0.5}],
        [{"ok": True}, {"ok": None}],
        [{"detail": 'a "quoted", multi\nline text'}],
        [{"a": 1}, {"b": "later column"}],
    ],
)
def test_known_records_are_written_as_pandas_wrote_them(records: list[dict[str, Any]]) -> None:
    assert csv_text(records) == pandas_csv(records)


@given(st.lists(st.dictionaries(COLUMNS, CELLS, max_size=4), max_size=6))
def test_any_records_are_written_as_pandas_wrote_them(records: list[dict[str, Any]]) -> None:
    # A column of one kind each (numbers, text or booleans, with nulls): what the commands emit.
    columns = {key for record in records for key in record}
    for column in columns:
        kinds = {
            "text" if isinstance(v, str) else "bool" if isinstance(v, bool) else "number"
            for record in records
            if (v := record.get(column)) is not None
        }
        assume(len(kinds) <= 1)
    assert csv_text(records) == pandas_csv(records)
