"""Short, readable names for detectors in backtest tables: only what differs from the defaults."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

MAX_REPR = 60


def detector_label(detector: Any) -> str:
    """``OnlineNormal()``, ``RobustMAD(window=28)``, ``AlertFatigue(OnlineNormal(), cooldown=3)``.

    Examples
    --------
    >>> from detectors import AlertFatigue, AllOf, OnlineNormal, RobustMAD, SimpleThreshold
    >>> detector_label(OnlineNormal(upper_deviation_factor=4))
    'OnlineNormal(upper_deviation_factor=4)'
    >>> detector_label(AlertFatigue(RobustMAD(), first_of_run=True))
    'AlertFatigue(RobustMAD(), first_of_run=True)'
    >>> detector_label(AllOf(OnlineNormal(), SimpleThreshold(upper_bound=1.0)))
    'AllOf(OnlineNormal(), SimpleThreshold(upper_bound=1))'
    """
    kind = type(detector).__name__
    if dataclasses.is_dataclass(detector) and not isinstance(detector, type):
        parts = []
        for field in dataclasses.fields(detector):
            value = getattr(detector, field.name)
            if field.default is dataclasses.MISSING and callable(getattr(value, "detect", None)):
                parts.append(detector_label(value))
            elif field.default is dataclasses.MISSING or value != field.default:
                parts.append(f"{field.name}={_value(value)}")
        return f"{kind}({', '.join(parts)})"
    members = getattr(detector, "detectors", None)
    if isinstance(members, tuple):
        return f"{kind}({', '.join(detector_label(m) for m in members)})"
    text = repr(detector)
    return text if len(text) <= MAX_REPR and not text.startswith("<") else kind


def _value(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if callable(getattr(value, "detect", None)):
        return detector_label(value)
    return repr(value)


def named_detectors(detectors: Any) -> dict[str, Any]:
    """``{name: detector}`` from one detector, a sequence or a mapping (names kept); repeated
    labels get ``#2``, ``#3``.

    >>> from detectors import OnlineNormal
    >>> list(named_detectors([OnlineNormal(), OnlineNormal()]))
    ['OnlineNormal()', 'OnlineNormal() #2']
    """
    if isinstance(detectors, Mapping):
        items = [(str(k), v) for k, v in detectors.items()]
    elif isinstance(detectors, Sequence) and not isinstance(detectors, str):
        items = [(detector_label(d), d) for d in detectors]
    else:
        items = [(detector_label(detectors), detectors)]
    if not items:
        raise ValueError("backtest needs at least one detector")
    named: dict[str, Any] = {}
    for label, detector in items:
        if not callable(getattr(detector, "detect", None)):
            raise TypeError(
                f"{label!r} is not a detector: it needs a detect(values, interval) method"
            )
        name, n = label, 1
        while name in named:
            n += 1
            name = f"{label} #{n}"
        named[name] = detector
    return named
