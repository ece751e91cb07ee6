"""Differential computation on growing and partitioned data: states per partition.

As in Schelter et al., ICDE 2019.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.engine.differential.merge import merge_states, metrics_from_states
    from anomaly.engine.differential.partition_states import PartitionStates
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = ["PartitionStates", "merge_states", "metrics_from_states"]
