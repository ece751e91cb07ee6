from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from detectors.grouped import _group_codes, group_series


def test_groups_are_sorted_cleaned_and_deduplicated() -> None:
    frame = pd.DataFrame(
        {
            "board": ["b", "a", "b", "a", None, "b", "a"],
            "timestamp": [3, 2, 1, 1, 1, 1, 3],
            "value": [30.0, 20.0, 10.0, 11.0, 5.0, 12.0, math.nan],
        }
    )
    grouped = group_series(frame, ["board"], "timestamp", "value")
    assert grouped.keys["board"].tolist() == ["a", "b", None]
    # a: t1, t2 (t3 is NaN); b: t1 twice -> the last one given (12.0) wins, then t3
    assert grouped.values.tolist() == [11.0, 20.0, 12.0, 30.0, 5.0]
    assert grouped.times.tolist() == [1, 2, 1, 3, 1]
    assert grouped.lengths.tolist() == [2, 2, 1]
    assert grouped.positions.tolist() == [0, 1, 0, 1, 0]
    np.testing.assert_array_equal(grouped.matrix(), [[11.0, 20.0], [12.0, 30.0], [5.0, math.nan]])


def test_several_group_columns_and_no_group_column() -> None:
    frame = pd.DataFrame(
        {
            "x": [1, 1, 2],
            "y": ["p", "q", "p"],
            "t": pd.to_datetime(["2024-01-01"] * 3),
            "v": [1.0, 2.0, 3.0],
        }
    )
    grouped = group_series(frame, ["x", "y"], "t", "v")
    assert grouped.keys.to_dict("list") == {"x": [1, 1, 2], "y": ["p", "q", "p"]}
    single = group_series(frame.iloc[:1], [], "t", "v")
    assert single.keys.shape == (1, 0) and single.lengths.tolist() == [1]


def test_empty_frame() -> None:
    frame = pd.DataFrame({"g": [], "t": [], "v": []})
    grouped = group_series(frame, ["g"], "t", "v")
    assert len(grouped.values) == 0 and grouped.matrix().shape == (0, 0)


def _runs(keys: list[object], size: int) -> list[object]:
    return [k for k in keys for _ in range(size)]


@pytest.mark.parametrize(
    "columns",
    [
        {"g": _runs(["b", "a", "c", "a"], 600)},  # runs (a group may come back later)
        {"g": [*_runs(["b", "a", "c"], 600)[::-1], "a"]},
        {"g": _runs([3, 1, 2], 700), "h": _runs(["x", "y"], 1050)},  # runs of the pair
        {"g": _runs([True, False], 900)},
        {"g": _runs(["b", None, "a"], 600)},  # null keys: the grouping's own numbering
        {"g": _runs(["b", math.nan, "a", math.nan], 600)},
        {"g": _runs(["b", pd.NA, "a"], 600)},
        {"g": _runs([pd.Timestamp("2024-01-01"), pd.NaT], 600), "h": _runs(["x", "y"], 600)},
        {"g": _runs(["b", 1, "a"], 600)},  # mixed types
        {"g": _runs([2.5, math.nan, 1.0], 600)},
        {"g": ["a", "b"] * 900},  # no runs
        {"g": _runs(["b", "a"], 2)},  # shorter than the probe
    ],
)
@pytest.mark.parametrize("dtype", [None, "category", "string"])
@pytest.mark.filterwarnings("error::FutureWarning")  # pandas' observed=False default, on categories
def test_group_numbers_equal_the_groupings(
    columns: dict[str, list[object]], dtype: str | None
) -> None:
    frame = pd.DataFrame(columns)
    if dtype is not None:
        frame = frame.astype({"g": dtype})
    expected = frame.groupby(list(columns), sort=True, dropna=False, observed=True).ngroup()
    np.testing.assert_array_equal(_group_codes(frame, list(columns)), expected.to_numpy())


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from(["equal lengths", "unequal lengths"]),
    st.sampled_from(["in order", "shuffled", "a missing value", "a repeated time"]),
)
def test_in_order_input_is_split_as_any_other(seed: int, lengths: str, layout: str) -> None:
    """A frame in group and time order with nothing to drop skips the row gathers, and groups
    of one length become a matrix by a reshape: the same series as the general path's."""
    rng = np.random.default_rng(seed)
    groups = int(rng.integers(1, 6))
    sizes = np.full(groups, 4) if lengths == "equal lengths" else rng.integers(1, 6, groups)
    frame = pd.DataFrame({
        "g": np.repeat([f"g{g}" for g in range(groups)], sizes),
        "t": pd.to_datetime("2024-01-01") + pd.to_timedelta(
            np.concatenate([np.arange(n) for n in sizes]), unit="D"),
        "v": rng.normal(size=int(sizes.sum())),
    })  # fmt: skip
    if layout == "shuffled":
        frame = frame.sample(frac=1.0, random_state=seed % 1000).reset_index(drop=True)
    elif layout == "a missing value":
        frame.loc[int(rng.integers(0, len(frame))), "v"] = math.nan
    elif layout == "a repeated time":
        frame = pd.concat([frame, frame.iloc[[0]].assign(v=99.0)], ignore_index=True)
    grouped = group_series(frame, ["g"], "t", "v")
    # The general path, by hand: drop missing values, keep the last row per (group, time).
    plain = frame.dropna(subset=["v"]).drop_duplicates(["g", "t"], keep="last")
    plain = plain.sort_values(["g", "t"], kind="stable")
    assert grouped.values.tolist() == plain["v"].tolist()
    assert grouped.times.tolist() == plain["t"].tolist()
    assert grouped.keys["g"].tolist() == sorted(plain["g"].unique())
    codes = pd.factorize(plain["g"], sort=True)[0]
    assert grouped.group.tolist() == codes.tolist()
    expected = np.full((len(grouped.lengths), int(grouped.lengths.max(initial=0))), math.nan)
    expected[codes, grouped.positions] = plain["v"].to_numpy()
    np.testing.assert_array_equal(grouped.matrix(), expected)
    assert not np.shares_memory(grouped.values, frame["v"].to_numpy())  # the frame's own
