"""A long frame of metric points turned into one clean series per group, stored flat."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from detectors.evaluation import FloatArray, IntArray
from detectors.vectorised import FloatMatrix


@dataclass(frozen=True, eq=False)
class GroupedSeries:
    """Rows sorted by group then time, without missing values or duplicate times.

    Group ``g`` owns the rows ``offsets[g]:offsets[g + 1]``; ``keys`` holds its group values.
    """

    keys: pd.DataFrame
    values: FloatArray
    times: pd.Index
    group: IntArray
    offsets: IntArray

    @property
    def lengths(self) -> IntArray:
        return np.diff(self.offsets)

    @cached_property
    def positions(self) -> IntArray:
        """Each row's position within its group's series."""
        return np.arange(len(self.values)) - self.offsets[self.group]

    def matrix(self) -> FloatMatrix:
        """Groups x time, left-aligned, NaN-padded to the longest group."""
        return self.as_matrix(self.values, np.nan)

    def as_matrix(self, flat: np.ndarray, pad: object) -> np.ndarray:
        """``flat`` (one entry per row) as groups x time, left-aligned, padded with ``pad``."""
        lengths = self.lengths
        width = int(lengths.max(initial=0))
        if len(lengths) and int(lengths.min()) == width:  # every group as long: row order is
            return flat.reshape(len(lengths), width).copy()  # the matrix's order already
        x = np.full((len(lengths), width), pad, dtype=flat.dtype)
        x[self.group, self.positions] = flat
        return x

    def series(self, g: int) -> FloatArray:
        return self.values[self.offsets[g] : self.offsets[g + 1]]


RUN_SHARE = 0.5
"""Rows come in runs of one group when at most this share of them starts a run."""
PROBE = 1_000
"""Rows looked at first, to skip the run search on shuffled input."""


def _group_codes(frame: pd.DataFrame, by: Sequence[str]) -> IntArray:
    """Dense group numbers in sorted key order; null keys form groups of their own."""
    if not by:
        return np.zeros(len(frame), dtype=np.int64)
    # A frame that comes in runs of one group (sorted by it, as a scan's) is numbered by the
    # first row of each run: hashing every row's key is most of the time of a 10k-group check.
    heads = _run_heads(frame, by)
    keyed = frame if heads is None else frame.iloc[heads]
    numbers = keyed.groupby(list(by), sort=True, dropna=True, observed=True).ngroup()
    if numbers.isna().any():  # null keys: rare, and twice as slow to keep
        numbers = keyed.groupby(list(by), sort=True, dropna=False, observed=True).ngroup()
    codes = np.asarray(numbers, dtype=np.int64)
    return codes if heads is None else np.repeat(codes, np.diff(np.r_[heads, len(frame)]))


def _run_heads(frame: pd.DataFrame, by: Sequence[str]) -> IntArray | None:
    """The first row of each run of rows with equal ``by`` keys, if the rows come in runs and
    every key column holds integers or Python objects (no categories, whose grouping has an
    order of its own); else ``None``. Objects equal by ``!=`` hash alike, so runs split where
    groups do; a null key (NaN, NaT) starts a run of its own and joins its null group when
    the heads are grouped; ``pd.NA``, which cannot be compared, leaves the rows to the grouping.

    >>> frame = pd.DataFrame({"g": ["a"] * 3 + ["b"] * 3 + ["a"] * 2, "v": range(8)})
    >>> _run_heads(frame, ["g"]).tolist(), _run_heads(frame.astype({"g": "category"}), ["g"])
    ([0, 3, 6], None)
    """
    dtypes = [frame[c].dtype for c in by]
    if len(frame) < 2 or not all(isinstance(d, np.dtype) and d.kind in "iubO" for d in dtypes):
        return None
    columns = [frame[c].to_numpy() for c in by]
    probe = min(len(frame), PROBE)
    for end in (probe, len(frame)):
        change = np.zeros(end, dtype=bool)
        change[0] = True
        try:
            for keys in columns:
                change[1:] |= keys[1:end] != keys[: end - 1]
        except (TypeError, ValueError):  # pd.NA, or keys that compare as arrays
            return None
        heads = np.flatnonzero(change)
        if len(heads) > RUN_SHARE * end:
            return None
    return heads


def group_series(frame: pd.DataFrame, by: Sequence[str], time: str, value: str) -> GroupedSeries:
    """Split ``frame`` into clean series, one per distinct combination of ``by`` values.

    NaN values and missing times are dropped; among rows with the same group and time the
    last one wins. Null group values form their own group. Already sorted input skips the sort.
    """
    numbers = pd.to_numeric(frame[value], errors="coerce")
    values = np.asarray(numbers, dtype=np.float64)
    time_codes, time_values = pd.factorize(frame[time], sort=True)
    group_codes = _group_codes(frame, by)

    rows = np.flatnonzero((time_codes >= 0) & ~np.isnan(values))
    whole = len(rows) == len(frame)  # (then ``rows`` are every row, in order)
    key = (group_codes if whole else group_codes[rows]) * max(len(time_values), 1) + (
        time_codes if whole else time_codes[rows]
    )
    in_order = not np.any(key[1:] < key[:-1])
    if not in_order:
        order = np.argsort(key, kind="stable")  # stable: "last wins" means last in input order
        rows, key = rows[order], key[order]
    last = np.ones(len(key), dtype=bool)
    last[:-1] = key[1:] != key[:-1]
    # Every row kept in its place (sorted input, nothing missing or repeated): no gathers.
    kept = whole and in_order and bool(last.all())
    rows = rows[last]
    codes = group_codes if kept else group_codes[rows]
    counts = np.bincount(codes, minlength=int(group_codes.max(initial=-1)) + 1)
    present = counts > 0
    dense = np.cumsum(present) - 1  # groups whose every value was missing disappear
    offsets = np.concatenate([[0], np.cumsum(counts[present])]).astype(np.int64)
    heads = rows[offsets[:-1]]
    return GroupedSeries(
        keys=frame.iloc[heads][list(by)].reset_index(drop=True),
        values=values.copy() if kept else values[rows],
        times=time_values[time_codes if kept else time_codes[rows]],
        group=codes.astype(np.int64) if bool(present.all()) else dense[codes].astype(np.int64),
        offsets=offsets,
    )
