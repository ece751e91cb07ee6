"""Differential computation on growing and partitioned data (seed 000): states per partition."""

from anomaly.differential.merge import merge_states, metrics_from_states
from anomaly.differential.partition_states import PartitionStates

__all__ = ["PartitionStates", "merge_states", "metrics_from_states"]
