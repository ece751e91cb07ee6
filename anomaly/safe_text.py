"""Untrusted text made safe for a terminal or a log line.

Group values, metric names, error messages and HTTP reason phrases come from data or from other
systems. Printed raw, an escape sequence (``ESC [ 2 J``) drives the reader's terminal and a
newline forges a log line of its own. `terminal_safe` shows such characters as visible escapes
instead: one line, nothing a terminal interprets, and the reader still sees what was there.
"""

from __future__ import annotations

import unicodedata

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Bidirectional overrides and isolates: they reorder what a reader sees (Trojan Source)."""


def terminal_safe(text: object) -> str:
    """`text` on one line, with control, format and bidirectional characters escaped.

    Printable text (any script, emoji) is left as it is; a backslash is doubled so an escape
    shown here cannot be mistaken for one that was in the data.

    >>> terminal_safe("DE\\n2026-03-01 ERROR forged")
    'DE\\\\n2026-03-01 ERROR forged'
    >>> terminal_safe("\\x1b[2Jred"), terminal_safe("Zürich \\u202eevil")
    ('\\\\x1b[2Jred', 'Zürich \\\\u202eevil')
    """
    value = text if isinstance(text, str) else str(text)
    if value.isprintable() and "\\" not in value:
        return value  # the common case, checked in C
    return "".join(_escaped(c) for c in value)


def _escaped(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    if char in _BIDI or unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"):
        code = ord(char)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    return char
