"""One metric of a scan: an analyzer with its parameters, and how its history is judged."""

from __future__ import annotations

import functools
import importlib
import typing
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from pydantic import Field, PrivateAttr, TypeAdapter, ValidationError, model_validator

import anomaly.analyzers as analyzers
from anomaly.analyzers import Analyzer
from anomaly.config.detector_spec import DetectorSpec
from anomaly.config.model import ConfigModel
from anomaly.config.parameters import build
from anomaly.config.problems import choice_error, custom_error
from anomaly.errors import ConfigurationError

Severity = Literal["warning", "error"]


class AnalyzerClasses(Mapping[str, "type[Analyzer[Any]]"]):
    """The built-in analyzer classes by name, each imported when it is asked for: a config
    naming ``Size`` and ``Mean`` loads those two modules, not every analyzer's (with their
    Arrow and sketch code). Listing them all (an error message) imports them all.

    >>> ANALYZERS["Mean"].__name__, "MeanState" in ANALYZERS, "Nope" in ANALYZERS
    ('Mean', False, False)
    """

    def __getitem__(self, name: str) -> type[Analyzer[Any]]:
        found = getattr(analyzers, name) if name in analyzers.__all__ else None
        is_analyzer = isinstance(found, type) and issubclass(found, Analyzer)
        if not is_analyzer or not hasattr(found, "metric_name"):
            raise KeyError(name)
        if getattr(found, "__abstractmethods__", None):
            raise KeyError(name)
        return typing.cast("type[Analyzer[Any]]", found)

    def __iter__(self) -> Iterator[str]:
        return (name for name in analyzers.__all__ if name in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


ANALYZERS = AnalyzerClasses()
"""The analyzers a config names by their class name (``Size``, ``Mean``, ...)."""
BUILT_FROM_MAPPING = {"Accuracy": "anomaly.accuracy.config:accuracy_from_dict"}
"""Analyzers built by a function taking the parameter mapping (the hook for new packages)."""


class MetricSpec(ConfigModel):
    """``{analyzer: Mean, column: price, detector: RobustMAD, severity: warning}``, or just
    ``Size``. Keys other than ``analyzer``, ``detector``, ``severity`` and ``min_history`` are
    the analyzer's parameters; unset judging keys fall back to the scan's, then the defaults.

    Examples
    --------
    >>> spec = MetricSpec.model_validate({"analyzer": "Mean", "column": "price"})
    >>> spec.analyzer_object.metric_id
    'Mean(price)'
    >>> MetricSpec.model_validate("Size").analyzer_object.metric_id
    'Size(*)'
    """

    analyzer: str
    params: dict[str, Any] = {}
    detector: DetectorSpec | None = None
    severity: Severity | None = None
    min_history: int | None = Field(default=None, ge=0)
    _built: Any = PrivateAttr(None)

    @model_validator(mode="before")
    @classmethod
    def _split(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"analyzer": data}
        if not isinstance(data, dict):
            return data
        if "analyzer" not in data:
            raise custom_error(
                f"a metric needs 'analyzer': one of {', '.join([*ANALYZERS, *BUILT_FROM_MAPPING])}"
                " or 'package.module:Class'"
            )
        judging = {"analyzer", "detector", "severity", "min_history"}
        params = {k: v for k, v in data.items() if k not in judging}
        return {**{k: v for k, v in data.items() if k in judging}, "params": params}

    @model_validator(mode="after")
    def _build(self) -> MetricSpec:
        self._built = build_analyzer(self.analyzer, self.params)
        return self

    @property
    def analyzer_object(self) -> Analyzer[Any]:
        """The analyzer this entry describes."""
        return self._built


def build_analyzer(name: str, params: dict[str, Any]) -> Analyzer[Any]:
    """The analyzer `name` with `params`, each checked against the analyzer's field types."""
    if name in BUILT_FROM_MAPPING:
        module, _, function = BUILT_FROM_MAPPING[name].partition(":")
        try:
            builder = getattr(importlib.import_module(module), function)
        except ImportError as error:
            raise custom_error(f"{name} needs the {module} package: {error}") from None
        try:
            return builder(params)
        except ConfigurationError as error:
            raise custom_error(str(error)) from None
    if ":" in name:
        factory = _imported(name)
    elif name in ANALYZERS:
        factory = ANALYZERS[name]
        _check_types(name, factory, params)
    else:
        known = [*ANALYZERS, *BUILT_FROM_MAPPING, "package.module:Class"]
        raise custom_error(choice_error("analyzer", name, known))
    analyzer = build(name, factory, params)
    if not isinstance(analyzer, Analyzer):
        raise custom_error(f"{name!r} built a {type(analyzer).__name__}, not an analyzer")
    return analyzer


def _imported(path: str) -> Any:
    module, _, attribute = path.partition(":")
    try:
        target: Any = importlib.import_module(module)
        for part in attribute.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as error:
        raise custom_error(f"cannot load analyzer {path!r}: {error}") from None
    if not (isinstance(target, type) and issubclass(target, Analyzer)):  # never call others
        raise custom_error(
            f"{path!r} is a {type(target).__name__}, not an analyzer class: name a subclass of "
            "anomaly.analyzers.Analyzer; it was not called"
        )
    return target


@functools.cache
def _hints(factory: type) -> dict[str, Any]:
    return typing.get_type_hints(factory)


@functools.cache
def _adapter(hint: Any) -> TypeAdapter[Any]:
    """A validator per field type, made once (a large config has thousands of metrics; making
    them each time took most of its validation)."""
    return TypeAdapter(hint)


def _check_types(name: str, factory: type, params: dict[str, Any]) -> None:
    hints = _hints(factory)
    for key, value in params.items():
        if key not in hints:
            continue  # unknown keys are reported by build() with the allowed list
        try:
            params[key] = _adapter(hints[key]).validate_python(value)  # a hint is hashable
        except ValidationError:
            hint = hints[key]
            expected = hint.__name__ if isinstance(hint, type) else str(hint)
            expected = expected.replace("typing.", "").replace("collections.abc.", "")
            raise custom_error(f"{name}.{key} must be {expected}, got {value!r}", key=key) from None
