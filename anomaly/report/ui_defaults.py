"""Where the live UI listens and where its token comes from, unless told otherwise.

Kept apart from ``serving`` (the server, its web framework and the repository) so that the
command line's ``--ui`` help costs no import.
"""

from __future__ import annotations

DEFAULT_ADDRESS = "127.0.0.1:8080"
"""``--ui`` without a value: loopback, port 8080."""
TOKEN_VARIABLE = "ANOMALY_UI_TOKEN"
"""The environment variable holding the UI's bearer token (no token when unset)."""
