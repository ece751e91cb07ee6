"""Analyzers: declarative metric definitions with mergeable states.

Table I of Schelter et al., "Differential Data Quality Verification on Partitioned Data", ICDE
2019, lists the states and their merge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.analyzers.approx_count_distinct import ApproxCountDistinct
    from anomaly.analyzers.approx_quantile import ApproxQuantile, ApproxQuantiles
    from anomaly.analyzers.base import Analyzer, ScanShareableAnalyzer
    from anomaly.analyzers.completeness import Completeness
    from anomaly.analyzers.compliance import Compliance
    from anomaly.analyzers.correlation import Correlation, CorrelationState
    from anomaly.analyzers.count_distinct import CountDistinct
    from anomaly.analyzers.data_type import DataType, DataTypeState
    from anomaly.analyzers.distinctness import Distinctness
    from anomaly.analyzers.entropy import Entropy
    from anomaly.analyzers.extremes import Maximum, MaxState, Minimum, MinState
    from anomaly.analyzers.frequency import FrequencyAnalyzer, FrequencyState
    from anomaly.analyzers.histogram import Histogram
    from anomaly.analyzers.mean import Mean, MeanState
    from anomaly.analyzers.mutual_information import MutualInformation
    from anomaly.analyzers.pattern_match import PatternMatch
    from anomaly.analyzers.predictability import Predictability
    from anomaly.analyzers.record_completeness import RecordCompleteness
    from anomaly.analyzers.size import Size
    from anomaly.analyzers.sketch_state import HllState, KllState
    from anomaly.analyzers.standard_deviation import MomentsState, StandardDeviation
    from anomaly.analyzers.state import CountState, MatchesState, State, state_from_bytes
    from anomaly.analyzers.sum import Sum
    from anomaly.analyzers.timeliness import LatencyState, Timeliness
    from anomaly.analyzers.unique_value_ratio import UniqueValueRatio
    from anomaly.analyzers.uniqueness import Uniqueness
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = [
    "Analyzer",
    "ApproxCountDistinct",
    "ApproxQuantile",
    "ApproxQuantiles",
    "Completeness",
    "Compliance",
    "Correlation",
    "CorrelationState",
    "CountDistinct",
    "CountState",
    "DataType",
    "DataTypeState",
    "Distinctness",
    "Entropy",
    "FrequencyAnalyzer",
    "FrequencyState",
    "Histogram",
    "HllState",
    "KllState",
    "LatencyState",
    "MatchesState",
    "MaxState",
    "Maximum",
    "Mean",
    "MeanState",
    "MinState",
    "Minimum",
    "MomentsState",
    "MutualInformation",
    "PatternMatch",
    "Predictability",
    "RecordCompleteness",
    "ScanShareableAnalyzer",
    "Size",
    "StandardDeviation",
    "State",
    "Sum",
    "Timeliness",
    "UniqueValueRatio",
    "Uniqueness",
    "state_from_bytes",
]
