"""``/api/series`` answers at most ``limit`` points: downsampled in SQL, keeping every alert and
each bucket's extremes (issue 31, finding 9: 730k points made a 132 MB answer)."""

from __future__ import annotations

import math
from collections import defaultdict

import pytest

from anomaly.report import api
from repository import AnomalyVerdict, MetricRecord, MetricsRepository, ResultKey

GROUPS, RUNS = 40, 50
DAY_MS = 86_400_000


@pytest.fixture(scope="module")
def long_series(tmp_path_factory: pytest.TempPathFactory) -> MetricsRepository:
    """40 groups x 50 runs of Size(*): group g's run n is an anomaly when n % 17 == g % 17, and
    group 7 has a spike (10,000) on run 31 and a dip (-10,000) on run 12."""
    repo = MetricsRepository(tmp_path_factory.mktemp("series") / "metrics.duckdb")
    for n in range(RUNS):
        records, verdicts = [], []
        for g in range(GROUPS):
            group = {"g": f"{g:02d}"}
            value = 100 + 10 * math.sin(n + g)
            value = {(7, 31): 10_000.0, (7, 12): -10_000.0}.get((g, n), value)
            records.append(MetricRecord("Dataset", "*", "Size", "Size(*)", value, group))
            status = "anomaly" if n % 17 == g % 17 else "normal"
            verdicts.append(AnomalyVerdict("Size(*)", status, "D", value, 90, 110, group=group))
        repo.save(ResultKey(n * DAY_MS, {"dataset": "orders"}), records, verdicts=verdicts)
    return repo


def series(repo: MetricsRepository, **values: str) -> api.Rows:
    return api.series_rows(repo, api.Params({k: [v] for k, v in values.items()}, set(values)))


@pytest.mark.parametrize("limit", [400, 1000, 1999])
def test_a_long_series_is_cut_to_the_limit_keeping_alerts_and_extremes(
    long_series: MetricsRepository, limit: int
) -> None:
    everything = series(long_series, metric="Size(*)", limit="10000")
    assert len(everything) == GROUPS * RUNS == int(everything.headers["X-Total-Points"])
    rows = series(long_series, metric="Size(*)", limit=str(limit))
    assert len(rows) <= limit and rows.headers["X-Returned-Points"] == str(len(rows))
    assert rows.headers["X-Total-Points"] == str(GROUPS * RUNS)
    kept = {(r["group"]["g"], r["time"]) for r in rows}
    alerts = {(r["group"]["g"], r["time"]) for r in everything if r["status"] == "anomaly"}
    assert alerts <= kept  # 118 alerts: fewer than every limit here
    by_group = defaultdict(list)
    for row in everything:
        by_group[row["group"]["g"]].append(row)
    for group, points in by_group.items():  # each series' own extremes stay (ends, if room)
        for chosen in (min, max):
            extreme = chosen(points, key=lambda r: r["value"])
            assert (group, extreme["time"]) in kept, (group, chosen.__name__)
        if len(rows) < limit:
            assert {(group, points[0]["time"]), (group, points[-1]["time"])} <= kept
    order = [(r["group"]["g"], r["time"]) for r in rows]
    assert order == sorted(order)  # oldest first within each series, as undownsampled


@pytest.mark.parametrize(("limit", "alerts"), [(50, 50), (160, 118)])
def test_alerts_come_first_when_the_limit_is_tight(
    long_series: MetricsRepository, limit: int, alerts: int
) -> None:
    rows = series(long_series, metric="Size(*)", limit=str(limit))
    assert len(rows) == limit and [r["status"] for r in rows].count("anomaly") == alerts


def test_a_series_within_the_limit_is_answered_whole(long_series: MetricsRepository) -> None:
    rows = series(long_series, metric="Size(*)", group="g=07")
    assert len(rows) == RUNS and [r["value"] for r in rows][31] == 10_000.0
    assert rows.headers == {"X-Total-Points": str(RUNS), "X-Returned-Points": str(RUNS)}
