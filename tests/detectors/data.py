"""Series shared by the detector tests: small, seeded, with known anomalies."""

from __future__ import annotations

import numpy as np

WEEK = np.array([10.0, 12.0, 14.0, 13.0, 11.0, 5.0, 4.0])


def weekly(weeks: int, noise: float = 0.3, seed: int = 0) -> np.ndarray:
    """A weekly cycle plus Gaussian noise."""
    rng = np.random.default_rng(seed)
    return np.tile(WEEK, weeks) + rng.normal(0.0, noise, 7 * weeks)


def noisy_level(n: int, level: float = 10.0, noise: float = 0.5, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return level + rng.normal(0.0, noise, n)


class JavaRandom:
    """java.util.Random, which Deequ's tests seed with ``new Random(1)``: their data, exactly."""

    def __init__(self, seed: int) -> None:
        self.seed = (seed ^ 0x5DEECE66D) & ((1 << 48) - 1)
        self.spare: float | None = None

    def _next(self, bits: int) -> int:
        self.seed = (self.seed * 0x5DEECE66D + 0xB) & ((1 << 48) - 1)
        value = self.seed >> (48 - bits)
        return value - (1 << 32) if value >= 1 << 31 else value  # Java's (int) cast

    def next_double(self) -> float:
        return ((self._next(26) << 27) + self._next(27)) * 2.0**-53

    def next_gaussian(self) -> float:
        if self.spare is not None:
            spare, self.spare = self.spare, None
            return spare
        while True:
            v1 = 2 * self.next_double() - 1
            v2 = 2 * self.next_double() - 1
            s = v1 * v1 + v2 * v2
            if 0 < s < 1:
                break
        multiplier = float(np.sqrt(-2 * np.log(s) / s))
        self.spare = v2 * multiplier
        return v1 * multiplier


def deequ_online_normal_data() -> list[float]:
    """The series of Deequ's OnlineNormalStrategyTest: N(0, 1) with +-i added at 20..30."""
    rng = JavaRandom(1)
    data = [rng.next_gaussian() for _ in range(51)]
    for i in range(20, 31):
        data[i] += i + (i % 2 * -2 * i)
    return data
