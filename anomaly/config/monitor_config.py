"""``monitors:`` in a scan: which zero-config monitors watch the source, and their few options."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from anomaly.config.detector_spec import DetectorSpec
from anomaly.config.durations import Duration
from anomaly.config.metric_spec import Severity
from anomaly.config.model import ConfigModel
from anomaly.config.problems import choice_error, custom_error

KINDS = ("volume", "freshness", "schema", "columns", "timeliness")
"""The monitors, in the order they run; ``auto`` turns on all of them."""
AUTO = "auto"
SchemaSeverity = Literal["error", "warning", "ignore"]


class Judged(ConfigModel):
    """How a monitor's metrics are judged when not as the scan's (then the defaults')."""

    detector: DetectorSpec | None = None
    severity: Severity | None = None
    min_history: int | None = Field(default=None, ge=0)


class VolumeMonitor(Judged):
    """Rows per partition (per group with ``group_by``): ``Size(*)``."""


class FreshnessMonitor(Judged):
    """How late the newest data is, judged one-sided (only late data is an anomaly)."""


class ColumnsMonitor(Judged):
    """Health of every column matching `include` and no `exclude` glob pattern (nested struct
    fields as ``a.b``); judged as ``warning`` unless set here or on the scan.

    >>> ColumnsMonitor.model_validate({"exclude": "*_id"}).exclude
    ['*_id']
    """

    include: list[str] = ["*"]
    exclude: list[str] = []

    @model_validator(mode="before")
    @classmethod
    def _lists(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {
                k: [v] if k in ("include", "exclude") and isinstance(v, str) else v
                for k, v in data.items()
            }
        return data


class TimelinessMonitor(Judged):
    """Latency from the source's ``time_column`` to `arrival_column` (default: a timestamp
    column named like ``loaded_at``, ``ingested_at``, ``arrival_time``; none found: off), and
    with `threshold` the share of records later than it."""

    arrival_column: str | None = None
    threshold: Duration | None = None


class SchemaMonitor(ConfigModel):
    """The severity of each kind of schema change (``ignore``: not reported).

    >>> SchemaMonitor().removed, SchemaMonitor().added
    ('error', 'warning')
    """

    removed: SchemaSeverity = "error"
    retyped: SchemaSeverity = "error"
    renamed: SchemaSeverity = "error"
    added: SchemaSeverity = "warning"
    reordered: SchemaSeverity = "warning"
    nullability: SchemaSeverity = "warning"

    def severity(self, change: str) -> SchemaSeverity:
        """The severity configured for a kind of change."""
        value: SchemaSeverity = getattr(self, change)
        return value


class MonitorsConfig(ConfigModel):
    """``auto`` (every monitor), a list of monitor names (an item may be ``{name: options}``)
    or a mapping of names to options (``auto: true`` turns on the others with defaults).

    Examples
    --------
    >>> on = MonitorsConfig.model_validate("auto")
    >>> on.enabled
    ('volume', 'freshness', 'schema', 'columns', 'timeliness')
    >>> MonitorsConfig.model_validate(["volume", {"columns": {"exclude": ["*_id"]}}]).enabled
    ('volume', 'columns')
    >>> from pydantic import ValidationError
    >>> try:
    ...     MonitorsConfig.model_validate(["volume", "colums"])
    ... except ValidationError as error:
    ...     print(error.errors()[0]["msg"])  # doctest: +ELLIPSIS
    unknown monitor 'colums' (did you mean 'columns'?); allowed: auto, volume, freshness, ...
    """

    volume: VolumeMonitor | None = None
    freshness: FreshnessMonitor | None = None
    schema_: SchemaMonitor | None = Field(default=None, alias="schema")
    columns: ColumnsMonitor | None = None
    timeliness: TimelinessMonitor | None = None

    @model_validator(mode="before")
    @classmethod
    def _forms(cls, data: Any) -> Any:
        if data == AUTO:
            return {k: {} for k in KINDS}
        if isinstance(data, list):
            return _from_list(data)
        if isinstance(data, dict):
            auto = data.get(AUTO)
            if auto not in (None, True, False):
                raise custom_error(f"'auto' must be true or false, got {auto!r}", key=AUTO)
            rest = {k: {} if v is None else v for k, v in data.items() if k != AUTO}
            return {**({k: {} for k in KINDS} if auto else {}), **rest}
        if isinstance(data, str):
            raise custom_error(choice_error("monitor", data, [AUTO, *KINDS]))
        return data

    @model_validator(mode="after")
    def _some(self) -> MonitorsConfig:
        if not self.enabled:
            raise custom_error(f"no monitor is on: use 'auto' or some of {', '.join(KINDS)}")
        return self

    @property
    def schema_changes(self) -> SchemaMonitor | None:
        """The schema monitor's options (``schema`` is taken by pydantic)."""
        return self.schema_

    @property
    def enabled(self) -> tuple[str, ...]:
        """The monitors that are on, in `KINDS` order."""
        return tuple(k for k in KINDS if getattr(self, "schema_" if k == "schema" else k))


def _from_list(items: list[Any]) -> dict[str, Any]:
    chosen: dict[str, Any] = {}
    for i, item in enumerate(items):
        if isinstance(item, dict) and len(item) == 1:
            name, options = next(iter(item.items()))
        elif isinstance(item, str):
            name, options = item, {}
        else:
            raise custom_error(
                f"a monitor is a name ({', '.join(KINDS)}) or {{name: options}}, got {item!r}",
                key=i,
            )
        if name == AUTO:
            chosen.update({k: {} for k in KINDS if k not in chosen})
            continue
        if name not in KINDS:
            raise custom_error(choice_error("monitor", str(name), [AUTO, *KINDS]), key=i)
        if chosen.get(name):
            raise custom_error(f"monitor {name!r} is listed twice", key=i)
        chosen[name] = {} if options is None else options
    return chosen
