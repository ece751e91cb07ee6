"""Laws of the report's JSON: numbers keep 6 significant digits, nothing can close the script
element it sits in, and it reads back as the data."""

from __future__ import annotations

import json
import math

from hypothesis import given
from hypothesis import strategies as st

from anomaly.report.encoding import rounded, script_json


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), max_size=50))
def test_rounding_keeps_six_significant_digits(values: list[float]) -> None:
    for value, kept in zip(values, rounded(values), strict=True):
        if not math.isfinite(value):
            assert kept is None
        else:
            assert kept is not None and math.isclose(kept, value, rel_tol=5e-6, abs_tol=1e-300)
            assert len(repr(abs(kept)).replace(".", "").lstrip("0").split("e")[0]) <= 17


@given(st.recursive(
    st.none() | st.booleans() | st.text() | st.integers(-2**53, 2**53),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
))  # fmt: skip
def test_embedded_json_never_closes_its_element_and_reads_back(data: object) -> None:
    text = script_json(data)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == data


def test_short_decimals_print_short() -> None:
    assert json.dumps(rounded([0.1 + 0.2, 1234567.891, 2 / 3, -1e-7 / 3])) == (
        "[0.3, 1234570.0, 0.666667, -3.33333e-08]"
    )
