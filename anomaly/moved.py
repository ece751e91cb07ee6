"""Old module paths of a release ago, kept importable with a `DeprecationWarning`.

``import anomaly.service.config`` still works: a finder on ``sys.meta_path`` answers each
old path with the module now holding its code (a path split in two answers with a module that
looks names up in each). Remove an entry a release after it moved.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Sequence
from typing import Any

_CONFIG = [
    "config",
    "model",
    "problems",
    "loading",
    "yaml_file",
    "interpolation",
    "durations",
    "periods",
    "schedule",
    "source_config",
    "alert_config",
    "budget_config",
    "detector_spec",
    "metric_spec",
    "monitor_config",
    "stream_config",
    "parameters",
]
_JUDGING = ["annotated", "report", "tables", "alerts", "sinks"]
MOVED: dict[str, tuple[str, ...]] = {
    **{f"anomaly.service.{name}": (f"anomaly.config.{name}",) for name in _CONFIG},
    "anomaly.service.detection": (
        "anomaly.judging.verdicts",
        "anomaly.judging.history",
        "anomaly.judging.budget",
    ),
    **{f"anomaly.service.{name}": (f"anomaly.judging.{name}",) for name in _JUDGING},
    "anomaly.monitors.plan": ("anomaly.service.monitor_run",),
    "anomaly.monitors.cli": ("anomaly.service.monitor_command",),
    "anomaly.monitors.demo": ("anomaly.demo_monitors",),
    "anomaly.streaming.time_bounds": ("anomaly.config.time_bounds",),
    "anomaly.service.queries": ("anomaly.judging.queries",),
    "anomaly.streaming.service": ("anomaly.service.streams",),
    "anomaly.scan": ("anomaly.engine.shared_scan", "anomaly.errors"),
    "anomaly.stacked_scan": ("anomaly.engine.stacked_scan",),
    "anomaly.runner": ("anomaly.engine.runner",),
    "anomaly.context": ("anomaly.engine.context",),
    "anomaly.differential": ("anomaly.engine.differential",),
    "anomaly.differential.merge": ("anomaly.engine.differential.merge",),
    "anomaly.differential.partition_states": ("anomaly.engine.differential.partition_states",),
}
"""Old module path -> the modules that now hold its names (first match wins)."""


class _Alias(types.ModuleType):
    """A module that hands out the names of the modules that replaced it."""

    def __init__(self, name: str, targets: Sequence[str]) -> None:
        super().__init__(name, f"Moved to {', '.join(targets)}.")
        self._targets = tuple(targets)

    def __getattr__(self, attribute: str) -> Any:
        for target in self._targets:
            module = importlib.import_module(target)
            if hasattr(module, attribute):
                return getattr(module, attribute)
        raise AttributeError(f"module {self.__name__!r} has no attribute {attribute!r}")


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        targets = MOVED[spec.name]
        warnings.warn(
            f"{spec.name} moved to {' and '.join(targets)}; the old path goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        if len(targets) == 1:
            return importlib.import_module(targets[0])
        return _Alias(spec.name, targets)

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the module is the new one (or an alias of several)."""


def install() -> None:
    """Answer the old paths (once per process)."""
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.append(_Finder())
