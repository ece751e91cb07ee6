"""Backtests of stored histories: annotations as labels and exclusions, CSV labels, the CLI."""

from __future__ import annotations

import argparse
import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from anomaly.backtest import backtest, read_labels
from anomaly.backtest.cli import parse_detector, register
from anomaly.errors import ConfigurationError
from detectors import Adaptive, AlertFatigue, OnlineNormal, RobustMAD, is_newest_anomalous
from repository import MetricRecord, MetricsRepository, ResultKey

DAY0 = datetime(2024, 5, 1, tzinfo=UTC)


def day(n: int) -> datetime:
    return DAY0 + timedelta(days=n)


@pytest.fixture
def repo_path(stored: Path, tmp_path: Path) -> Path:
    """A copy of `stored` of the test's own: the 30 saves, 1-2 s, once a module."""
    path = tmp_path / "metrics.duckdb"
    shutil.copyfile(stored, path)
    return path


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """30 days of row counts for DE and FR; DE loses half a load on day 20, FR doubles on 12."""
    path = tmp_path_factory.mktemp("backtest") / "metrics.duckdb"
    rng = np.random.default_rng(3)
    with MetricsRepository(path) as repo:
        for n in range(30):
            de, fr = 1000 + rng.normal(0, 10), 500 + rng.normal(0, 5)
            de = de / 2 if n == 20 else de
            fr = fr * 2 if n == 12 else fr
            records = [
                MetricRecord("Dataset", "*", "Size", "Size(*)", v, {"country": c})
                for c, v in (("DE", de), ("FR", fr))
            ]
            repo.save(ResultKey(day(n), {"dataset": "orders", "env": "prod"}), records)
        repo.annotate("incident", day(20), metric="Size(*)", group={"country": "DE"})
        repo.annotate("excluded", day(12), metric="Size(*)", tags={"dataset": "orders"})
        repo.annotate("expected", day(25), day(26), tags={"env": "prod"})
    return path


def test_annotations_label_and_exclude_stored_points(repo_path: Path) -> None:
    with MetricsRepository(repo_path) as repo:
        result = backtest(repo, [OnlineNormal(), RobustMAD()], metrics="Size(*)")
        fr = repo.history("Size(*)", group={"country": "FR"}, exclude_annotated=True)
    assert [s.group_label for s in result.series] == ["country=DE", "country=FR"]
    de, france = result.series
    assert np.flatnonzero(de.incident).tolist() == [20]
    assert np.flatnonzero(france.excluded).tolist() == [12]
    assert np.flatnonzero(de.expected).tolist() == [25, 26]
    totals = result.totals().set_index("detector")
    assert totals.loc["OnlineNormal()", ["incidents", "detected"]].tolist() == [1, 1]
    # Day 13 of FR is judged on the history without the doubled day 12, as a check would.
    verdict = is_newest_anomalous(fr[fr.index < day(13)], (day(13), fr[day(13)]), OnlineNormal())
    evaluation = result.evaluations[("OnlineNormal()", 1)]
    assert evaluation.upper[13] == verdict.upper


def test_exclusions_can_be_ignored_and_groups_chosen(repo_path: Path) -> None:
    with MetricsRepository(repo_path) as repo:
        honoured = backtest(repo, RobustMAD(), metrics="Size(*)", groups=[{"country": "FR"}])
        raw = backtest(
            repo, RobustMAD(), metrics="Size(*)", groups=[{"country": "FR"}],
            exclude_annotated=False,
        )  # fmt: skip
    assert len(honoured.series) == 1 and not raw.series[0].excluded.any()
    h, r = (x.evaluations[("RobustMAD()", 0)] for x in (honoured, raw))
    assert h.upper[12] == r.upper[12] and h.upper[13] != r.upper[13]


