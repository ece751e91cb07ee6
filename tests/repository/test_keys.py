from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pandas as pd
import pytest

from repository import ResultKey
from repository.keys import canonical_key, check_group, to_epoch_ms


def test_aware_naive_and_millis_give_the_same_key() -> None:
    berlin = timezone(timedelta(hours=2))
    aware = ResultKey(datetime(2024, 5, 1, 2, tzinfo=berlin), {"dataset": "d"})
    naive = ResultKey(datetime(2024, 5, 1), {"dataset": "d"})  # naive means UTC
    millis = ResultKey(1714521600000, {"dataset": "d"})
    assert aware == naive == millis
    assert len({aware, naive, millis}) == 1
    assert aware.timestamp == datetime(2024, 5, 1, tzinfo=UTC)
    assert ResultKey(np.int64(1714521600000), {"dataset": "d"}) == millis  # type: ignore[arg-type]


def test_millisecond_resolution_and_pandas_timestamps() -> None:
    stamp = pd.Timestamp("2024-05-01 00:00:00.123456789", tz="UTC")
    assert ResultKey(stamp).epoch_ms == 1714521600123
    assert to_epoch_ms(datetime(1969, 12, 31, 23, 59, 59, 999500, tzinfo=UTC)) == -1


def test_tags_are_part_of_the_identity_and_read_only() -> None:
    first = ResultKey(0, {"a": "1", "b": "2"})
    assert first == ResultKey(0, {"b": "2", "a": "1"})
    assert first != ResultKey(0, {"a": "1"})
    assert first.tags_key == '[["a","1"],["b","2"]]'
    with pytest.raises(TypeError):
        first.tags["a"] = "x"  # type: ignore[index]
    with pytest.raises(AttributeError, match="immutable"):
        first._millis = 5


@pytest.mark.parametrize(
    ("timestamp", "tags", "error", "match"),
    [
        (True, {}, TypeError, "bool"),
        ("2024-05-01", {}, TypeError, "datetime or epoch milliseconds"),
        (0, {"dataset": 3}, TypeError, r"tags\['dataset'\] must be a str"),
        (0, {"": "x"}, ValueError, "non-empty"),
        (0, ["dataset"], TypeError, "mapping"),
        (pd.NaT, {}, ValueError, "real point in time"),
    ],
)
def test_bad_keys_are_rejected_with_the_value(
    timestamp: object, tags: object, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        ResultKey(timestamp, tags)  # type: ignore[arg-type]


def test_group_keys_are_canonical_and_keep_null() -> None:
    assert canonical_key({"b": None, "a": "x"}) == canonical_key({"a": "x", "b": None})
    assert canonical_key({}) == "[]"
    assert canonical_key({"a": None}) != canonical_key({"a": "null"})
    with pytest.raises(TypeError, match="text or None"):
        check_group({"country": 7})
