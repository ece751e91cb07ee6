"""Streaming in the config file: a source read with ``spark.readStream``, a scan's windows.

A source with ``stream:`` is a Structured Streaming source; a scan of it needs ``stream:``
settings (window, watermark, checkpoint) and runs continuously under ``anomaly serve``
(``anomaly scan`` processes what is available and stops). See ``docs/streaming.md``.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from anomaly.config.durations import Duration
from anomaly.config.model import ConfigModel
from anomaly.config.problems import Problem, custom_error

FILE_FORMATS = ("json", "parquet", "csv", "text", "orc")
"""Streaming file sources: they read new files of a directory and need a ``schema``."""


def _relative(value: str | None, info: ValidationInfo) -> str | None:
    base = (info.context or {}).get("base_dir")
    if value is None or base is None or "://" in value or value.startswith("file:"):
        return value
    return str((Path(base) / Path(value).expanduser()).resolve())


class StreamSourceConfig(ConfigModel):
    """``format`` (any Spark streaming source: ``json``, ``parquet``, ``csv``, ``rate``,
    ``kafka``...), ``path`` and ``schema`` (a DDL string) for file sources, reader ``options``.

    Examples
    --------
    >>> StreamSourceConfig.model_validate({"format": "json", "path": "/in",
    ...                                    "schema": "ts timestamp, x long"}).reader_options
    {}
    >>> StreamSourceConfig.model_validate({"format": "json", "path": "/in"})
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for StreamSourceConfig
      a streaming json source needs 'schema' ...
    """

    format: str
    path: str | None = None
    schema_: str | None = Field(default=None, alias="schema")
    options: dict[str, str | int | float | bool] = {}

    @field_validator("path")
    @classmethod
    def _relative_to_config(cls, value: str | None, info: ValidationInfo) -> str | None:
        return _relative(value, info)

    @model_validator(mode="after")
    def _file_sources(self) -> StreamSourceConfig:
        if self.format in FILE_FORMATS:
            if self.path is None:
                raise custom_error(f"a streaming {self.format} source needs 'path'", key="path")
            if self.schema_ is None:
                raise custom_error(
                    f"a streaming {self.format} source needs 'schema' (Spark does not infer "
                    'the schema of a stream), e.g. schema: "ts timestamp, amount double"',
                    key="schema",
                )
        return self

    @property
    def reader_options(self) -> dict[str, str]:
        """Reader options as text (booleans as ``true``/``false``)."""
        return {
            k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in self.options.items()
        }

    def describe(self) -> str:
        """``stream json /in`` or ``stream kafka``."""
        return f"stream {self.format}{f' {self.path}' if self.path else ''}"


class StreamScanConfig(ConfigModel):
    """How a scan of a stream source windows it.

    ``window`` (tumbling, of the source's ``time_column``), ``watermark`` (allowed lateness,
    ``0s`` for none), ``checkpoint`` (Spark's checkpoint directory, relative to the config),
    ``trigger`` (``available_now`` or an interval between micro-batches), and for streaming
    accuracy ``tolerance`` (see docs/streaming.md) and ``rows`` (where rows of open windows are
    kept; default ``<checkpoint>/rows``); ``max_future``: how far ahead of the processing clock
    an event time may be (default ``1d``; rows beyond are counted, not merged).

    >>> settings = StreamScanConfig.model_validate({"window": "1h", "watermark": "0s",
    ...                                             "checkpoint": "/ck/clicks"})
    >>> settings.window, settings.watermark, settings.trigger, settings.rows_path
    (datetime.timedelta(seconds=3600), datetime.timedelta(0), '1m', '/ck/clicks/rows')
    """

    window: Duration
    watermark: timedelta
    checkpoint: str
    trigger: str = "1m"
    tolerance: Duration | None = None
    rows: str | None = None
    max_future: Duration = timedelta(days=1)

    @field_validator("watermark", mode="before")
    @classmethod
    def _lateness(cls, value: Any) -> Any:
        from anomaly.config.durations import parse_duration

        if value in (0, "0", "0s", "0m", "0h"):
            return timedelta(0)
        return parse_duration(value)

    @field_validator("trigger", mode="before")
    @classmethod
    def _trigger(cls, value: Any) -> Any:
        from anomaly.config.durations import format_duration, parse_duration

        if value == "available_now":
            return value
        try:
            return format_duration(parse_duration(value))
        except ValueError as error:
            raise ValueError(f"write available_now or an interval such as 30s ({error})") from None

    @field_validator("checkpoint", "rows")
    @classmethod
    def _relative_to_config(cls, value: str | None, info: ValidationInfo) -> str | None:
        return _relative(value, info)

    @property
    def rows_path(self) -> str:
        """Where streaming accuracy keeps the rows of open windows."""
        return self.rows or f"{self.checkpoint.rstrip('/')}/rows"


def stream_problems(config: Any) -> list[Problem]:
    """Problems between stream sources and their scans in a `ServiceConfig` (key paths)."""
    found = []
    for name, scan in config.scans.items():
        source = config.sources.get(scan.source)
        if source is None:
            continue
        where = ("scans", name)
        if source.stream is not None and scan.stream is None:
            found.append(
                Problem(
                    where,
                    f"source {scan.source!r} is a stream: the scan needs "
                    "'stream' settings (window, watermark, checkpoint)",
                )
            )
        elif source.stream is None and scan.stream is not None:
            found.append(
                Problem(
                    (*where, "stream"),
                    f"source {scan.source!r} is not a stream "
                    "source: remove 'stream' or use a stream",
                )
            )
        if scan.stream is None or source.stream is None:
            continue
        if scan.schedule is not None:
            found.append(
                Problem(
                    (*where, "schedule"),
                    "a stream scan runs continuously (its "
                    "stream.trigger says how often): remove 'schedule'",
                )
            )
        found += _accuracy_problems(config, name, scan)
    return found


def _accuracy_problems(config: Any, name: str, scan: Any) -> list[Problem]:
    """A streaming Accuracy compares with another stream source and is its scan's only
    metric; the rule or ``tolerance`` must bound how late a target row may come."""
    from anomaly.accuracy import Accuracy
    from anomaly.config.time_bounds import rule_time_bounds

    found = []
    for i, metric in enumerate(scan.metrics):
        analyzer = metric.analyzer_object
        if not isinstance(analyzer, Accuracy):
            continue
        target = config.sources.get(analyzer.target)
        where = ("scans", name, "metrics", i)
        if target is None or target.stream is None:
            found.append(
                Problem(
                    (*where, "target"),
                    f"in a stream scan, Accuracy's target must "
                    f"name a stream source; got {analyzer.target!r}",
                )
            )
            continue
        if len(scan.metrics) > 1:
            found.append(
                Problem(
                    where,
                    "a streaming Accuracy must be its scan's only metric "
                    "(put the other metrics in a scan of their own)",
                )
            )
        source = config.sources[scan.source]
        bounds = rule_time_bounds(analyzer.plan, source.time_column, target.time_column)
        if bounds.upper is None and scan.stream.tolerance is None:
            found.append(
                Problem(
                    ("scans", name, "stream", "tolerance"),
                    "the rule does not "
                    "bound how much later than its source row a target row may "
                    "come: give a tolerance (e.g. 1h)",
                )
            )
    return found
