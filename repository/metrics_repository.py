"""``MetricsRepository``: the public face of the metrics repository, on either backend."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from repository.annotations import (
    Annotation,
    add_annotation,
    delete_annotations,
    load_annotations,
    load_coverage,
)
from repository.backends import Backend, Dialect, SqlCursor, open_backend
from repository.catalog import list_groups, list_metrics, tag_values
from repository.deliveries import Deliveries
from repository.dimensions import GroupKeys
from repository.history import annotated_history, histories, history, latest
from repository.keys import DATASET_TAG, HasMetricId, ResultKey, TimeLike, metric_id_of
from repository.outcomes import CheckOutcome, load_outcomes, stage_outcomes, write_outcomes
from repository.query import MetricQuery
from repository.records import MetricRecord
from repository.retention import compact, delete_runs
from repository.scan_log import ScanLog
from repository.schema import open_schema, schema_version
from repository.schema_snapshots import load_schemas, save_schema
from repository.state_store import StateStore
from repository.transfer import export_parquet, import_parquet
from repository.verdicts import AnomalyVerdict, load_verdicts, stage_verdicts, write_verdicts
from repository.writer import stage_records, stage_runs, write_points

if TYPE_CHECKING:  # pandas loads where a frame is built: read-only commands never need it
    import pandas as pd

P = ParamSpec("P")
R = TypeVar("R")


def _on_connector(
    function: Callable[Concatenate[Backend, P], R],
) -> Callable[Concatenate[MetricsRepository, P], R]:
    """The method that runs `function` on the repository's backend. The method has the
    function's parameters after the backend and its docstring, written once, in its module
    (``help()`` and ``inspect.signature`` show them)."""

    @functools.wraps(function)
    def method(self: MetricsRepository, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return function(self._connector, *args, **kwargs)

    return method


class MetricsRepository:
    """Metric history, check outcomes, anomaly verdicts and analyzer states in one DuckDB file
    or one PostgreSQL database.

    Parameters
    ----------
    path
        The DuckDB file (created, or migrated forward, on open), ``":memory:"``, or a PostgreSQL
        URL ``postgresql://USER@HOST:PORT/DATABASE`` (its tables are created, or migrated, in the
        current schema; the password comes from ``PGPASSWORD`` or ``~/.pgpass``, or the URL).
    lock_timeout
        Seconds to wait for another process using the file (or, on PostgreSQL, for another
        writer) before ``RepositoryLockedError``.

    Every operation runs one transaction or query. A DuckDB file is opened for it and released
    after, so several processes can share it: readers together (read-only, shared lock), a
    writer alone; ``session()`` keeps it open. On PostgreSQL, pooled connections serve many
    processes on many hosts: writes take turns, reads never wait (see ``docs/repository.md``).

    Examples
    --------
    >>> from datetime import datetime, timezone
    >>> repo = MetricsRepository(":memory:")
    >>> for day in (1, 2, 3):
    ...     key = ResultKey(datetime(2024, 5, day, tzinfo=timezone.utc), {"dataset": "orders"})
    ...     repo.save(key, [MetricRecord("Dataset", "*", "Size", "Size(*)", 100.0 + day)])
    >>> repo.history("Size(*)", tags={"dataset": "orders"}).tolist()
    [101.0, 102.0, 103.0]
    >>> repo.datasets()
    ['orders']
    >>> repo.close()
    """

    def __init__(self, path: str | os.PathLike[str], *, lock_timeout: float = 30.0) -> None:
        self._connector = open_backend(path, lock_timeout, open_schema)
        self.states = StateStore(self._connector)
        """Analyzer states for differential computation."""
        self.scan_log = ScanLog(self._connector)
        """Executions of scheduled scans."""
        self.deliveries = Deliveries(self._connector)
        """Alert deliveries that failed (the outbox)."""

    @property
    def path(self) -> str:
        """The absolute path of the file (``":memory:"`` for an in-memory repository), or the
        URL of the database with its password masked."""
        return self._connector.target

    @property
    def dialect(self) -> Dialect:
        """The SQL of the store for the constructs that differ between DuckDB and PostgreSQL
        (``backends.dialects``), for ad-hoc SQL through ``sql()``."""
        return self._connector.dialect

    @property
    def schema_version(self) -> int:
        """The schema version of the file (always the newest this package knows, once open)."""
        with self._connector.cursor() as cur:
            return schema_version(cur)

    def save(
        self,
        key: ResultKey,
        metrics: Iterable[MetricRecord],
        *,
        outcomes: Iterable[CheckOutcome] = (),
        verdicts: Iterable[AnomalyVerdict] = (),
    ) -> None:
        """Store one run's metrics (and optionally outcomes and verdicts) in one transaction.

        Saving a key again replaces that run's points of every metric id in ``metrics`` (all
        names and groups of it); its other metric ids are kept. Failed metrics are stored with
        their error and left out of value histories.
        """
        staged = stage_records(key, metrics)
        groups = GroupKeys()
        staged_outcomes = stage_outcomes(outcomes, groups)
        staged_verdicts = stage_verdicts(key, verdicts, groups)
        with self._connector.transaction() as cur:
            write_points(cur, staged)
            write_outcomes(cur, key, staged_outcomes, groups)
            write_verdicts(cur, key, staged_verdicts, groups)

    def save_many(
        self,
        runs: Iterable[tuple[ResultKey, Iterable[MetricRecord]]] = (),
        *,
        verdicts: Iterable[tuple[ResultKey, Iterable[AnomalyVerdict]]] = (),
    ) -> None:
        """Store several runs' metrics and verdicts in one transaction: what ``save`` of each
        run's metrics and ``save_verdicts`` of each run's verdicts store, with one commit (a
        backfill stores a run and its verdicts per partition). A run given twice in `runs` is
        a ``ValueError`` and nothing is written.

        >>> repo = MetricsRepository(":memory:")
        >>> keys = [ResultKey(day * 86_400_000, {"dataset": "orders"}) for day in range(3)]
        >>> repo.save_many([(k, [MetricRecord("Dataset", "*", "Size", "Size(*)", 10.0)])
        ...                 for k in keys])
        >>> repo.history("Size(*)", tags={"dataset": "orders"}).tolist()
        [10.0, 10.0, 10.0]
        """
        staged = stage_runs(runs)
        judged = []
        for key, items in verdicts:
            groups = GroupKeys()
            judged.append((key, stage_verdicts(key, items, groups), groups))
        with self._connector.transaction() as cur:
            write_points(cur, staged)
            for key, table, groups in judged:
                write_verdicts(cur, key, table, groups)

    def load(self) -> MetricQuery:
        """A query over stored points: ``with_tags``, ``for_metrics``, ``with_group``, ``after``,
        ``before``, then ``get()`` or ``to_pandas()``."""
        return MetricQuery(self._connector)

    history = _on_connector(history)
    histories = _on_connector(histories)
    annotated_history = _on_connector(annotated_history)

    def annotate(
        self,
        kind: str,
        start: TimeLike,
        end: TimeLike | None = None,
        *,
        metric: str | HasMetricId | None = None,
        tags: Mapping[str, str] | None = None,
        group: Mapping[str, str | None] | None = None,
        note: str | None = None,
    ) -> int:
        """Mark ``[start, end]`` (inclusive; one point without ``end``) as an ``incident``, an
        ``expected`` change or ``excluded`` from baselines; returns the annotation's id.

        ``metric=None`` covers every metric, ``group=None`` every group (``{}`` is the
        whole-dataset series) and ``tags`` the runs whose tags include them (default: all).
        See ``repository.annotations``.
        """
        annotation = Annotation(
            kind=kind,
            start=start,
            end=end,
            metric_id=None if metric is None else metric_id_of(metric),
            group=group,
            tags={} if tags is None else tags,
            note=note,
        )
        return add_annotation(self._connector, annotation)

    annotations = _on_connector(load_annotations)
    coverage = _on_connector(load_coverage)

    def delete_annotations(self, ids: int | Iterable[int]) -> int:
        """Delete annotations by id; returns how many were deleted."""
        return delete_annotations(self._connector, ids)

    latest = _on_connector(latest)

    def datasets(self) -> list[str]:
        """The values of the ``dataset`` tag over all runs."""
        return tag_values(self._connector, DATASET_TAG)

    def tag_values(self, tag: str) -> list[str]:
        """The values of one tag over all runs."""
        return tag_values(self._connector, tag)

    def metrics(self, tags: Mapping[str, str] | None = None) -> pd.DataFrame:
        """One row per stored metric with its group, point and failure counts and time span."""
        return list_metrics(self._connector, tags)

    def groups(
        self, metric: str | HasMetricId | None = None, tags: Mapping[str, str] | None = None
    ) -> list[dict[str, str | None]]:
        """The distinct groups (of one metric, or of all); ``{}`` is the whole dataset."""
        return list_groups(self._connector, metric, tags)

    def save_outcomes(self, key: ResultKey, items: Iterable[CheckOutcome]) -> None:
        """Store a run's check outcomes (replacing its earlier outcomes of the same checks)."""
        self.save(key, (), outcomes=items)

    load_outcomes = _on_connector(load_outcomes)

    def save_verdicts(self, key: ResultKey, items: Iterable[AnomalyVerdict]) -> None:
        """Store a run's anomaly verdicts (replacing its earlier ones of the same metric and
        detector)."""
        self.save(key, (), verdicts=items)

    load_verdicts = _on_connector(load_verdicts)

    def save_schema(self, key: ResultKey, schema: Mapping[str, Any]) -> None:
        """Store the source's schema at `key`'s run (a JSON object with a ``fields`` list, as
        Spark's ``StructType.jsonValue()``), replacing that run's earlier snapshot."""
        save_schema(self._connector, key, schema)

    schemas = _on_connector(load_schemas)
    delete_runs = _on_connector(delete_runs)

    def compact(self, *, recluster: bool = True) -> None:
        """Copy the repository into a fresh file that replaces it (only live data: the file
        shrinks), with points sorted by series (``recluster``) so history reads stay fast."""
        compact(self._connector, recluster=recluster)

    export_parquet = _on_connector(export_parquet)

    def import_parquet(self, path: str | os.PathLike[str]) -> int:
        """Merge a Parquet export into this repository in one transaction; returns rows."""
        return import_parquet(self._connector, path)

    @contextmanager
    def session(self) -> Iterator[MetricsRepository]:
        """Keep the file open across many operations: shared with other readers until its first
        write, then exclusively (other processes' writes, then all of them, wait until it ends).
        On PostgreSQL, where connections are pooled anyway, this changes nothing."""
        with self._connector.session():
            yield self

    @contextmanager
    def sql(self) -> Iterator[SqlCursor]:
        """A cursor for ad-hoc SQL over the documented views, with ``?`` placeholders: DuckDB's
        own cursor (reading: the file is attached read-only unless a write of this process holds
        it), or on PostgreSQL one inside a read-only transaction."""
        with self._connector.sql_cursor() as cur:
            yield cur

    def close(self) -> None:
        """Release an in-memory repository or a PostgreSQL repository's pooled connections; file
        repositories hold nothing between operations."""
        self._connector.close()

    def __enter__(self) -> MetricsRepository:
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"MetricsRepository({self.path!r})"
