"""The constants of the CUSUM on standardised errors, shared by the test that spends the
false-alarm rate on it (:mod:`detectors.adaptive.persistence`) and its compiled recursion
(:mod:`detectors.adaptive.kernels.cusum`), so neither imports the other."""

from __future__ import annotations

import math

ALLOWANCE = 0.5
"""Standard deviations per point a lasting change must exceed to add up."""
CLIP = 2.5
"""One step enters the sum at most this many standard deviations: one outlier cannot trigger
it alone."""
MEMORY = 0.98
"""Per point, the weight kept by the running error autocorrelation (about 50 points)."""
MAX_AUTOCORRELATION = 0.9
NORMAL_MAE = math.sqrt(2.0 / math.pi)
"""Errors are standardised by a mean absolute error; this makes them standard deviations."""
