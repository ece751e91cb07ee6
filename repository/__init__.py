"""The metrics repository: metric history per dataset, tags and group, in a DuckDB file or a
PostgreSQL database (``backends``).

See ``docs/repository.md`` for the schema, the SQL views, the backends and their concurrency
model, retention and Parquet export. This package imports neither Spark nor
``anomaly``/``detectors``.

The names below load their module when first used (PEP 562): a program that needs only
``repository.keys`` or ``repository.records`` (a config's validation) loads neither DuckDB nor
Arrow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from repository.lazy_names import lazy_names

if TYPE_CHECKING:
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

else:
    __getattr__, __dir__ = lazy_names(__name__)

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
