"""Student-t prediction intervals for the next point of a sample, as multipliers by sample size.

For ``n`` i.i.d. normal points with mean ``m`` and sample standard deviation ``s``, the next point
lies in ``m +- q * s * sqrt(1 + 1/n)`` with the probability that a normal value lies within ``k``
standard deviations when ``q`` is the t quantile with ``n - 1`` degrees of freedom at ``Phi(k)``.
Small samples get wide bands (``n = 3``, ``k = 3``: ``q = 19.2``) that narrow to ``m +- k * sd``.
"""

from __future__ import annotations

import functools

import numpy as np

from detectors.evaluation import FloatArray


@functools.lru_cache(maxsize=64)
def _table(factor: float, size: int) -> FloatArray:
    from scipy.special import ndtr, stdtrit  # lazily: scipy.special costs ~0.1 s to import

    n = np.arange(size, dtype=np.float64)
    widths = np.full(size, np.nan)
    many = n >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        q = stdtrit(n[many] - 1, ndtr(factor))
        widths[many] = q * np.sqrt((1.0 + 1.0 / n[many]) / (n[many] - 1))
    widths.setflags(write=False)
    return widths


def t_widths(factor: float, size: int) -> FloatArray:
    """``w[n]`` for ``n < size`` such that the band is ``mean +- w[n] * sqrt(ss)``, with ``ss``
    the sum of squared deviations of the ``n`` points (NaN for ``n < 2``).

    Examples
    --------
    >>> w = t_widths(3.0, 4)
    >>> round(float(w[3] * np.sqrt(2.0)), 2)  # n = 3, sample sd 1: q * sqrt(1 + 1/3)
    22.18
    >>> bool(abs(t_widths(3.0, 100_001)[100_000] * np.sqrt(99_999) - 3.0) < 1e-3)
    True
    """
    return _table(float(factor), 1 << max(size - 1, 1).bit_length())[:size]
