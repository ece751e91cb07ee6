"""Differential computation on growing and partitioned data: states per partition.

As in Schelter et al., ICDE 2019.
"""

from anomaly.engine.differential.merge import merge_states, metrics_from_states
from anomaly.engine.differential.partition_states import PartitionStates

__all__ = ["PartitionStates", "merge_states", "metrics_from_states"]
