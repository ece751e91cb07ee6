"""The ``anomaly suggest`` sub-command, through an argparse parser as anomaly/cli.py builds it."""

from __future__ import annotations

import argparse
import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from anomaly.errors import ConfigurationError
from anomaly.spark import runtime_conf
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


@pytest.fixture(scope="module")
def printed_code(spark: SparkSession, csv_file: Path) -> str:
    """What ``anomaly suggest users.csv --sample 1 --format code`` prints."""
    args = parse(str(csv_file), "--sample", "1", "--format", "code", "--table", "accounts")
    with redirect_stdout(io.StringIO()) as out:
        assert args.handler(args) == 0
    return out.getvalue()


def test_code_is_a_check_with_the_suggestions(printed_code: str) -> None:
    assert printed_code.startswith("from anomaly import Check, CheckLevel, VerificationSuite")
    assert '    .is_complete("screen_name")' in printed_code.splitlines()
    assert '    .is_non_negative("engagement")' in printed_code.splitlines()


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_printed_code_runs_as_printed_and_holds_on_its_data(
    spark: SparkSession, printed_code: str, ansi: str
) -> None:
    """The code runs exactly as printed (no edits, its own imports), on the CSV it came from,
    every column text, under ANSI mode on (Spark 4's default) and off: every constraint holds."""
    namespace: dict[str, Any] = {}
    with runtime_conf(spark, {"spark.sql.ansi.enabled": ansi}), redirect_stdout(io.StringIO()):
        exec(compile(printed_code, "<anomaly suggest --format code>", "exec"), namespace)
    rows = namespace["result"].to_pandas()
    assert len(rows) == printed_code.count("\n    .") > 15
    failed = rows[rows.status != "success"]
    assert failed.empty, failed[["constraint", "message"]].to_string()


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
