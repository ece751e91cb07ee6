"""What every run of a config's scans shares: the config, one Spark session (started on first
use), the repository, progress lines, the scan log; and how a failure is told in one line."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from anomaly.config.config import ServiceConfig
from anomaly.errors import AnomalyError
from anomaly.judging.report import ScanStatus
from anomaly.service.progress import Progress
from repository import MetricsRepository, RepositoryError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOG = logging.getLogger("anomaly.service")


class ScanSession:
    """The config, Spark session, repository and progress of a config's runs (scheduled
    scans, backfills and stream queries alike).

    >>> config = ServiceConfig.model_validate({"repository": ":memory:", "sources": {},
    ...                                        "scans": {}})
    >>> ScanSession(config).repository is not None  # Spark starts on first use only
    True
    """

    def __init__(
        self,
        config: ServiceConfig,
        *,
        spark: SparkSession | None = None,
        repository: MetricsRepository | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.config = config
        self._spark = spark
        self.repository = repository or MetricsRepository(config.repository)
        self.progress = progress or Progress.silent()

    @property
    def spark(self) -> SparkSession:
        """The session: the one given, the active one, or one built from the config."""
        if self._spark is None:
            from pyspark.sql import SparkSession

            from anomaly.spark import build_session, is_connect, prepare_error_loggers

            settings = self.config.spark
            active = SparkSession.getActiveSession()
            if active is not None:
                prepare_error_loggers()
                self._spark = active
            else:
                self.progress.step(f"starting Spark ({settings.remote or settings.master})")
                self._spark = build_session(
                    master=settings.master,
                    remote=settings.remote,
                    app_name=settings.app_name,
                    conf=settings.conf,
                )
                if not is_connect(self._spark):
                    # Failed tasks are reported as failed metrics with their cause; Spark's own
                    # ERROR lines would add Java stack traces to the terminal.
                    self._spark.sparkContext.setLogLevel("FATAL")
        return self._spark

    def record_end(self, log_id: int, name: str, status: ScanStatus, error: str | None) -> None:
        """Finish the scan log row (a repository problem is logged, not raised)."""
        try:
            self.repository.scan_log.finish(log_id, status.label, error)
        except RepositoryError as problem:
            LOG.error("%s: cannot record the run in the scan log: %s", name, problem)


def describe(error: BaseException) -> str:
    """A failure in one line: our errors as they are, others with their type."""
    if isinstance(error, AnomalyError | RepositoryError | ValueError | OSError):
        text = str(error)
    else:
        text = f"{type(error).__name__}: {error}"
    return text.strip().splitlines()[0] if text.strip() else type(error).__name__
