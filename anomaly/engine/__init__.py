"""The Spark engine: the passes over the data and what they return.

``runner`` (AnalysisRunner: the fewest passes), ``shared_scan`` (all shareable aggregations in
one pass; frequency tables once per column set), ``stacked_scan`` (many slot analyzers in one
aggregation), ``context`` (AnalyzerContext: analyzer and group -> metric), ``differential``
(states per partition, merged instead of recomputed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.engine.context import AnalyzerContext
    from anomaly.engine.runner import AnalysisRunner, run_analyzers
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = ["AnalysisRunner", "AnalyzerContext", "run_analyzers"]
