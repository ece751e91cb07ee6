"""Sketch states (DataSketches HLL and KLL): Spark writes them, Python and Spark both merge them."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import ClassVar, Self

from datasketches import hll_sketch, hll_union, kll_doubles_sketch, tgt_hll_type

from anomaly.analyzers.state import State, check_same_kind


class _SketchState(State):
    sketch: bytes | None

    def payload(self) -> bytes:
        fields = dict(self.__dict__)
        fields["sketch"] = None if self.sketch is None else base64.b64encode(self.sketch).decode()
        return json.dumps(fields).encode()

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        fields = json.loads(data)
        if fields["sketch"] is not None:
            fields["sketch"] = base64.b64decode(fields["sketch"])
            cls.read(fields["sketch"])  # corrupt sketch bytes fail here, not at first use
        return cls(**fields)

    @staticmethod
    def read(sketch: bytes) -> object:
        """The DataSketches object of `sketch` bytes (raises on corrupt bytes)."""
        raise NotImplementedError


@dataclass(frozen=True)
class HllState(_SketchState):
    """A HyperLogLog sketch (Spark's ``hll_sketch_agg`` format); None is the identity.

    Examples
    --------
    >>> s = hll_sketch(12); s.update("a"); s.update("b")
    >>> t = hll_sketch(12); t.update("b"); t.update("c")
    >>> round(HllState(s.serialize_compact()).merge(HllState(t.serialize_compact())).estimate())
    3
    """

    kind: ClassVar[str] = "hll"
    sketch: bytes | None
    lg_k: int = 12

    @classmethod
    def identity(cls) -> HllState:
        return cls(None)

    @staticmethod
    def read(sketch: bytes) -> object:
        return hll_sketch.deserialize(sketch)

    def merge(self, other: HllState) -> HllState:
        check_same_kind(self, other)
        if other.sketch is None:
            return self
        if self.sketch is None:
            return other
        union = hll_union(max(self.lg_k, other.lg_k))
        union.update(hll_sketch.deserialize(self.sketch))
        union.update(hll_sketch.deserialize(other.sketch))
        merged = union.get_result(tgt_hll_type.HLL_8)
        return HllState(merged.serialize_updatable(), max(self.lg_k, other.lg_k))

    def estimate(self) -> float:
        """The estimated number of distinct values (0 for the identity)."""
        return 0.0 if self.sketch is None else hll_sketch.deserialize(self.sketch).get_estimate()


KLL_K = 1024
"""Sketch size of the monitored quantiles (p25, p50, p75; latencies' p50, p95): 0.27% rank
error. With Spark's default (200: 1.3%, randomised), the sketch's own noise was as large as the
sampling noise of a median of 1,500 rows, widening every quantile's band, and a re-run of the
same data could flip a verdict near the band's edge. Exact up to 1,024 values per group; about
24 KB per sketch beyond (5 KB at 200)."""


@dataclass(frozen=True)
class KllState(_SketchState):
    """A KLL quantile sketch of doubles (Spark's ``kll_sketch_agg_double`` format).

    Examples
    --------
    >>> a = kll_doubles_sketch(200); [a.update(float(v)) for v in range(1, 6)] and None
    >>> KllState(a.serialize()).merge(KllState.identity()).quantile(0.5)
    3.0
    """

    kind: ClassVar[str] = "kll"
    sketch: bytes | None

    @classmethod
    def identity(cls) -> KllState:
        return cls(None)

    @staticmethod
    def read(sketch: bytes) -> object:
        return kll_doubles_sketch.deserialize(sketch)

    def merge(self, other: KllState) -> KllState:
        check_same_kind(self, other)
        if other.sketch is None:
            return self
        if self.sketch is None:
            return other
        merged = kll_doubles_sketch.deserialize(self.sketch)
        merged.merge(kll_doubles_sketch.deserialize(other.sketch))
        return KllState(merged.serialize())

    @property
    def count(self) -> int:
        """How many values the sketch has seen."""
        return 0 if self.sketch is None else kll_doubles_sketch.deserialize(self.sketch).n

    def quantile(self, q: float) -> float:
        """The approximate `q` quantile (rank error about 1.3% at Spark's default k=200)."""
        assert self.sketch is not None
        return float(kll_doubles_sketch.deserialize(self.sketch).get_quantile(q))
