"""The YAML reader refuses hostile and mistaken files with a clear message (issue 31, findings
17 and 18): duplicate keys (YAML keeps the last one silently), an alias bomb (407 bytes took
188 s and 6.5 GB), deep nesting (a bare RecursionError), huge files (3.5 MB took 119 s)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from anomaly.config.yaml_file import MAX_ALIASES, MAX_BYTES, MAX_DEPTH, MAX_VALUES, read_yaml
from anomaly.service import ConfigFileError, load_config
from tests.anomaly.service.conftest import write_config

BASE = """sources:
  events: {path: e.parquet, time_column: day}
scans:
  daily: {source: events, metrics: [Size]}
"""
# The "billion laughs": 9 levels of 9 aliases, 9**9 values once expanded, 72 aliases.
LAUGHS = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{n}: &{n} [{','.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True)
)
MANY_ALIASES = "x: &x 1\nys: [" + ", ".join(["*x"] * (MAX_ALIASES + 1)) + "]\n"
DEEP = "x: " + "[" * 10_000 + "]" * 10_000 + "\n"
DEEP_BY_ALIASES = (
    "a: &a " + "[" * 30 + "]" * 30 + "\n" + "b: &b " + "[" * 30 + "*a" + "]" * 30 + "\n"
)


def refused(tmp_path: Path, text: str) -> tuple[str, float]:
    path = write_config(tmp_path, text)
    started = time.perf_counter()
    with pytest.raises(ConfigFileError) as raised:
        load_config(path, env={})
    return str(raised.value).removeprefix(f"{path}: "), time.perf_counter() - started


@pytest.mark.faults
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (BASE + LAUGHS, f"line 1: aliases expand the file by more than {MAX_VALUES:,} values; "
         f"they may add at most {MAX_VALUES:,} (and a config may use at most {MAX_ALIASES} "
         "aliases)"),
        (BASE + MANY_ALIASES, f"line 6: alias *x is alias number {MAX_ALIASES + 1}; a config "
         f"may use at most {MAX_ALIASES} aliases"),
        (BASE + DEEP, f"line 5: nesting {MAX_DEPTH + 1} levels deep; a config may nest mappings "
         f"and lists at most {MAX_DEPTH} levels deep"),
        (BASE + DEEP_BY_ALIASES, f"line 6, b[0][0]: aliases nest the file 60 levels deep; a config "
         f"may nest mappings and lists at most {MAX_DEPTH} levels deep"),
        (BASE + "loop: &loop [1, *loop]\n", "line 5, loop[1]: an alias refers to the mapping or "
         "list that contains it"),
        (BASE + "#" * MAX_BYTES + "\n", f"the file is {len(BASE) + MAX_BYTES + 1:,} bytes; a "
         f"config may be at most {MAX_BYTES:,} bytes"),
    ],
    ids=["billion-laughs", "alias-budget", "deep", "deep-by-aliases", "alias-cycle", "huge"],
)  # fmt: skip
def test_a_hostile_file_is_refused_at_once_saying_what_is_allowed(
    tmp_path: Path, text: str, expected: str
) -> None:
    message, seconds = refused(tmp_path, text)
    assert message == expected
    assert seconds < 5  # loose, on a loaded machine: unrefused, the bomb took minutes


def test_a_small_bomb_of_the_audits_size_is_refused(tmp_path: Path) -> None:
    assert len(LAUGHS.encode()) < 500
    message, _ = refused(tmp_path, LAUGHS)
    assert "aliases expand the file" in message


def test_a_large_plain_config_within_the_limits_loads(tmp_path: Path) -> None:
    scans = "".join(f"  s{i}: {{source: events, metrics: [Size]}}\n" for i in range(2_000))
    text = BASE + scans
    assert len(text) < MAX_BYTES
    assert len(load_config(write_config(tmp_path, text), env={}).scans) == 2_001


def test_many_values_without_aliases_are_not_an_alias_expansion(tmp_path: Path) -> None:
    text = "x: [" + ", ".join(["1"] * (MAX_VALUES + 20_000)) + "]\n"
    data, lines = read_yaml(write_config(tmp_path, text))
    assert len(data["x"]) == MAX_VALUES + 20_000
    assert lines[("x", MAX_VALUES)] == 1


def test_aliases_and_merges_within_the_budget_still_work(tmp_path: Path) -> None:
    text = """sources:
  events: &source {path: e.parquet, time_column: day}
  copy: {<<: *source, path: f.parquet}
scans:
  daily: {source: events, metrics: &metrics [Size, {analyzer: Mean, column: price}]}
  again: {source: copy, metrics: *metrics}
"""
    config = load_config(write_config(tmp_path, text), env={})
    assert config.sources["copy"].path == str(tmp_path / "f.parquet")  # a merge may override
    assert config.sources["copy"].time_column == "day"
    assert len(config.scans["again"].metrics) == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (BASE + "sources: {}\n", "line 5, sources: duplicate key 'sources' (first at line 1); "
         "a key may appear once in a mapping"),
        (BASE + "  daily: {source: events, metrics: [Mean]}\n", "line 5, scans.daily: duplicate "
         "key 'daily' (first at line 4); a key may appear once in a mapping"),
        (BASE.replace("[Size]}", "[Size], source: other}"), "line 4, scans.daily.source: "
         "duplicate key 'source' (first at line 4); a key may appear once in a mapping"),
        (BASE.replace("metrics: [Size]", "metrics: [{analyzer: Mean, column: a, column: b}]"),
         "line 4, scans.daily.metrics[0].column: duplicate key 'column' (first at line 4); a "
         "key may appear once in a mapping"),
    ],
)  # fmt: skip
def test_a_key_given_twice_is_refused_with_both_lines(
    tmp_path: Path, text: str, expected: str
) -> None:
    message, _ = refused(tmp_path, text)
    assert message == expected
