"""Deterministic labelled metric histories for ``bench/detection_quality.py``."""

from __future__ import annotations

from .generator import METRIC_IDS, benchmark, generate

__all__ = ["METRIC_IDS", "benchmark", "generate"]
