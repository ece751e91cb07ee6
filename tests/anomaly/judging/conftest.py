"""Fixtures of the judging tests: the service tests' local webhook."""

from tests.anomaly.service.conftest import hook

__all__ = ["hook"]
