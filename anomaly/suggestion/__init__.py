"""Constraint suggestion: profile a data set, suggest `Check` constraints.

As in Schelter et al., PVLDB 2018, §3.3 and §4.2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.suggestion.evaluation import Coverage, coverage
    from anomaly.suggestion.name_model import ColumnNameModel, NamedColumn, cross_validated_auc
    from anomaly.suggestion.profile import ColumnProfile
    from anomaly.suggestion.profiler import profile_columns
    from anomaly.suggestion.render import as_code, as_json, as_table, render
    from anomaly.suggestion.rules import (
        CategoricalRange,
        CompleteIfComplete,
        ConsistentType,
        FractionRange,
        NonNegative,
        RetainCompleteness,
        Rule,
        UniqueIfApproximatelyUnique,
        default_rules,
    )
    from anomaly.suggestion.runner import ConstraintSuggestionRunner, SuggestionResult
    from anomaly.suggestion.suggestion import Suggestion
    from anomaly.suggestion.type_set import TypeSet, TypeSetState
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = [
    "CategoricalRange",
    "ColumnNameModel",
    "ColumnProfile",
    "CompleteIfComplete",
    "ConsistentType",
    "ConstraintSuggestionRunner",
    "Coverage",
    "FractionRange",
    "NamedColumn",
    "NonNegative",
    "RetainCompleteness",
    "Rule",
    "Suggestion",
    "SuggestionResult",
    "TypeSet",
    "TypeSetState",
    "UniqueIfApproximatelyUnique",
    "as_code",
    "as_json",
    "as_table",
    "coverage",
    "cross_validated_auc",
    "default_rules",
    "profile_columns",
    "render",
]
