"""The client-side deadline of PostgreSQL operations: moved to :mod:`repository.watchdog`, which
the webhook alerts share (this name stays for a release)."""

from __future__ import annotations

from repository.watchdog import WATCHDOG, Alarm, Watchdog

__all__ = ["WATCHDOG", "Alarm", "Watchdog"]
