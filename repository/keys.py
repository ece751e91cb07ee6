"""Run keys (a timestamp plus tags) and the canonical text form of tags and groups.

Timestamps are epoch milliseconds in UTC, as Deequ's ``dataSetDate``. A naive ``datetime`` is
taken to be UTC (not local time): the same naive value then gives the same key on every machine.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from numbers import Real
from types import MappingProxyType
from typing import Any, Protocol, TypeAlias

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
DATASET_TAG = "dataset"
"""The tag naming a run's dataset: ``datasets()`` lists its values."""

TimeLike: TypeAlias = datetime | int
"""A timezone-aware ``datetime``, a naive one (taken as UTC), or epoch milliseconds."""


class HasMetricId(Protocol):
    """Anything with a ``metric_id`` (an analyzer, a ``MetricRecord``)."""

    @property
    def metric_id(self) -> str: ...


def to_epoch_ms(value: TimeLike, what: str = "timestamp") -> int:
    """Epoch milliseconds of a datetime (naive = UTC, sub-millisecond part dropped) or an int."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be a datetime or epoch milliseconds, got a bool: {value!r}")
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            value = value.replace(tzinfo=UTC)
        millis = (value - EPOCH) // timedelta(milliseconds=1)
        if not isinstance(millis, int):  # pandas.NaT passes isinstance(datetime)
            raise ValueError(f"{what} must be a real point in time, got {value!r}")
        return millis
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"{what} must be a datetime or epoch milliseconds (int), "
            f"got {type(value).__name__}: {value!r}"
        ) from None


def from_epoch_ms(millis: int) -> datetime:
    """The UTC datetime of epoch milliseconds (exact: no float rounding)."""
    return EPOCH + timedelta(milliseconds=millis)


def metric_id_of(metric: str | HasMetricId) -> str:
    """A metric id given as text or as any object with a ``metric_id`` attribute."""
    metric_id = metric if isinstance(metric, str) else getattr(metric, "metric_id", None)
    if not isinstance(metric_id, str):
        raise TypeError(
            f"expected a metric id (str) or an object with a metric_id, got {type(metric).__name__}"
        )
    return metric_id


def canonical_key(items: Mapping[str, str | None]) -> str:
    """Order-independent text identity of tags or a group: JSON of the sorted (name, value) pairs.

    >>> canonical_key({"b": "2", "a": None})
    '[["a",null],["b","2"]]'
    """
    return json.dumps(sorted(items.items()), ensure_ascii=False, separators=(",", ":"))


def group_of(key: str) -> dict[str, str | None]:
    """The group back from its key (`canonical_key`).

    >>> key = canonical_key({"city": "Zürich"})
    >>> key, group_of(key)
    ('[["city","Zürich"]]', {'city': 'Zürich'})
    """
    return dict(json.loads(key))


def check_tags(tags: Any, what: str = "tags") -> dict[str, str]:
    """A copy of ``tags`` after checking it maps non-empty text to text."""
    if not isinstance(tags, Mapping):
        raise TypeError(f"{what} must be a mapping of str to str, got {type(tags).__name__}")
    for name, value in tags.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"{what} names must be non-empty strings, got {name!r}")
        if not isinstance(value, str):
            raise TypeError(
                f"{what}[{name!r}] must be a str, got {type(value).__name__}: {value!r}"
            )
    return dict(tags)


def check_group(group: Any, what: str = "group") -> dict[str, str | None]:
    """A copy of ``group`` after checking it maps column names to text or ``None``."""
    if not isinstance(group, Mapping):
        raise TypeError(f"{what} must be a mapping of column to str or None, got {group!r}")
    for column, value in group.items():
        if not isinstance(column, str) or not column:
            raise ValueError(f"{what} column names must be non-empty strings, got {column!r}")
        if value is not None and not isinstance(value, str):
            raise TypeError(
                f"{what}[{column!r}] must be text or None (group values arrive as text), "
                f"got {type(value).__name__}: {value!r}"
            )
    return dict(group)


def check_fields(record: object, text: tuple[str, ...], numbers: tuple[str, ...] = ()) -> None:
    """Check that ``record``'s ``text`` fields are non-empty strings and ``numbers`` numbers or
    None (messages name the class and field)."""
    kind = type(record).__name__
    for name in text:
        value = getattr(record, name)
        if not isinstance(value, str) or not value:
            raise ValueError(f"{kind}.{name} must be a non-empty str, got {value!r}")
    for name in numbers:
        value = getattr(record, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, Real)):
            raise TypeError(f"{kind}.{name} must be a number or None, got {value!r}")


class ResultKey:
    """The identity of one run: when it happened and what it is about.

    Parameters
    ----------
    timestamp
        A timezone-aware ``datetime``, a naive one (taken as UTC), or epoch milliseconds. Stored
        at millisecond resolution, as Deequ does.
    tags
        Free text labels, e.g. ``{"dataset": "orders", "env": "prod"}``. Two keys are the same run
        when timestamp and tags are equal.

    Examples
    --------
    >>> key = ResultKey(datetime(2024, 5, 1, tzinfo=UTC), {"dataset": "orders"})
    >>> key.epoch_ms, key.dataset
    (1714521600000, 'orders')
    >>> key == ResultKey(1714521600000, {"dataset": "orders"})
    True
    >>> ResultKey(datetime(2024, 5, 1)).timestamp  # naive means UTC
    datetime.datetime(2024, 5, 1, 0, 0, tzinfo=datetime.timezone.utc)
    """

    __slots__ = ("_millis", "_tags")
    _millis: int
    _tags: Mapping[str, str]

    def __init__(self, timestamp: TimeLike, tags: Mapping[str, str] | None = None) -> None:
        object.__setattr__(self, "_millis", to_epoch_ms(timestamp))
        checked = check_tags({} if tags is None else tags)
        object.__setattr__(self, "_tags", MappingProxyType(dict(sorted(checked.items()))))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("ResultKey is immutable")

    @property
    def epoch_ms(self) -> int:
        """The run's time as epoch milliseconds (UTC)."""
        return self._millis

    @property
    def timestamp(self) -> datetime:
        """The run's time as a UTC ``datetime``."""
        return from_epoch_ms(self._millis)

    @property
    def tags(self) -> Mapping[str, str]:
        """The tags (read-only, sorted by name)."""
        return self._tags

    @property
    def dataset(self) -> str | None:
        """The value of the ``dataset`` tag, if any."""
        return self._tags.get(DATASET_TAG)

    @property
    def tags_key(self) -> str:
        """The canonical text of the tags (part of the run's identity in the database)."""
        return canonical_key(self._tags)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResultKey):
            return NotImplemented
        return self._millis == other._millis and self._tags == other._tags

    def __hash__(self) -> int:
        return hash((self._millis, tuple(self._tags.items())))

    def __repr__(self) -> str:
        return f"ResultKey({self.timestamp.isoformat()!r}, {dict(self._tags)!r})"
