"""Build detectors from text, as the config file names them: a built-in name or an import
path ``"package.module:ClassName"`` for user detectors, plus keyword parameters."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from detectors.base import SupportsDetect
from detectors.errors import DetectorLoadError


class _Builtins(Mapping[str, type]):
    """Built-in name -> class, each class imported on first use (``Adaptive`` loads numba and
    scipy; a config naming no detector should not pay for them)."""

    _modules = {
        "Adaptive": "detectors.adaptive",
        "SimpleThreshold": "detectors.threshold",
        "OnlineNormal": "detectors.online_normal",
        "BatchNormal": "detectors.batch_normal",
        "AbsoluteChange": "detectors.change",
        "RelativeRateOfChange": "detectors.change",
        "HoltWinters": "detectors.holt_winters",
        "SeasonalArima": "detectors.arima",
        "RobustMAD": "detectors.robust",
    }

    def __getitem__(self, name: str) -> type:
        if name not in self._modules:
            raise KeyError(name)
        found: type = getattr(importlib.import_module(self._modules[name]), name)
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._modules

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)


BUILTINS: Mapping[str, type] = _Builtins()
"""The built-in detectors by name (``BUILTINS["OnlineNormal"]`` is the class)."""


def detector_factory(spec: str) -> Callable[..., Any]:
    """The class (or factory) ``spec`` names: ``"OnlineNormal"`` or ``"pkg.mod:Class"``.

    Examples
    --------
    >>> detector_factory("OnlineNormal").__name__
    'OnlineNormal'
    >>> detector_factory("detectors.threshold:SimpleThreshold").__name__
    'SimpleThreshold'
    """
    if not isinstance(spec, str) or not spec.strip():
        raise DetectorLoadError(f"a detector spec must be a non-empty string, got {spec!r}")
    if ":" not in spec:
        if spec in BUILTINS:
            return BUILTINS[spec]
        raise DetectorLoadError(
            f"unknown detector {spec!r}: built-ins are {sorted(BUILTINS)}; name your own as"
            " 'package.module:ClassName'"
        )
    module_name, _, attribute = spec.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as error:
        raise DetectorLoadError(
            f"cannot import module {module_name!r} of detector {spec!r}: {error}"
        ) from error
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise DetectorLoadError(
                f"module {module_name!r} has no {attribute!r} (detector {spec!r})"
            )
        target = getattr(target, part)
    if not callable(target):
        raise DetectorLoadError(
            f"{spec!r} is not a class or factory, it is a {type(target).__name__}"
        )
    return target


def load_detector(spec: str, params: Mapping[str, Any] | None = None) -> SupportsDetect:
    """Build the detector ``spec`` names with keyword ``params``.

    Bad parameter values raise the detector's own ``ValueError`` (naming the parameter);
    unknown names, unknown parameters and objects without ``detect`` raise
    :class:`~detectors.errors.DetectorLoadError`.

    Examples
    --------
    >>> load_detector("OnlineNormal", {"upper_deviation_factor": 4.0})
    OnlineNormal(lower_deviation_factor=3.0, upper_deviation_factor=4.0, ...)
    """
    factory = detector_factory(spec)
    try:
        detector = factory(**dict(params or {}))
    except TypeError as error:
        raise DetectorLoadError(
            f"cannot build {spec!r} with parameters {dict(params or {})}: {error}"
        ) from error
    if not callable(getattr(detector, "detect", None)):
        raise DetectorLoadError(
            f"{spec!r} built a {type(detector).__name__}, which has no detect method"
        )
    return detector
