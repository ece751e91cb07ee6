"""PostgreSQL repository URLs: checked before use, shown without their password.

``postgresql://user@host:5432/database`` (``postgres://`` too), with libpq's query parameters
(``?sslmode=require``, ``?options=-csearch_path%3Dmetrics`` for a schema of its own) and the
repository's own ``statement_timeout`` and ``client_timeout`` (seconds; see ``backend``).
The password should come from the environment (``PGPASSWORD``, a ``~/.pgpass`` file, or a config's
``${VAR}``); one written into the URL works too. Either way it never appears in ``repr``, in an
error message or in a log record: ``Location.display`` is the URL with ``***`` in its place, and
``Location.scrub`` removes it from any text a driver produced.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from repository.errors import RepositoryURLError

SCHEMES = ("postgresql", "postgres")
MASK = "***"


def is_url(location: object) -> bool:
    """Whether ``location`` is a PostgreSQL URL rather than a file path.

    >>> is_url("postgresql://db/metrics"), is_url("metrics.duckdb")
    (True, False)
    """
    return (
        isinstance(location, str)
        and location.split("://", 1)[0].lower() in SCHEMES
        and ("://" in location)
    )


@dataclass(frozen=True)
class Location:
    """A checked PostgreSQL URL.

    Examples
    --------
    >>> place = parse("postgresql://ana:s3cret@db.example:5432/metrics?sslmode=require")
    >>> place.display
    'postgresql://ana:***@db.example:5432/metrics?sslmode=require'
    >>> place.scrub("FATAL: no access for s3cret")
    'FATAL: no access for ***'
    """

    url: str = field(repr=False)
    display: str
    secrets: tuple[str, ...] = field(default=(), repr=False)
    timeouts: dict[str, float] = field(default_factory=dict)
    """The repository's own parameters given in the URL (``TIMEOUTS``), in seconds; ``url``
    is the URL without them, for libpq (which refuses parameters it does not know)."""

    def scrub(self, text: str) -> str:
        """``text`` with every password this URL or the environment carries masked."""
        for secret in (*self.secrets, os.environ.get("PGPASSWORD", "")):
            if secret:
                text = text.replace(secret, MASK)
        return text


def parse(url: str) -> Location:
    """Check a PostgreSQL URL's shape (scheme, host, port, database); libpq checks the rest."""
    display, secrets = mask_passwords(url)
    delimiters = sorted(set(_userinfo(url)[1] or "") & set(_DELIMITERS))
    if delimiters:
        # libpq would cut the URL there and send part of the password as a host name (which
        # then appears in its errors): refuse it, without showing the password.
        encoded = ", ".join(f"{c!r} as {quote(c, safe='')}" for c in delimiters)
        raise RepositoryURLError(
            _bad(
                display,
                f"a {', '.join(map(repr, delimiters))} in the password must be "
                f"percent-encoded ({encoded}), or the password given in PGPASSWORD instead",
            )
        )
    try:
        parts = urlsplit(url)
        # libpq takes several hosts (host1:5432,host2:5432) for failover: let it check those.
        port = None if "," in parts.netloc else parts.port
        parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError as exc:
        said = Location(url, display, secrets).scrub(str(exc))
        raise RepositoryURLError(_bad(display, f"it does not parse ({said})")) from None
    if parts.scheme.lower() not in SCHEMES:
        raise RepositoryURLError(_bad(display, f"the scheme must be one of {', '.join(SCHEMES)}"))
    if parts.fragment:
        raise RepositoryURLError(_bad(display, "a URL of a database has no #fragment"))
    if port == 0:
        raise RepositoryURLError(_bad(display, "the port must be 1-65535"))
    database = unquote(parts.path.lstrip("/"))
    if "/" in database:
        raise RepositoryURLError(_bad(display, f"the path must be /DATABASE, got {parts.path!r}"))
    timeouts: dict[str, float] = {}
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name in TIMEOUTS:
            timeouts[name] = _seconds(display, name, value)
    libpq_url = _TIMEOUT_PARAMETER.sub("", url).replace("?&", "?").rstrip("?&")
    return Location(libpq_url, display, secrets, timeouts)


TIMEOUTS = ("statement_timeout", "client_timeout")
"""Query parameters of a repository URL that are the repository's, not libpq's (seconds)."""
_TIMEOUT_PARAMETER = re.compile(rf"(?<=[?&])(?:{'|'.join(TIMEOUTS)})=[^&#]*&?")


def _seconds(display: str, name: str, value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise RepositoryURLError(
            _bad(display, f"{name} must be a number of seconds >= 0 (0: none), got {value!r}")
        )
    return seconds


def mask_passwords(url: str) -> tuple[str, tuple[str, ...]]:
    """The URL with its passwords masked, and the passwords (as written and decoded), found by
    plain text rules so that even a URL that does not parse is shown masked.

    A password may hold ``#``, ``/``, ``?`` or ``@`` that were not percent-encoded: the user
    information ends at the first ``@`` that the rest of a URL follows (a host, a port, a
    database, ``key=value`` parameters), so that no part of such a password is shown.

    >>> mask_passwords("postgresql://ana:a#b/c?d@db:5432/metrics")
    ('postgresql://ana:***@db:5432/metrics', ('a#b/c?d',))
    """
    scheme, _, _ = url.partition("://")
    user, password, tail = _userinfo(url)
    found = []
    if password is not None:
        found = [password]
        userinfo = f"{user}:{MASK}@"
    else:
        userinfo = "" if user is None else f"{user}@"
    found += _QUERY_PASSWORD.findall(tail)
    tail = _QUERY_PASSWORD.sub(MASK, tail)
    secrets = {s for raw in found for s in (raw, unquote(raw)) if s}
    # Longest first, so that a password containing another is masked whole.
    return f"{scheme}://{userinfo}{tail}", tuple(sorted(secrets, key=len, reverse=True))


def _userinfo(url: str) -> tuple[str | None, str | None, str]:
    """The user name (None: none), the password as written (None: none) and the rest of the URL
    after them (host, path, query)."""
    _, _, rest = url.partition("://")
    found = (m.start() for m in _AT.finditer(rest) if _AFTER_USER.match(rest, m.end()))
    at = next(found, rest.rfind("@"))  # a URL of another shape: mask all that may be a password
    if at < 0:
        return None, None, rest
    userinfo, tail = rest[:at], rest[at + 1 :]
    user, colon, password = userinfo.partition(":")
    return user, (password if colon else None), tail


_DELIMITERS = "#/?@"
_AT = re.compile("@")
# What follows the user information: hosts (names, IPv4/IPv6, ports, a failover list), then
# /DATABASE, then ?key=value&... parameters, and nothing else.
_AFTER_USER = re.compile(r"[\w.\-\[\]:,%]*(?:/[^/?#@]*)?(?:\?\w+=[^&#]*(?:&\w+=[^&#]*)*)?$")
_QUERY_PASSWORD = re.compile(r"(?<=[?&]password=)[^&#]*")


def _bad(display: str, why: str) -> str:
    return (
        f"{display} is not a usable PostgreSQL URL: {why}. Expected "
        "postgresql://USER@HOST:PORT/DATABASE (the password from PGPASSWORD or ~/.pgpass)"
    )
