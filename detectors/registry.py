"""Build detectors from text, as the config file names them: a built-in name or an import
path ``"package.module:ClassName"`` for user detectors, plus keyword parameters."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from detectors.adaptive import Adaptive
from detectors.arima import SeasonalArima
from detectors.base import SupportsDetect
from detectors.batch_normal import BatchNormal
from detectors.change import AbsoluteChange, RelativeRateOfChange
from detectors.errors import DetectorLoadError
from detectors.holt_winters import HoltWinters
from detectors.online_normal import OnlineNormal
from detectors.robust import RobustMAD
from detectors.threshold import SimpleThreshold

BUILTINS: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        Adaptive,
        SimpleThreshold,
        OnlineNormal,
        BatchNormal,
        AbsoluteChange,
        RelativeRateOfChange,
        HoltWinters,
        SeasonalArima,
        RobustMAD,
    )
}


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
