"""``anomaly report`` and the ``--ui`` options of ``anomaly serve`` (no Spark needed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from anomaly.cli import build_parser, main
from anomaly.report.page import render_page
from anomaly.report.serving import DEFAULT_ADDRESS, TOKEN_VARIABLE
from tests.anomaly.report.conftest import XSS_DATASET, XSS_GROUP


def embedded(page: str) -> dict:
    found = re.search(
        r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S
    )
    assert found is not None
    return json.loads(found.group(1))


def test_report_writes_one_self_contained_file(
    report_repository: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "out" / "report.html"
    assert main(["report", "-r", str(report_repository), "-o", str(output)]) == 0
    assert capsys.readouterr().out == f"wrote {output} ({output.stat().st_size / 1e6:.1f} MB)\n"
    page = output.read_text(encoding="utf-8")
    # Everything inline: no script, style or image is loaded from anywhere.
    assert not re.search(r"<script[^>]+src=|<link[^>]+stylesheet|<img", page)
    assert "default-src 'none'" in page and "connect-src 'none'" in page
    # User strings only in the escaped JSON, never as markup.
    assert XSS_GROUP not in page and XSS_DATASET not in page
    data = embedded(page)
    assert {s["dataset"] for s in data["series"]} == {"orders", XSS_DATASET}
    assert not list(tmp_path.glob("out/.*partial"))


def test_report_filters_runs_and_titles(
    report_repository: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "report.html"
    args = ["report", "-r", str(report_repository), "-o", str(output), "--scan", "odd_daily",
            "--title", "Odd <one>", "-q"]  # fmt: skip
    assert main(args) == 0 and capsys.readouterr().out == ""
    page = output.read_text(encoding="utf-8")
    assert "<title>Odd &lt;one&gt;</title>" in page
    assert {s["dataset"] for s in embedded(page)["series"]} == {XSS_DATASET}


def test_report_reads_the_repository_of_a_config(
    report_repository: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "anomaly.yml"
    config.write_text(
        f"repository: {report_repository}\nsources: {{e: {{path: x.parquet}}}}\n"
        "scans: {s: {source: e, metrics: [Size]}}\n",
        encoding="utf-8",
    )
    assert (
        main(["report", str(config), "-o", str(tmp_path / "r.html"), "--tag", "scan=orders_daily"])
        == 0
    )
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report"], "give either CONFIG or --repository FILE|URL (exactly one)"),
        (["report", "a.yml", "-r", "m.duckdb"], "give either CONFIG or --repository FILE"),
        (["report", "-r", "missing.duckdb"], "repository 'missing.duckdb' does not exist"),
        (["report", "-r", ":memory:"], "an in-memory repository belongs to the process"),
        (["report", "-r", "REPO", "--tag", "scan"], "--tag takes NAME=VALUE, got 'scan'"),
    ],
)
def test_report_errors_are_one_line_and_exit_3(
    args: list[str], message: str, report_repository: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    args = [str(report_repository) if a == "REPO" else a for a in args]
    assert main(args) == 3
    err = capsys.readouterr().err
    assert err.startswith("anomaly report: error: ") and message in err
    assert not (tmp_path / "missing.duckdb").exists()  # never created


def test_serve_takes_the_ui_options() -> None:
    parser = build_parser()
    plain = parser.parse_args(["serve", "a.yml"])
    assert plain.ui is None and plain.ui_token_env == TOKEN_VARIABLE
    assert parser.parse_args(["serve", "a.yml", "--ui"]).ui == DEFAULT_ADDRESS == "127.0.0.1:8080"
    assert parser.parse_args(["serve", "a.yml", "--ui", "0.0.0.0:9000"]).ui == "0.0.0.0:9000"


def test_a_page_for_the_live_ui_loads_its_scripts() -> None:
    page = render_page({"title": "t", "series": []}, asset_base="assets/")
    assert '<script src="assets/bokeh.min.js"></script>' in page
    assert "'self'" in page  # the page may load its own assets, nothing else
