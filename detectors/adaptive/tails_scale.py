"""How far a normal error reaches over a scale of few errors: degrees of freedom matched at the
band's quantile, for rows judged through the pooled posterior predictive.

:mod:`detectors.adaptive.tails` widens each grid value's Student-t for the errors its scale
rests on by adding precisions, ``1 / df = 1 / nu + 1 / n_eff``, with ``n_eff`` the number of
normal errors whose variance estimate is as noisy as the running mean absolute error. For the
normal member (``nu`` infinite) that is the t of a variance estimate of ``n_eff`` errors, and
matching the variances is conservative where a band sits: simulated (a normal error over the
decayed, clipped mean of ``c`` earlier absolute errors), the t puts 1.5 times the mass beyond
the true one-sided 5e-4 quantile after 4 errors, 1.3 after 7 and 1.1 after 40. So rows judged
together were quiet in their first weeks, most where a weekly model starts again from three
errors: on the short histories of ``bench/calibration.py`` (2,000 series) the first 30 points
of daily row counts raised 0.44 and 0.46 of the rate asked for at 0.01 and 0.001.

``MATCHED_DF`` holds, for ``COUNTS`` errors, the degrees of freedom whose t has the simulated
one-sided ``MATCH_AT`` quantile (in the units of :mod:`detectors.adaptive.tails`: a ``df``
and the clipped mean ratio ``m``); between counts it is interpolated in the log of the count,
and from the last count on (the decayed weights have settled) it is constant. Only the
predictive uses it: the likelihood that weighs the grid keeps the added precisions, because
with lighter members there the errors of real forecasts (heavier than the simulated ones: a
model that adapts, errors that shrink as it settles) moved the weight to heavier grid values,
and the bands of light rows widened (daily row counts' first 30 points at 0.01: 0.45 -> 0.19).
Heavy members keep theirs too: t(3) rows, fitted with 4 and 5 degrees of freedom, would get
lighter tails still. ``simulate(4.0, 0.97, tails.clipped_mean_ratio(4.0)[-1])`` draws the
table anew.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

COUNTS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 32, 48, 64, 96, 128)
MATCH_AT = 5e-4
"""The one-sided tail the simulated and the t quantile are matched at: bands at rates between
1e-2 and 1e-4 sit around it (the t's match moves by less than 0.2 degrees of freedom over
that range after 4 errors)."""
MATCHED_DF = (1.03, 2.1, 3.09, 4.14, 5.13, 6.19, 7.16, 8.16, 10.1, 12, 13.8, 15.6, 19.2, 22.6,
              29.1, 40.3, 48.5, 58.7, 61.6)  # fmt: skip
"""Per count of ``COUNTS``: the normal member's matched ``df`` for the smoother's outlier
limit and decay (4 and 0.97), from 100,000 simulated scales; :func:`simulate` draws them anew
within 0.15 degrees of freedom up to 32 errors and 2% beyond (simulation noise)."""


def simulate(
    limit: float, decay: float, m: float, draws: int = 100_000, seed: int = 2029
) -> list[float]:
    """Per count of ``COUNTS``: the ``df`` whose t (in units of the clipped mean ratio ``m``
    of normal errors, ``tails.clipped_mean_ratio``) has the one-sided ``MATCH_AT`` quantile of
    a normal error over the mean of ``c`` earlier absolute errors (each clipped at
    ``limit * m``, weighed ``decay`` per error back).

    >>> [round(df, 1) for df in simulate(4.0, 0.97, 0.7975, draws=20_000)[6:9]]  # 7, 8, 10
    [7.0, 7.9, 9.9]
    """
    from scipy.optimize import brentq
    from scipy.special import ndtr, stdtr

    rng = np.random.default_rng(seed)
    sums, weights, found = np.zeros(draws), 0.0, []
    for c in range(1, COUNTS[-1] + 1):
        sums = decay * sums + np.minimum(np.abs(rng.normal(size=draws)), limit * m)
        weights = decay * weights + 1.0
        if c not in COUNTS:
            continue
        scale = sums / weights

        def gap(a: float, scale: NDArray[np.float64] = scale) -> float:
            return math.log(max(float(np.mean(ndtr(-a * scale))), 1e-300)) - math.log(MATCH_AT)

        reach = brentq(gap, 0.01, 1e3)
        found.append(float(brentq(lambda df, a=reach: stdtr(df, -a * m) - MATCH_AT, 0.05, 1e7)))
    return found


def matched_df(counts: NDArray[np.float64]) -> NDArray[np.float64]:
    """The normal member's matched ``df`` at ``counts`` errors (log-interpolated, constant
    past the last tabulated count).

    >>> matched_df(np.array([7.0, 9.0, 4096.0])).round(2).tolist()
    [7.16, 9.18, 61.6]
    """
    at = np.log(np.clip(counts, 1.0, COUNTS[-1]))
    return np.interp(at, np.log(COUNTS), MATCHED_DF)
