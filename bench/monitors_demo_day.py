"""What the benchmarks of the monitors demo's daily pass share: the demo's scan runner in a
folder of its own, and the comparison of two layouts' metrics."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from anomaly.config.loading import load_config
from anomaly.demo_monitors import CONFIG
from anomaly.service.progress import Progress
from anomaly.service.scan import ScanRunner


def demo_runner(root: Path) -> ScanRunner:
    """The monitors demo's scan runner (local[2], silent) with its config written in `root`."""
    (root / "anomaly.yml").write_text(CONFIG.format(master="local[2]"), encoding="utf-8")
    return ScanRunner(load_config(root / "anomaly.yml"), progress=Progress.silent())


def metrics_that_differ(found: dict[str, Any], expected: dict[str, Any]) -> int:
    """Metrics that differ, the KLL quantiles aside (randomised, in either layout)."""
    return sum(
        1
        for k, v in expected.items()
        if "[p" not in k and not (found.get(k) == v or (_nan(v) and _nan(found.get(k))))
    )


def _nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)
