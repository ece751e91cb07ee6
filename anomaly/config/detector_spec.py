"""A detector in the config: a built-in name or ``package.module:Class``, with parameters,
or a composition of detectors (``AllOf``/``AnyOf``) or a wrapper of one (``KOfLastN``,
``AlertFatigue``), nested to any depth."""

from __future__ import annotations

import inspect
from typing import Any

from pydantic import Field, PrivateAttr, model_validator
from pydantic_core import PydanticCustomError

from anomaly.config.model import ConfigModel
from anomaly.config.parameters import build, check_parameters
from anomaly.config.problems import choice_error, custom_error
from anomaly.errors import ConfigurationError
from detectors import AlertFatigue, AllOf, AnyOf, KOfLastN, detector_factory
from detectors.errors import DetectorLoadError
from detectors.registry import BUILTINS

COMBINATIONS: dict[str, Any] = {"AllOf": AllOf, "AnyOf": AnyOf}
WRAPPERS: dict[str, tuple[Any, str]] = {
    "KOfLastN": (KOfLastN, "the detector whose anomalies count"),
    "AlertFatigue": (AlertFatigue, "the detector whose anomalies it filters"),
}
"""Detectors of one inner ``detector``, with what that inner detector is for."""
FATIGUE_CONTROLS: dict[str, Any] = {
    "first_of_run": False,
    "min_absolute_change": None,
    "min_relative_change": None,
    "k": 1,
    "n": 1,
    "cooldown": 0,
}
"""AlertFatigue's controls with the values that leave a detector's alerts unchanged."""
NONE = "none"
"""The detector type that turns detection off for a metric (it is only recorded)."""
KNOWN = [*sorted(BUILTINS), *COMBINATIONS, *WRAPPERS, NONE]


