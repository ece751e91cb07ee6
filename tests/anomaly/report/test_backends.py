"""The report on a PostgreSQL repository: ``read_contents``, the JSON API (over real HTTP), the
snapshot and ``anomaly report --repository postgresql://...`` give what they give on a DuckDB
file with the same contents (both filled by `fill_repository`); opening a URL never creates a
repository nor shows a password."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pandas as pd
import psycopg
import pytest

from anomaly.cli import main
from anomaly.errors import ConfigurationError
from anomaly.report.opening import open_for_reading
from anomaly.report.reading import RepositoryContents, read_contents
from anomaly.report.serving import UIServer
from repository import MetricsRepository
from repository.backends.postgres.cluster import TemporaryCluster
from tests.anomaly.report.conftest import XSS_DATASET, fill_repository
from tests.anomaly.report.test_api import get_json, request
from tests.anomaly.report.test_cli import embedded
from tests.conftest import postgres_location


@pytest.fixture(scope="module")
def postgres_repository(postgres: TemporaryCluster) -> str:
    """The URL of a PostgreSQL repository holding what `report_repository` holds."""
    url = postgres_location(postgres)
    with MetricsRepository(url) as repo:
        fill_repository(repo)
    return url


@pytest.fixture(scope="module")
def repos(
    report_repository: Path, postgres_repository: str
) -> Iterator[tuple[MetricsRepository, MetricsRepository]]:
    """The DuckDB and the PostgreSQL repository, opened as the report opens them."""
    duck, pg = open_for_reading(str(report_repository)), open_for_reading(postgres_repository)
    yield duck, pg
    duck.close()
    pg.close()


@pytest.fixture(scope="module")
def servers(
    repos: tuple[MetricsRepository, MetricsRepository],
) -> Iterator[tuple[UIServer, UIServer]]:
    duck = UIServer(repos[0], "127.0.0.1", 0).start()
    pg = UIServer(repos[1], "127.0.0.1", 0).start()
    yield duck, pg
    duck.stop()
    pg.stop()


def comparable(contents: RepositoryContents) -> dict[str, Any]:
    """Everything read, but when the runs and annotations were saved (the fill's own clock);
    frames without an order of their own (points, runs) sorted."""
    runs = contents.runs.to_pandas()
    assert runs["saved_at"].notna().all()
    unordered = {"points": contents.points.to_pandas(), "runs": runs.drop(columns="saved_at")}
    return {
        **{
            name: frame.sort_values(list(frame.columns), ignore_index=True)
            for name, frame in unordered.items()
        },
        "verdicts": contents.verdicts.to_pandas(),
        "outcomes": contents.outcomes.to_pandas(),
        "outcome_total": contents.outcome_total,
        "scan_log": contents.scan_log.to_pandas(),
        "annotations": [dataclasses.replace(a, created_at=None) for a in contents.annotations],
    }


@pytest.mark.parametrize(
    ("tags", "limit"),
    [
        (None, 5000),
        ({"scan": "orders_daily"}, 7),  # only the newest outcomes
        ({"dataset": XSS_DATASET, "scan": "odd_daily"}, 5000),
        ({"scan": "none"}, 5000),
    ],
)
def test_read_contents_is_the_same_on_both_backends(
    repos: tuple[MetricsRepository, MetricsRepository], tags: dict[str, str] | None, limit: int
) -> None:
    duck, pg = (comparable(read_contents(r, tags, outcome_limit=limit)) for r in repos)
    for name, expected in duck.items():
        if isinstance(expected, pd.DataFrame):
            pd.testing.assert_frame_equal(pg[name], expected, obj=name)
        else:
            assert pg[name] == expected, name
    if tags != {"scan": "none"}:
        assert min(len(duck["points"]), len(duck["verdicts"]), len(duck["runs"])) > 0


@pytest.mark.parametrize(
    "path",
    [
        "/api/series?metric=Size(*)",
        "/api/series?metric=Size(*)&group=country=DE&dataset=orders&since=2026-01-15"
        "&until=2026-02-01",
        "/api/series?metric=Mean(price)&scan=orders_daily",
        "/api/series?metric=Size(*)&limit=20",  # downsampled: the same points on both
        "/api/series?metric=Size(*)&limit=70",
        "/api/anomalies",
        "/api/anomalies?status=all&limit=50",
        "/api/anomalies?status=anomaly,normal&metric=Size(*)&dataset=orders&until=2026-02-05",
        "/api/outcomes",
        "/api/outcomes?status=Failure&check=orders%20checks&scan=orders_daily&limit=3",
        "/api/annotations?kind=incident&metric=Size(*)",
        "/api/annotations",
    ],
)
def test_the_api_answers_the_same_on_both_backends(
    servers: tuple[UIServer, UIServer], path: str
) -> None:
    duck, pg = (get_json(server, path) for server in servers)
    assert pg == duck and duck


@pytest.mark.parametrize(
    "path",
    ["/api/series?metric=Size%00(*)", "/api/anomalies?dataset=a%00", "/api/outcomes?check=%00"],
)
def test_a_nul_character_is_a_400_on_both_backends(
    servers: tuple[UIServer, UIServer], path: str
) -> None:
    for server in servers:  # PostgreSQL cannot store NUL: it was a misleading 503 there
        status, _, body = request(server, path)
        assert status == 400 and "holds a NUL character" in json.loads(body)["error"]


@pytest.mark.faults
def test_concurrent_page_loads_share_one_snapshot_on_postgresql(
    repos: tuple[MetricsRepository, MetricsRepository],
) -> None:
    ui = UIServer(repos[1], "127.0.0.1", 0).start()
    try:
        with ThreadPoolExecutor(24) as pool:  # within MAX_IN_FLIGHT
            statuses = list(pool.map(lambda _: request(ui, "/api/snapshot")[0], range(24)))
        assert statuses == [200] * 24
        assert ui.app.state.snapshots.builds <= 2  # was one build per request, in turn
    finally:
        ui.stop()


def without_clocks(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A snapshot but when it was made and where from, and when runs were saved."""
    found = {k: v for k, v in snapshot.items() if k not in ("generated", "repository")}
    found["datasets"] = [{k: v for k, v in d.items() if k != "saved"} for d in found["datasets"]]
    return found


def test_the_snapshot_and_datasets_are_the_same_on_both_backends(
    servers: tuple[UIServer, UIServer],
) -> None:
    duck, pg = (without_clocks(get_json(server, "/api/snapshot")) for server in servers)
    assert pg == duck and duck["series"] and duck["anomalies"] and not duck["problems"]
    datasets = [get_json(server, "/api/datasets") for server in servers]
    assert without_clocks({"datasets": datasets[1]}) == without_clocks({"datasets": datasets[0]})


def test_report_of_a_postgresql_url(
    report_repository: Path, postgres_repository: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    pages = []
    for location, name in ((report_repository, "duck.html"), (postgres_repository, "pg.html")):
        output = tmp_path / name
        assert main(["report", "-r", str(location), "-o", str(output), "--scan", "odd_daily"]) == 0
        pages.append(embedded(output.read_text(encoding="utf-8")))
    assert capsys.readouterr().out.count("wrote") == 2
    assert pages[1]["repository"] == postgres_repository  # the URL, which has no password
    assert without_clocks(pages[1]) == without_clocks(pages[0])


def table_count(url: str) -> int:
    with psycopg.connect(url) as connection:
        row = connection.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_a_url_without_a_repository_is_refused_and_left_empty(
    postgres: TemporaryCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    url = postgres_location(postgres)
    with pytest.raises(ConfigurationError, match="holds no metrics repository") as refused:
        open_for_reading(url)
    assert "does not exist" not in str(refused.value)
    # The password in the URL, as some users write it: never shown.
    with_password = url.replace("@", f":{postgres.password}@", 1)
    assert main(["report", "-r", with_password]) == 3
    err = capsys.readouterr().err
    assert "holds no metrics repository" in err and ":***@" in err
    assert postgres.password not in err
    assert table_count(url) == 0  # reading created nothing


def test_a_refused_password_is_not_shown(
    postgres: TemporaryCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = "not-the-password-9f3a"
    url = postgres_location(postgres).replace("@", f":{wrong}@", 1)
    assert main(["report", "-r", url]) == 3
    err = capsys.readouterr().err
    assert err.startswith("anomaly report: error: ") and ":***@" in err
    assert wrong not in err and postgres.password not in err
