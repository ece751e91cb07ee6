"""States: sufficient statistics of a metric that merge as a commutative monoid.

As in Schelter et al., ICDE 2019.
"""

from __future__ import annotations

import json
import struct
from abc import ABC, abstractmethod
from dataclasses import asdict, astuple, dataclass, fields
from typing import Any, ClassVar, Self

from anomaly.errors import StateError

MAGIC = b"ANST"
FORMAT_VERSION = 1
_KINDS: dict[str, type[State]] = {}


class State(ABC):
    """A frozen dataclass of sufficient statistics.

    ``merge`` is associative and commutative and `identity()` is its neutral element, so the
    state of a union of disjoint data sets is the merge of their states.
    """

    kind: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "kind" in cls.__dict__:
            _KINDS[cls.kind] = cls

    @classmethod
    @abstractmethod
    def identity(cls) -> Self:
        """The state of an empty data set."""

    @abstractmethod
    def merge(self, other: Self) -> Self:
        """The state of the union of the two data sets."""

    def payload(self) -> bytes:
        """The state's own bytes (JSON of its fields unless a subclass knows better)."""
        return json.dumps(asdict(self)).encode()  # type: ignore[call-overload]

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        """Inverse of `payload`."""
        return cls(**json.loads(data))

    def to_bytes(self) -> bytes:
        """Self-describing bytes: magic, format version, kind, payload."""
        kind = self.kind.encode()
        return MAGIC + struct.pack(">BH", FORMAT_VERSION, len(kind)) + kind + self.payload()


def state_from_bytes(data: bytes) -> State:
    """Read a state written by `State.to_bytes`, checking magic, version and kind."""
    if data[:4] != MAGIC or len(data) < 7:
        raise StateError(
            f"not an analyzer state: bytes start with {data[:4]!r}, expected {MAGIC!r}"
        )
    version, size = struct.unpack(">BH", data[4:7])
    if version != FORMAT_VERSION:
        raise StateError(
            f"state format version {version} is not supported; this version reads {FORMAT_VERSION}"
        )
    kind = data[7 : 7 + size].decode(errors="replace")
    if kind not in _KINDS:
        raise StateError(f"unknown state kind {kind!r}; known kinds: {sorted(_KINDS)}")
    try:
        return _KINDS[kind].from_payload(data[7 + size :])
    except Exception as error:  # JSON, Arrow or sketch decoding: corrupt bytes, never a raw error
        raise StateError(f"corrupt {kind!r} state: {type(error).__name__}: {error}") from error


def check_same_kind(a: State, b: State) -> None:
    """Merging states of different kinds is a usage error, not a silent wrong result."""
    if type(a) is not type(b):
        raise StateError(f"cannot merge a {type(a).__name__} with a {type(b).__name__}")


class ZeroState(State):
    """A state whose empty data set has every field zero (a frozen dataclass of numbers)."""

    @classmethod
    def identity(cls) -> Self:
        zeros = (0.0 if f.type == "float" else 0 for f in fields(cls))  # type: ignore[arg-type]
        return cls(*zeros)


class SummedState(ZeroState):
    """A state of counts and sums: a merge adds the two states field by field.

    >>> MatchesState(3, 4).merge(MatchesState(1, 6)), MatchesState.identity()
    (MatchesState(matches=4, rows=10), MatchesState(matches=0, rows=0))
    """

    def merge(self, other: Self) -> Self:
        check_same_kind(self, other)
        both = zip(astuple(self), astuple(other), strict=True)  # type: ignore[call-overload]
        return type(self)(*(a + b for a, b in both))


class PooledState(ZeroState):
    """A state of `n` rows' means and central moments, merged by pooling (Chan et al.'s
    pairwise update, in `pooled`); a side without rows leaves the other as it is."""

    n: int

    def merge(self, other: Self) -> Self:
        check_same_kind(self, other)
        if other.n == 0:
            return self
        if self.n == 0:
            return other
        return self.pooled(other)

    @abstractmethod
    def pooled(self, other: Self) -> Self:
        """The merge of two states that both have rows."""


@dataclass(frozen=True)
class CountState(SummedState):
    """Number of rows (Size)."""

    kind: ClassVar[str] = "count"
    rows: int


@dataclass(frozen=True)
class MatchesState(SummedState):
    """Matching rows and all rows (Completeness, Compliance, PatternMatch)."""

    kind: ClassVar[str] = "matches"
    matches: int
    rows: int