def test_csv_labels_replace_the_repository_labels(repo_path: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "kind,start,end,metric_id,group,note\n"
        "incident,2024-05-13,,Size(*),country=FR,doubled load\n"
        'excluded,2024-05-21T00:00Z,,,{"country": "DE"},\n'
    )
    with MetricsRepository(repo_path) as repo:
        result = backtest(repo, OnlineNormal(), metrics=["Size(*)"], labels=labels)
    de, fr = result.series
    assert not de.incident.any() and np.flatnonzero(fr.incident).tolist() == [12]
    # The CSV adds DE's day 20; the repository's exclusion of day 12 (every group) stays.
    assert np.flatnonzero(de.excluded).tolist() == [12, 20]
    assert np.flatnonzero(fr.excluded).tolist() == [12]
    assert read_labels(labels)[0].note == "doubled load"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kind,when\nincident,2024-05-01\n", r"missing \['start'\], unknown \['when'\]"),
        ("kind,start\nbroken,2024-05-01\n", "line 2: annotation kind must be one of"),
        ("kind,start\nincident,yesterday\n", "line 2: start 'yesterday' is not an ISO date"),
        ("kind,start,group\nincident,2024-05-01,country\n", "must be COLUMN=VALUE pairs"),
        ("kind,start,end\nincident,2024-05-02,2024-05-01\n", "line 2: annotation end"),
    ],
)
def test_bad_label_files_name_the_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(text)
    with pytest.raises(ConfigurationError, match=message):
        read_labels(path)


def run_cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="anomaly")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["backtest", *argv])
    return int(args.handler(args))


def test_cli_prints_a_table_and_writes_json_and_png(
    repo_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png, out = tmp_path / "backtest.png", tmp_path / "backtest.json"
    code = run_cli(
        "-r", str(repo_path), "Size(*)", "-d", "OnlineNormal",
        "-d", "AlertFatigue(RobustMAD(window=14), first_of_run=True)", "--tag", "env=prod",
        "--plot", str(png), "--json", str(out),
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0
    assert "AlertFatigue(RobustMAD(window=14), first_of_run=True)" in printed
    assert "country=FR" in printed
    assert png.read_bytes()[:4] == b"\x89PNG"
    payload = json.loads(out.read_text())
    assert [t["detector"] for t in payload["totals"]] == [
        "OnlineNormal", "AlertFatigue(RobustMAD(window=14), first_of_run=True)",
    ]  # fmt: skip
    code = run_cli("-r", str(repo_path), "Size(*)", "--group", "country=DE", "--format", "json")
    totals = json.loads(capsys.readouterr().out)["totals"]
    assert code == 0 and {t["series"] for t in totals} == {1}


def test_cli_refuses_what_it_cannot_run(repo_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no stored points of Nope"):
        run_cli("-r", str(repo_path), "Nope")
    with pytest.raises(ConfigurationError, match="detector 'RobustMAD\\(windo=3\\)'"):
        run_cli("-r", str(repo_path), "Size(*)", "-d", "RobustMAD(windo=3)")
    with pytest.raises(ConfigurationError, match="does not exist"):
        run_cli("-r", str(repo_path.with_name("missing.duckdb")), "Size(*)")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("OnlineNormal", OnlineNormal()),
        ("RobustMAD(4.0, None, window=28)", RobustMAD(4.0, None, window=28)),
        ("AlertFatigue(OnlineNormal(upper_deviation_factor=4), cooldown=3)",
         AlertFatigue(OnlineNormal(upper_deviation_factor=4), cooldown=3)),
        ("detectors.robust:RobustMAD(min_history=3)", RobustMAD(min_history=3)),
        ("Adaptive(holidays={'countries': ['US'], 'dates': ['12-24']})",
         Adaptive(holidays={"countries": ["US"], "dates": ["12-24"]})),
    ],
)  # fmt: skip
def test_detector_specs(spec: str, expected: object) -> None:
    assert parse_detector(spec) == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("os.system('x')", "expected a detector"),
        ("RobustMAD(window=len('x'))", "unknown detector 'len'"),
        ("RobustMAD(window=x.y)", "malformed node"),
        ("OnlineNormal(upper_deviation_factor=-1)", "upper_deviation_factor must be >= 0"),
        ("RobustMAD(", "never closed|unexpected EOF|invalid syntax"),
        ("nowhere.module:Thing", "cannot import module 'nowhere.module'"),
        ("Adaptive(holidays='XX')", "holidays countries must be ISO 3166 codes"),
    ],
)
def test_bad_detector_specs(spec: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        parse_detector(spec)
