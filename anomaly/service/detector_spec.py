"""A detector in the config: a built-in name or ``package.module:Class``, with parameters."""

from __future__ import annotations

from typing import Any

from pydantic import Field, PrivateAttr, model_validator

from anomaly.service.model import ConfigModel
from anomaly.service.parameters import build
from anomaly.service.problems import choice_error, custom_error
from detectors import AllOf, AnyOf, KOfLastN, detector_factory
from detectors.errors import DetectorLoadError
from detectors.registry import BUILTINS

COMBINATIONS: dict[str, Any] = {"AllOf": AllOf, "AnyOf": AnyOf}
NONE = "none"
"""The detector type that turns detection off for a metric (it is only recorded)."""
KNOWN = [*sorted(BUILTINS), *COMBINATIONS, "KOfLastN", NONE]


class DetectorSpec(ConfigModel):
    """``RobustMAD``, ``{type: OnlineNormal, upper_deviation_factor: 4}``, or a combination:
    ``{type: AllOf, detectors: [...]}``, ``{type: KOfLastN, detector: ..., k: 2, n: 3}``.

    Keys other than ``type``, ``detectors`` and ``detector`` are the detector's parameters;
    the detector is built while the config is validated, so bad parameters fail early.

    Examples
    --------
    >>> DetectorSpec.model_validate({"type": "RobustMAD", "window": 28}).detector
    RobustMAD(lower_deviation_factor=3.5, upper_deviation_factor=3.5, window=28, min_history=5)
    >>> DetectorSpec.model_validate("none").detector is None
    True
    """

    type: str
    params: dict[str, Any] = {}
    detectors: list[DetectorSpec] | None = None
    detector_: DetectorSpec | None = Field(default=None, alias="detector")
    _built: Any = PrivateAttr(None)

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
        self._built = self._construct()
        return self

    @property
    def detector(self) -> Any:
        """The detector object (``None`` for type ``none``)."""
        return self._built

    def _construct(self) -> Any:
        kind, params = self.type, self.params
        if kind != "KOfLastN" and self.detector_ is not None:
            raise custom_error(f"{kind} takes no 'detector' (only KOfLastN does)", key="detector")
        if kind not in COMBINATIONS and self.detectors is not None:
            message = f"{kind} takes no 'detectors' (only AllOf/AnyOf do)"
            raise custom_error(message, key="detectors")
        if kind == NONE:
            if params:
                raise custom_error("detector 'none' takes no parameters")
            return None
        if kind in COMBINATIONS:
            members = [d.detector for d in self.detectors or []]
            if not members or any(m is None for m in members) or params:
                raise custom_error(f"{kind} needs 'detectors': a list of detectors, nothing else")
            return COMBINATIONS[kind](*members)
        if kind == "KOfLastN":
            if self.detector_ is None or self.detector_.detector is None:
                raise custom_error("KOfLastN needs 'detector' (the detector whose anomalies count)")
            return build(kind, KOfLastN, {"detector": self.detector_.detector, **params})
        if ":" not in kind and kind not in BUILTINS:
            raise custom_error(choice_error("detector", kind, [*KNOWN, "package.module:Class"]))
        try:
            factory = detector_factory(kind)
        except DetectorLoadError as error:
            raise custom_error(str(error)) from None
        detector = build(kind, factory, params)
        if not callable(getattr(detector, "detect", None)):
            raise custom_error(f"{kind!r} built a {type(detector).__name__}, which has no detect")
        return detector

    @property
    def label(self) -> str:
        """Short text for reports: ``RobustMAD``, ``AllOf(RelativeRateOfChange, ...)``."""
        if self.type in COMBINATIONS:
            return f"{self.type}({', '.join(d.label for d in self.detectors or [])})"
        if self.type == "KOfLastN" and self.detector_ is not None:
            return f"KOfLastN({self.detector_.label})"
        return self.type.rsplit(":", 1)[-1]
