"""Slot analyzers: metrics of one value per row, computed together in the stacked scan.

A slot is what an analyzer reads from each row: a ``key`` (hashed: non-null and approximate
distinct counts), a ``number`` (extremes, moments, quantiles, zero and negative counts), a
``text`` (most frequent values) and a ``flag`` (counted where true), each optional. Every slot
gets the same aggregates, so slots of any columns can be stacked into rows of a few slots each
and aggregated together (``anomaly.engine.stacked_scan``): the Spark job count and the code
stay flat in the number of columns, which one wide aggregation's code does not.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anomaly.analyzers.base import Analyzer, S

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType

TOP_VALUES = 20
"""The most frequent values a slot reports, all of them when it has at most this many."""


@dataclass(frozen=True)
class Slot:
    """The per-row inputs of one slot (SQL columns; None: not read).

    >>> Slot().inputs
    ()
    """

    key: Column | None = None
    number: Column | None = None
    text: Column | None = None
    flag: Column | None = None

    @property
    def inputs(self) -> tuple[str, ...]:
        """The names of the inputs given, in a fixed order."""
        return tuple(n for n in ("key", "number", "text", "flag") if getattr(self, n) is not None)


@dataclass(frozen=True)
class SlotValues:
    """The aggregates of one slot over one group's rows.

    `rows` counts the group's rows; `present` the rows with a non-null key; `distinct` is the
    key's HLL sketch (``HllState`` bytes); `numbers`, `minimum`, `maximum`, `total`, `variance`
    (population), `quantiles` (a KLL sketch), `zeros` and `negatives` describe the non-null
    numbers; `flagged` counts rows whose flag is true; `top` holds the ``(text, count)`` pairs
    of every text value when there are at most `TOP_VALUES` distinct ones (nulls left out),
    most frequent first, else None.

    >>> SlotValues(rows=3).present, SlotValues(rows=3).top
    (0, ())
    """

    rows: int
    present: int = 0
    distinct: bytes | None = None
    numbers: int = 0
    minimum: float | None = None
    maximum: float | None = None
    total: float = 0.0
    variance: float | None = None
    quantiles: bytes | None = None
    zeros: int = 0
    negatives: int = 0
    flagged: int = 0
    top: tuple[tuple[str, int], ...] | None = ()


class SlotAnalyzer(Analyzer[S]):
    """An analyzer computed from one `Slot` (or from the row count alone).

    The runner computes every slot analyzer of a run in one stacked scan when at least one of
    them can only run there; analyzers that are also scan-shareable (``Size``, ``Timeliness``)
    then join that scan instead of a second pass over the data.
    """

    @abstractmethod
    def slot(self, schema: StructType) -> Slot | None:
        """The slot this analyzer reads (None: it needs the row count only)."""

    @abstractmethod
    def state_from_slot(self, values: SlotValues, schema: StructType) -> S:
        """The state from the slot's aggregates over data of `schema`."""

    @property
    def slot_only(self) -> bool:
        """Whether the stacked scan is the only way to compute this analyzer."""
        from anomaly.analyzers.base import ScanShareableAnalyzer

        return not isinstance(self, ScanShareableAnalyzer)
