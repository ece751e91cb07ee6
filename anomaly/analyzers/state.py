"""States: sufficient statistics of a metric that merge as a commutative monoid.

As in Schelter et al., ICDE 2019.
"""

from __future__ import annotations

import json
import struct
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass
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


@dataclass(frozen=True)
class CountState(State):
    """Number of rows (Size)."""

    kind: ClassVar[str] = "count"
    rows: int

    @classmethod
    def identity(cls) -> CountState:
        return cls(0)

    def merge(self, other: CountState) -> CountState:
        check_same_kind(self, other)
        return CountState(self.rows + other.rows)


@dataclass(frozen=True)
class MatchesState(State):
    """Matching rows and all rows (Completeness, Compliance, PatternMatch)."""

    kind: ClassVar[str] = "matches"
    matches: int
    rows: int

    @classmethod
    def identity(cls) -> MatchesState:
        return cls(0, 0)

    def merge(self, other: MatchesState) -> MatchesState:
        check_same_kind(self, other)
        return MatchesState(self.matches + other.matches, self.rows + other.rows)
