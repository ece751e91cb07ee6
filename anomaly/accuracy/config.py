"""Accuracy from a plain mapping, the shape a scan config file gives it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anomaly.accuracy.analyzer import Accuracy
from anomaly.errors import ConfigurationError

REQUIRED = ("target", "rule")
OPTIONAL = ("where", "index", "sample_size")


def accuracy_from_dict(spec: Mapping[str, Any]) -> Accuracy:
    """Build an `Accuracy` from ``{"target": ..., "rule": ..., [optional keys]}``.

    Keys
    ----
    target : str
        Table, view or ``format.`path``` the run's data is compared with (required).
    rule : str
        The rule (required); may span several lines (YAML ``>`` or ``|`` blocks).
    where : str, optional
        Spark SQL filter on the source rows.
    index : str or list of str, optional
        ``"uid, timestamp"`` or ``["uid", "timestamp"]``: the equalities to key unmatched rows by.
    sample_size : int, optional
        Unmatched keys to keep (default 20).

    Errors name the key: unknown keys, missing keys and wrong types raise `ConfigurationError`,
    rules raise `RuleError` (a `ConfigurationError`) with the position in the rule.

    Examples
    --------
    >>> a = accuracy_from_dict({"target": "users_copy", "rule": "$source.id = $target.id",
    ...                         "index": ["id"], "sample_size": 5})
    >>> a.metric_id, a.index, a.sample_size
    ('Accuracy(users_copy: $source.id = $target.id)', ('id',), 5)
    >>> accuracy_from_dict({"target": "t", "rule": "$source.id = $target.id", "limit": 3})
    Traceback (most recent call last):
    ...
    anomaly.errors.ConfigurationError: accuracy: unknown key 'limit'; allowed keys: target, ...
    """
    if not isinstance(spec, Mapping):
        raise ConfigurationError(f"accuracy: expected a mapping, got {type(spec).__name__}")
    allowed = ", ".join(REQUIRED + OPTIONAL)
    for key in spec:
        if key not in REQUIRED + OPTIONAL:
            raise ConfigurationError(f"accuracy: unknown key {key!r}; allowed keys: {allowed}")
    for key in REQUIRED:
        if key not in spec:
            raise ConfigurationError(f"accuracy: missing required key {key!r}")
    _check(spec, "target", str, "a table or view name")
    _check(spec, "rule", str, "a rule string")
    _check(spec, "where", str, "a Spark SQL condition", optional=True)
    _check(spec, "sample_size", int, "an integer >= 0")
    index = spec.get("index", ())
    if isinstance(index, list | tuple) and all(isinstance(name, str) for name in index):
        index = tuple(index)
    elif not isinstance(index, str):
        raise ConfigurationError(
            f"accuracy: 'index' must be a string or a list of strings, got {index!r}"
        )
    return Accuracy(
        spec["target"], spec["rule"], spec.get("where"), index, spec.get("sample_size", 20)
    )


def _check(
    spec: Mapping[str, Any], key: str, kind: type, what: str, optional: bool = False
) -> None:
    value = spec.get(key)
    if value is None and optional:
        return
    if key in spec and (not isinstance(value, kind) or isinstance(value, bool)):
        raise ConfigurationError(f"accuracy: {key!r} must be {what}, got {value!r}")
