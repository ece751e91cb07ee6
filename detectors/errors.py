"""Errors raised by the detectors package.

Too little history is never an error: it is a result (``Status.INSUFFICIENT_HISTORY``).
Errors are for callers who passed something wrong, and the messages say what, with which value,
and what is allowed.
"""

from __future__ import annotations


class DetectorError(Exception):
    """Base class of every error this package raises on purpose."""


class InvalidParameterError(DetectorError, ValueError):
    """A detector was constructed with a bad parameter; ``parameter`` names it.

    Examples
    --------
    >>> error = InvalidParameterError("order", "must be an integer >= 1", 0)
    >>> error.parameter
    'order'
    >>> str(error)
    'order must be an integer >= 1, got 0'
    """

    def __init__(self, parameter: str, requirement: str, value: object) -> None:
        super().__init__(f"{parameter} {requirement}, got {value!r}")
        self.parameter = parameter


class DetectorLoadError(DetectorError, ValueError):
    """A detector named by import path (e.g. in a config file) could not be loaded or built."""


class InvalidTimeError(DetectorError, ValueError):
    """Times of a series that cannot be read as times (missing ones, None or NaT, are dropped
    instead)."""
