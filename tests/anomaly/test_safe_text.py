"""`terminal_safe`: untrusted text on one line, nothing a terminal interprets (finding 20)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from anomaly.safe_text import terminal_safe


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("country=FR", "country=FR"),
        ("Zürich 東京 🙂", "Zürich 東京 🙂"),
        ("a\nb\r\tc", "a\\nb\\r\\tc"),
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("\x9b2J", "\\x9b2J"),  # the 8-bit CSI
        ("\x00\x07\x7f", "\\x00\\x07\\x7f"),
        ("abc\u202edcba", "abc\\u202edcba"),  # a right-to-left override
        ("line\u2028sep", "line\\u2028sep"),
        ("C:\\new", "C:\\\\new"),  # a backslash of the data cannot pass for an escape
        (42, "42"),
    ],
)
def test_control_characters_are_shown_escaped(text: object, shown: str) -> None:
    assert terminal_safe(text) == shown


@given(st.text())
def test_the_result_is_one_line_a_terminal_shows_as_it_is(text: str) -> None:
    safe = terminal_safe(text)
    unsafe = {"Cc", "Cf", "Cs", "Co", "Zl", "Zp"}
    assert not [c for c in safe if unicodedata.category(c) in unsafe]
    assert terminal_safe(text + "\n") != terminal_safe(text + "\\n")
