"""The ``anomaly suggest`` sub-command, through an argparse parser as anomaly/cli.py builds it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from anomaly.errors import ConfigurationError
from anomaly.suggestion.cli import register
from anomaly.suggestion.example_data import users


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="anomaly")
    register(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(["suggest", *argv])


@pytest.fixture(scope="module")
def csv_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("suggest") / "users.csv"
    users(400).to_csv(path, index=False)
    return path


def test_json_with_coverage(
    spark: SparkSession, csv_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = parse(str(csv_file), "--sample", "0.5", "--format", "json", "--evaluate")
    assert args.handler(args) == 0
    payload = json.loads(capsys.readouterr().out)
    assert 150 < payload["rows"] < 250
    by_call = {s["code"].split(").", 1)[1]: s for s in payload["suggestions"]}
    assert by_call['is_unique("id")']["holds"] is True
    assert by_call['has_consistent_type("followers_count")']["coverage"] == 1.0


def test_code_on_all_rows(
    spark: SparkSession, csv_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = parse(str(csv_file), "--sample", "1", "--format", "code", "--table", "accounts")
    assert args.handler(args) == 0
    code = capsys.readouterr().out
    compile(code, "<suggested>", "exec")
    assert code.startswith("from anomaly import Check, CheckLevel")
    assert '    .is_complete("screen_name")' in code.splitlines()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["missing.csv"], "PATH 'missing.csv' does not exist"),
        (["{csv}", "--sample", "0"], r"--sample must be in \(0, 1\], got 0.0"),
        (["{csv}", "--sample", "1", "--evaluate"], "--evaluate needs --sample below 1"),
    ],
)
def test_bad_arguments(csv_file: Path, argv: list[str], message: str) -> None:
    args = parse(*[a.format(csv=csv_file) for a in argv])
    with pytest.raises(ConfigurationError, match=message):
        args.handler(args)


def test_defaults() -> None:
    args = parse("data.parquet")
    assert (args.sample, args.format, args.evaluate) == (0.1, "table", False)
