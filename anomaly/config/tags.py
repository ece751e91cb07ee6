"""The tag the service sets on every run it stores (a module of its own: the read-only
commands filter by it without loading the config's models)."""

from __future__ import annotations

SCAN_TAG = "scan"
"""The tag every scan's runs carry (with ``dataset``, the source name, unless overridden)."""
