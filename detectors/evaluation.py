"""Per-point verdicts of one detector over one interval: the band for every point, not only
anomalies, because plots and alerts need the band and checks need bounds when a point is fine."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from detectors.anomaly import Anomaly, Status

if TYPE_CHECKING:
    import pandas as pd

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
CodeArray = NDArray[np.int8]

# Status codes used inside kernels; ``STATUSES[code]`` is the public value.
OK, ANOMALY, INSUFFICIENT, MISSING = 0, 1, 2, 3
STATUSES: tuple[Status, ...] = (
    Status.OK,
    Status.ANOMALY,
    Status.INSUFFICIENT_HISTORY,
    Status.MISSING,
)
STATUS_ARRAY = np.array([s.value for s in STATUSES], dtype=object)


ROUNDING = 1e-12
"""Relative slack on band edges: a value equal to a bound up to float rounding is inside it
(a constant history has mean ``c + 1 ulp`` after Welford updates; ``c`` must not be flagged)."""


def outside(values: Any, lower: Any, upper: Any) -> Any:
    """Whether values lie outside ``[lower, upper]`` beyond rounding (scalars or arrays)."""
    with np.errstate(invalid="ignore"):
        return (values < lower - ROUNDING * abs(lower)) | (values > upper + ROUNDING * abs(upper))


def judge(
    values: FloatArray, lower: FloatArray, upper: FloatArray, ready: NDArray[np.bool_]
) -> CodeArray:
    """Status codes for points tested against ``[lower, upper]`` where ``ready``.

    NaN values are ``MISSING`` whatever else holds; points not ``ready`` are
    ``INSUFFICIENT``; the rest are ``ANOMALY`` outside the band, else ``OK``.
    """
    codes = np.where(outside(values, lower, upper), ANOMALY, OK).astype(np.int8)
    codes[~ready] = INSUFFICIENT
    codes[np.isnan(values)] = MISSING
    return codes


def rule_confidence(codes: CodeArray) -> FloatArray:
    """Deequ's confidence for rule-based detectors: 1 for anomalies, 0 for fine points."""
    return np.select([codes == ANOMALY, codes == OK], [1.0, 0.0], np.nan)


def fmt(value: float) -> str:
    """A float as Python prints it (``2.0``, ``inf``), also for numpy scalars."""
    return repr(float(value))


def band_detail(name: str, value: float, lower: float, upper: float) -> str:
    """Deequ's wording: value first, then the bounds (tools parse the first three numbers)."""
    return f"[{name}] Value {fmt(value)} is not in bounds [{fmt(lower)}, {fmt(upper)}]."


def missing_detail(name: str) -> str:
    return f"[{name}] Value is missing (NaN): not evaluated."


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Columnar verdicts for the points ``index`` of one series.

    Every array has one entry per evaluated point. ``lower``/``upper`` are NaN only where the
    detector could not compute a band (too little history, or a user detector that reports
    bounds for anomalies only). ``p_value`` is set by detectors that calibrate their band
    (the probability of a value at least this far out on a normal day; NaN where not judged).

    Examples
    --------
    >>> from detectors import SimpleThreshold
    >>> ev = SimpleThreshold(upper_bound=1).evaluate([-1, 2, 0.5])
    >>> [str(s) for s in ev.status]
    ['ok', 'anomaly', 'ok']
    >>> ev.upper.tolist()
    [1.0, 1.0, 1.0]
    >>> [a.index for a in ev.anomalies()]
    [1]
    """

    detector: str
    index: IntArray
    value: FloatArray
    lower: FloatArray
    upper: FloatArray
    codes: CodeArray
    confidence: FloatArray
    detail: tuple[str, ...]
    p_value: FloatArray | None = None

    @classmethod
    def build(
        cls,
        detector: str,
        start: int,
        value: FloatArray,
        lower: FloatArray,
        upper: FloatArray,
        codes: CodeArray,
        confidence: FloatArray,
        describe: Callable[[int], str],
        *,
        describe_ok: bool = False,
        p_value: FloatArray | None = None,
    ) -> Evaluation:
        """Assemble from per-point arrays; ``describe(i)`` explains point ``i`` of the arrays.

        Only points that are not ``OK`` are described unless ``describe_ok``: formatting a
        sentence for every fine point would dominate the cost of cheap detectors.
        """
        details = tuple(
            describe(i) if describe_ok or code != OK else "" for i, code in enumerate(codes)
        )
        index = np.arange(start, start + len(value), dtype=np.int64)
        return cls(detector, index, value, lower, upper, codes, confidence, details, p_value)

    def __len__(self) -> int:
        return len(self.index)

    @property
    def status(self) -> list[Status]:
        """The verdict of each point."""
        return [STATUSES[code] for code in self.codes]

    def anomalies(self) -> list[Anomaly]:
        """The flagged points, as Deequ's ``detect`` returns them."""
        return [
            Anomaly(
                int(self.index[i]),
                float(self.value[i]),
                float(self.confidence[i]),
                float(self.lower[i]),
                float(self.upper[i]),
                self.detail[i],
            )
            for i in np.flatnonzero(self.codes == ANOMALY)
        ]

    def to_frame(self) -> pd.DataFrame:
        """One row per evaluated point: index, value, status, lower, upper, confidence, detail
        (and p_value when the detector computes one)."""
        import pandas as pd  # only here: importing a detector loads no pandas

        frame = pd.DataFrame(
            {
                "index": self.index,
                "value": self.value,
                "status": STATUS_ARRAY[self.codes],
                "lower": self.lower,
                "upper": self.upper,
                "confidence": self.confidence,
                "detail": list(self.detail),
            }
        )
        if self.p_value is not None:
            frame["p_value"] = self.p_value
        return frame
