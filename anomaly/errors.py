"""Errors of the `anomaly` package: each message says what was wrong, the value, what is allowed."""

from __future__ import annotations


class AnomalyError(Exception):
    """Base class of every error this package raises on purpose."""


class ConfigurationError(AnomalyError, ValueError):
    """A parameter, setting or config value is invalid."""


class AnalysisError(AnomalyError):
    """An analysis could not run at all (e.g. a `group_by` column is missing)."""


class MetricComputationError(AnomalyError):
    """Why one metric could not be computed; carried as a value in a failed `Metric`."""


class StateError(AnomalyError, ValueError):
    """A state cannot be merged, read or written (wrong kind, incompatible version, corrupt)."""


def spark_error_message(error: BaseException) -> str:
    """The first line of a Spark error, without the JVM stack trace.

    >>> spark_error_message(ValueError("bad thing\\n\\tat org.apache.spark..."))
    'bad thing'
    """
    text = str(error).strip()
    first = text.splitlines()[0] if text else type(error).__name__
    # Spark appends the logical plan after ';' on analysis errors: users need the cause only.
    return first.split(";\n")[0].rstrip(";")


def job_error_message(error: BaseException) -> str:
    """One line saying why a Spark job failed: for a Py4J error, its root Java cause.

    A Py4J error's own first line is only "An error occurred while calling o184.collectToPython."
    """
    cause = getattr(error, "java_exception", None)
    if cause is None:
        return spark_error_message(error)
    try:
        while cause.getCause() is not None:
            cause = cause.getCause()
        text = f"{cause.getClass().getSimpleName()}: {cause.getMessage()}"
    except Exception:  # the JVM is gone: fall back to the Python text
        return spark_error_message(error)
    return spark_error_message(RuntimeError(text))


class VerificationFailed(AnomalyError):  # noqa: N818 - reads as the event it reports
    """A verification run's status reached the level given to ``raise_for_status``."""
