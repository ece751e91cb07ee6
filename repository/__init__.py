"""The metrics repository: metric history per dataset, tags and group, in a DuckDB file or a
PostgreSQL database (``backends``).

See ``docs/repository.md`` for the schema, the SQL views, the backends and their concurrency
model, retention and Parquet export. This package imports neither Spark nor
``anomaly``/``detectors``.
"""

from __future__ import annotations

from repository.annotations import ANNOTATION_KINDS, Annotation, Coverage
from repository.deliveries import Deliveries, PendingDelivery
from repository.errors import (
    AmbiguousSeriesError,
    CorruptRepositoryError,
    MigrationError,
    NotARepositoryError,
    RepositoryAuthenticationError,
    RepositoryError,
    RepositoryFullError,
    RepositoryIOError,
    RepositoryLockedError,
    RepositoryOpenError,
    RepositoryUnavailableError,
    RepositoryURLError,
    SchemaVersionError,
    UnstorableValueError,
)
from repository.keys import DATASET_TAG, ResultKey
from repository.metrics_repository import MetricsRepository
from repository.outcomes import CheckOutcome
from repository.query import MetricQuery
from repository.records import MetricRecord, RunResult
from repository.retention import DeletedRows
from repository.scan_log import ScanLog
from repository.schema_snapshots import StoredSchema
from repository.state_store import AnalyzerState, StateStore
from repository.verdicts import AnomalyVerdict

__all__ = [
    "ANNOTATION_KINDS",
    "DATASET_TAG",
    "AmbiguousSeriesError",
    "AnalyzerState",
    "Annotation",
    "AnomalyVerdict",
    "CheckOutcome",
    "CorruptRepositoryError",
    "Coverage",
    "DeletedRows",
    "Deliveries",
    "MetricQuery",
    "MetricRecord",
    "MetricsRepository",
    "MigrationError",
    "NotARepositoryError",
    "PendingDelivery",
    "RepositoryAuthenticationError",
    "RepositoryError",
    "RepositoryFullError",
    "RepositoryIOError",
    "RepositoryLockedError",
    "RepositoryOpenError",
    "RepositoryURLError",
    "RepositoryUnavailableError",
    "ResultKey",
    "RunResult",
    "ScanLog",
    "SchemaVersionError",
    "StateStore",
    "StoredSchema",
    "UnstorableValueError",
]
