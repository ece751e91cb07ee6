"""Where a scan's data comes from: files (parquet/csv/json), a table, or a SQL query."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import ValidationInfo, field_validator, model_validator

from anomaly.config.model import ConfigModel
from anomaly.config.problems import custom_error
from anomaly.config.stream_config import StreamSourceConfig

FileFormat = Literal["parquet", "csv", "json"]
Partition = Literal["day", "hour"]
EXTENSIONS: dict[str, FileFormat] = {".csv": "csv", ".json": "json", ".jsonl": "json"}
CSV_DEFAULTS = {"header": "true", "inferSchema": "true"}


class SourceConfig(ConfigModel):
    """One source: exactly one of ``path`` (with ``format`` and reader ``options``), ``table``,
    ``sql`` or ``stream`` (a Structured Streaming source, ``time_column`` its event time). With
    ``time_column`` every scan measures one ``partition`` (a UTC day or hour of that column)
    and ``anomaly backfill`` can compute the past ones.

    A relative ``path`` is relative to the config file. ``format`` defaults from the extension
    (``.csv``, ``.json``/``.jsonl``, else parquet); CSV is read with a header and inferred types
    unless ``options`` say otherwise.

    Examples
    --------
    >>> source = SourceConfig.model_validate({"path": "/data/events.csv", "time_column": "day"})
    >>> source.kind, source.reader_options, source.period
    ('csv', {'header': 'true', 'inferSchema': 'true'}, 'day')
    >>> SourceConfig.model_validate({"table": "orders"}).describe()
    'table orders'
    """

    path: str | None = None
    format: FileFormat | None = None
    options: dict[str, str | int | float | bool] = {}
    table: str | None = None
    sql: str | None = None
    stream: StreamSourceConfig | None = None
    time_column: str | None = None
    partition: Partition | None = None

    @field_validator("path")
    @classmethod
    def _relative_to_config(cls, value: str | None, info: ValidationInfo) -> str | None:
        base = (info.context or {}).get("base_dir")
        if value is None or base is None or "://" in value or value.startswith("file:"):
            return value
        return str((Path(base) / Path(value).expanduser()).resolve())

    @model_validator(mode="after")
    def _one_kind(self) -> SourceConfig:
        given = [k for k in ("path", "table", "sql", "stream") if getattr(self, k) is not None]
        if len(given) != 1:
            found = f"got {', '.join(given)}" if given else "got none"
            raise custom_error(
                f"a source needs exactly one of 'path', 'table', 'sql', 'stream' ({found})"
            )
        if self.stream is not None and self.time_column is None:
            raise custom_error("a stream source needs 'time_column' (its event time)")
        if self.stream is not None and self.partition is not None:
            raise custom_error(
                "'partition' does not apply to stream sources (their scans set a window)",
                key="partition",
            )
        if self.path is None:
            for key in ("format", "options"):
                if key in self.model_fields_set:
                    raise custom_error(f"{key!r} applies to 'path' sources only", key=key)
        if self.partition is not None and self.time_column is None:
            raise custom_error("'partition' needs 'time_column'", key="partition")
        return self

    @property
    def kind(self) -> str:
        """``parquet``, ``csv``, ``json``, ``table``, ``sql`` or ``stream``."""
        if self.path is not None:
            return self.format or EXTENSIONS.get(Path(self.path).suffix.lower(), "parquet")
        if self.stream is not None:
            return "stream"
        return "table" if self.table is not None else "sql"

    @property
    def period(self) -> Partition:
        """The partition length (``day`` unless set)."""
        return self.partition or "day"

    @property
    def partitioning(self) -> Partition | None:
        """The partition a scan measures, or None without a time column."""
        return self.period if self.time_column is not None else None

    @property
    def reader_options(self) -> dict[str, str]:
        """Spark reader options as text (booleans as ``true``/``false``)."""
        options = dict(CSV_DEFAULTS) if self.kind == "csv" else {}
        for key, value in self.options.items():
            options[key] = str(value).lower() if isinstance(value, bool) else str(value)
        return options

    def describe(self) -> str:
        """A short description for progress lines and errors."""
        if self.path is not None:
            return f"{self.kind} {self.path}"
        if self.table is not None:
            return f"table {self.table}"
        if self.stream is not None:
            return self.stream.describe()
        sql = " ".join((self.sql or "").split())
        return f"sql {sql[:60]}{'...' if len(sql) > 60 else ''}"
