"""Faults of the PostgreSQL backend found by the security and fault audit (issue 31): passwords
that are not percent-encoded, and a server that freezes mid-operation."""

from __future__ import annotations

import re
import traceback

import pytest

from repository import MetricsRepository, RepositoryOpenError, RepositoryURLError
from repository.backends import describe

# Each piece of the password is distinctive: none of them may appear anywhere.
PIECES = ("Qx7Kz", "Wv8Lm", "Yt9Rp", "Hn6Bd")


@pytest.mark.parametrize("separator", ["#", "/", "?", "@", "#/?", ":"])
@pytest.mark.parametrize(
    "shape",
    [
        "postgresql://ana:{password}@db.example:5432/metrics",
        "postgresql://ana:{password}@db.example:5432/metrics?sslmode=require",
        "postgres://ana:{password}@db.example/metrics?application_name=ana@work",
        "postgresql://ana:{password}@db.example",
    ],
)
def test_a_password_with_url_delimiters_is_never_shown(separator: str, shape: str) -> None:
    password = separator.join(PIECES)
    url = shape.format(password=password)
    shown = describe(url)
    assert "ana:***@" in shown
    with pytest.raises(RepositoryOpenError) as raised:  # no network here: the host is unknown
        MetricsRepository(url, lock_timeout=1)
    text = "".join(traceback.format_exception(raised.value)) + shown
    assert not [piece for piece in PIECES if piece in text]
    if separator != ":":  # a ":" after the first one is part of the password, as libpq reads it
        assert isinstance(raised.value, RepositoryURLError)
        assert re.search("must be percent-encoded", str(raised.value))