class DetectorSpec(ConfigModel):
    """``RobustMAD``, ``{type: OnlineNormal, upper_deviation_factor: 4}``, a combination
    ``{type: AllOf, detectors: [...]}`` or a wrapper ``{type: KOfLastN, detector: ..., k: 2,
    n: 3}``, ``{type: AlertFatigue, detector: ..., first_of_run: true, cooldown: 7}``.

    Keys other than ``type``, ``detectors`` and ``detector`` are the detector's parameters;
    a built-in detector is built while the config is validated, so bad parameters fail early.
    A ``package.module:Class`` must be a class with a ``detect`` method (the `Detector`
    protocol): validating checks its parameters against its signature but never calls it
    (a config must not run code); it is built when the detector is first used.

    Examples
    --------
    >>> DetectorSpec.model_validate({"type": "RobustMAD", "window": 28}).detector
    RobustMAD(lower_deviation_factor=3.5, upper_deviation_factor=3.5, window=28, min_history=5)
    >>> spec = DetectorSpec.model_validate({"type": "AlertFatigue", "first_of_run": True,
    ...     "detector": {"type": "AnyOf", "detectors": ["RobustMAD", "BatchNormal"]}})
    >>> spec.label, spec.detector.first_of_run
    ('AlertFatigue(AnyOf(RobustMAD, BatchNormal))', True)
    >>> DetectorSpec.model_validate("none").detector is None
    True
    """

    type: str
    params: dict[str, Any] = {}
    detectors: list[DetectorSpec] | None = None
    detector_: DetectorSpec | None = Field(default=None, alias="detector")
    _built: Any = PrivateAttr(None)
    _is_built: bool = PrivateAttr(False)  # a flag, not a sentinel: copies and pickles keep it

    @model_validator(mode="before")
    @classmethod
    def _split(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"type": data}
        if not isinstance(data, dict):
            return data
        if "type" not in data:
            raise custom_error(
                "a detector needs 'type': a built-in name "
                f"({', '.join(KNOWN)}) or 'package.module:Class'"
            )
        structural = {"type", "detectors", "detector"}
        params = {k: v for k, v in data.items() if k not in structural}
        nested = {k: data[k] for k in ("detectors", "detector") if k in data}
        return {"type": data["type"], "params": params, **nested}

    @model_validator(mode="after")
    def _build(self) -> DetectorSpec:
        # The default without parameters cannot fail to build: it is built on first use, so
        # reading a config (validate-config, history -c) does not load its numba and scipy.
        plain = not self.params and self.detectors is None and self.detector_ is None
        if self._names_a_class():  # checked without calling anything; built on first use
            self._construct(dry=True)
        elif not (plain and self.type == "Adaptive"):
            self._built, self._is_built = self._construct(), True
        return self

    @property
    def detector(self) -> Any:
        """The detector object (``None`` for type ``none``)."""
        if not self._is_built:
            try:
                self._built, self._is_built = self._construct(), True
            except PydanticCustomError as error:
                raise ConfigurationError(f"detector {self.label}: {error.message()}") from None
        return self._built

    def _names_a_class(self) -> bool:
        inner = [*(self.detectors or []), *([self.detector_] if self.detector_ else [])]
        return ":" in self.type or any(spec._names_a_class() for spec in inner)

    def _construct(self, dry: bool = False) -> Any:
        """The detector; with `dry`, only the checks (nothing is called, None is returned)."""
        kind, params = self.type, self.params
        if kind not in WRAPPERS and self.detector_ is not None:
            message = f"{kind} takes no 'detector' (only {' and '.join(WRAPPERS)} do)"
            raise custom_error(message, key="detector")
        if kind not in COMBINATIONS and self.detectors is not None:
            message = f"{kind} takes no 'detectors' (only AllOf/AnyOf do)"
            raise custom_error(message, key="detectors")
        if kind == NONE:
            if params:
                raise custom_error("detector 'none' takes no parameters")
            return None
        if kind in COMBINATIONS:
            if params:
                key = next(iter(params))
                message = f"{kind} has no parameter {key!r}; it takes only 'detectors'"
                raise custom_error(message, key=key)
            members = self.detectors or []
            if not members or any(m.type == NONE for m in members):
                raise custom_error(f"{kind} needs 'detectors': a list of detectors (not 'none')")
            return None if dry else COMBINATIONS[kind](*(m.detector for m in members))
        if kind in WRAPPERS:
            factory, role = WRAPPERS[kind]
            if self.detector_ is None or self.detector_.type == NONE:
                raise custom_error(f"{kind} needs 'detector' ({role}; not 'none')")
            given = {"detector": None if dry else self.detector_.detector, **params}
            check_parameters(kind, factory, given)  # a misspelt control first, by its key
            if kind == "AlertFatigue" and not _controls(params):
                # AlertFatigue's own error would name all controls as one parameter.
                raise custom_error(
                    "AlertFatigue needs at least one control: first_of_run: true, "
                    "min_absolute_change, min_relative_change, n > 1 (with k), or cooldown > 0"
                )
            return None if dry else build(kind, factory, given)
        if ":" not in kind and kind not in BUILTINS:
            raise custom_error(choice_error("detector", kind, [*KNOWN, "package.module:Class"]))
        try:
            factory = detector_factory(kind)  # imports the module; calls nothing in it
        except DetectorLoadError as error:
            raise custom_error(str(error)) from None
        if ":" in kind and not _is_detector_class(factory):
            raise custom_error(
                f"{kind!r} is a {type(factory).__name__}, not a detector class: name a class with "
                "a detect method (the Detector protocol); it was not called"
            )
        if dry:
            check_parameters(kind, factory, params)
            return None
        return build(kind, factory, params)

    @property
    def label(self) -> str:
        """Short text for reports: ``RobustMAD``, ``AllOf(RelativeRateOfChange, ...)``."""
        if self.type in COMBINATIONS:
            return f"{self.type}({', '.join(d.label for d in self.detectors or [])})"
        if self.type in WRAPPERS and self.detector_ is not None:
            return f"{self.type}({self.detector_.label})"
        return self.type.rsplit(":", 1)[-1]


def _is_detector_class(target: Any) -> bool:
    """A class whose instances have a ``detect`` method: the only thing a config may name."""
    return inspect.isclass(target) and callable(getattr(target, "detect", None))


def _controls(params: dict[str, Any]) -> list[str]:
    """The AlertFatigue controls `params` sets to something else than their neutral value (a
    value of the wrong type counts, so that AlertFatigue names it)."""
    return [
        key
        for key, neutral in FATIGUE_CONTROLS.items()
        if key in params and (params[key] != neutral or type(params[key]) is not type(neutral))
    ]
