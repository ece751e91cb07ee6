from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from repository import Annotation, MetricsRepository
from repository.migrations import LATEST_VERSION, MIGRATIONS
from repository.schema import VIEWS
from tests.repository.conftest import UNDO_V6, day, key, mean, raw_sql, size, view_names


def _saved(repo: MetricsRepository, days: int = 5) -> None:
    for n in range(days):
        repo.save(
            key(n, dataset="orders", env="prod"),
            [
                size(100.0 + n),
                mean("price", 1.0 + n, country="DE"),
                mean("price", 9.0, country="FR"),
            ],
        )


def _bare(annotation: Annotation) -> Annotation:
    return dataclasses.replace(annotation, annotation_id=None, created_at=None)


def test_annotations_round_trip_with_every_scope(repo: MetricsRepository) -> None:
    wanted = [
        Annotation("incident", day(1), day(2), "Size(*)", {}, {"dataset": "orders"}, "lost load"),
        Annotation("expected", day(2), None, None, None, {}, None),
        Annotation("excluded", day(3), day(3), "Mean(price)", {"country": None}, {}, "o'k"),
    ]
    ids = [
        repo.annotate(
            a.kind, a.start, a.end, metric=a.metric_id, tags=a.tags, group=a.group, note=a.note
        )
        for a in wanted
    ]
    assert ids == sorted(ids) and len(set(ids)) == 3
    stored = repo.annotations()
    assert [_bare(a) for a in stored] == wanted
    assert [a.annotation_id for a in stored] == ids
    assert all(a.created_at is not None and a.created_at.tzinfo is not None for a in stored)
    assert stored[1].end == stored[1].start  # a point annotation


def test_listing_filters_by_kind_scope_and_overlap(repo: MetricsRepository) -> None:
    repo.annotate("incident", day(1), day(3), metric="Size(*)", tags={"env": "prod"})
    repo.annotate("excluded", day(5), metric="Mean(price)", group={"country": "DE"})
    repo.annotate("expected", day(7), tags={"env": "dev"})

    def kinds(**filters: object) -> list[str]:
        return [a.kind for a in repo.annotations(**filters)]  # type: ignore[arg-type]

    assert kinds(kinds=["excluded", "expected"]) == ["excluded", "expected"]
    assert kinds(metric="Size(*)") == ["incident", "expected"]  # metric-less ones apply too
    assert kinds(group={"country": "FR"}) == ["incident", "expected"]
    assert kinds(tags={"env": "prod", "dataset": "orders"}) == ["incident", "excluded"]
    assert kinds(after=day(3), before=day(5)) == ["incident", "excluded"]  # inclusive overlap
    assert kinds(after=day(4), before=day(4)) == []


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda r: r.annotate("bad", day(0)), "kind must be one of incident, expected, excluded"),
        (lambda r: r.annotate("incident", day(2), day(1)), "end .* is before its start"),
        (lambda r: r.annotate("incident", day(0), tags={"env": 1}), r"tags\['env'\] must be"),
        (lambda r: r.annotate("incident", day(0), group={"c": 2}), r"group\['c'\] must be"),
        (lambda r: r.annotate("incident", "2024-05-01"), "start must be a datetime"),
        (lambda r: r.annotations(kinds=["incidents"]), "got 'incidents'"),
        (lambda r: r.annotations(after=day(2), before=day(1)), "the range is empty"),
        (lambda r: r.delete_annotations(["1"]), "ids must be integers"),
    ],
)
def test_bad_annotations_are_refused_with_the_value(
    repo: MetricsRepository, call: object, message: str
) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        call(repo)  # type: ignore[operator]
    assert repo.annotations() == []


def test_exclusions_leave_history_by_metric_group_tags_and_time(repo: MetricsRepository) -> None:
    _saved(repo)
    tags = {"dataset": "orders"}
    repo.annotate("excluded", day(1), metric="Size(*)", tags={"env": "prod"})
    repo.annotate("excluded", day(2), day(3), metric="Mean(price)", group={"country": "DE"})
    repo.annotate("excluded", day(0), tags={"env": "dev"})  # no run has env=dev
    repo.annotate("incident", day(4))  # labels never change the history

    def values(metric: str, **kw: object) -> list[float]:
        series = repo.history(metric, tags=tags, exclude_annotated=True, **kw)  # type: ignore[arg-type]
        return series.tolist()

    assert values("Size(*)") == [100.0, 102.0, 103.0, 104.0]
    assert values("Mean(price)", group={"country": "DE"}) == [1.0, 2.0, 5.0]
    assert values("Mean(price)", group={"country": "FR"}) == [9.0] * 5
    assert repo.history("Size(*)", tags=tags).tolist() == [100.0 + n for n in range(5)]
    # An annotation of every metric and group covers them all; deleting it restores them.
    everything = repo.annotate("excluded", day(4))
    assert values("Size(*)") == [100.0, 102.0, 103.0]
    assert values("Mean(price)", group={"country": "FR"}) == [9.0] * 4
    assert repo.delete_annotations([everything, 12345]) == 1
    assert values("Size(*)") == [100.0, 102.0, 103.0, 104.0]


def test_annotated_history_and_the_sql_views_agree(repo: MetricsRepository) -> None:
    _saved(repo, days=3)
    repo.annotate("incident", day(1), day(2), metric="Size(*)", note="partial load")
    repo.annotate("expected", day(2), tags={"dataset": "orders", "env": "prod"})
    repo.annotate("excluded", day(0), group={})
    frame = repo.annotated_history("Size(*)")
    assert frame["value"].tolist() == [100.0, 101.0, 102.0]
    assert frame["incident"].tolist() == [False, True, True]
    assert frame["expected"].tolist() == [False, False, True]
    assert frame["excluded"].tolist() == [True, False, False]
    de = repo.annotated_history("Mean(price)", group={"country": "DE"})
    assert not de[["incident", "excluded"]].any().any() and de["expected"].tolist()[-1]
    with repo.sql() as cur:
        rows = cur.execute(
            "SELECT kind, metric_id, group_key, group_values, tags, note FROM metric_annotations "
            "ORDER BY annotation_id"
        ).fetchall()
        flags = cur.execute(
            "SELECT incident, expected, excluded FROM annotated_history "
            "WHERE metric_id = 'Size(*)' ORDER BY timestamp"
        ).fetchall()
    assert rows == [
        ("incident", "Size(*)", None, None, {}, "partial load"),
        ("expected", None, None, None, {"dataset": "orders", "env": "prod"}, None),
        ("excluded", None, "[]", {}, {}, None),
    ]
    assert flags == list(frame[["incident", "expected", "excluded"]].itertuples(index=False))


def test_coverage_of_read_annotations_is_the_sql_rule(repo: MetricsRepository) -> None:
    """The one coverage rule: what ``repo.coverage()`` says of each point (the app's readers)
    is what the ``annotated_history`` view says (``covered_by``), scope by scope."""
    _saved(repo, days=4)
    repo.save(key(1, dataset="orders", env="dev"), [size(7.0)])
    repo.annotate("incident", day(1), day(2), metric="Size(*)")
    repo.annotate("expected", day(2), tags={"dataset": "orders", "env": "prod"})
    repo.annotate("excluded", day(0), day(3), group={"country": "DE"})
    repo.annotate("excluded", day(1), tags={"env": "dev"})
    repo.annotate("incident", day(3), metric="Mean(price)", group={"country": "FR"})
    coverage = repo.coverage()
    with repo.sql() as cur:
        rows = cur.execute(
            "SELECT metric_id, group_values, tags, timestamp, incident, expected, excluded "
            "FROM annotated_history ORDER BY timestamp, metric_id"
        ).fetchall()
    assert len(rows) == 13
    kinds = ("incident", "expected", "excluded")
    for metric_id, group, tags, at, *flags in rows:
        expected = tuple(k for k, flag in zip(kinds, flags, strict=True) if flag)
        assert coverage.kinds(metric_id, group or {}, at, tags) == expected, (metric_id, at, tags)
    assert sum(any(row[4:]) for row in rows) >= 6  # most scopes cover something


def test_annotations_survive_run_deletion_and_reopening(repo_location: str | Path) -> None:
    with MetricsRepository(repo_location) as repo:
        _saved(repo, days=2)
        repo.annotate("excluded", day(0), metric="Size(*)")
        repo.delete_runs(before=day(0))
    with MetricsRepository(repo_location) as repo:
        assert [a.kind for a in repo.annotations()] == ["excluded"]
        assert repo.history("Size(*)", exclude_annotated=True).tolist() == [101.0]


def _downgrade_to_v2(location: str | Path) -> None:
    """Turn a current repository back into what version 2 wrote: no annotation tables or views,
    no verdict p-values, no schema snapshots, no scan processes."""
    v3 = [m for m in MIGRATIONS if m.version == 3]
    assert v3 and LATEST_VERSION == 7, "extend this test when a version 8 is added"
    views = ("metric_annotations", "annotated_history", "anomaly_results", "schema_history")
    tables = ("annotations", "annotation_tags", "annotation_groups", "schema_snapshots")
    raw_sql(
        location,
        *(f"DROP VIEW {v}" for v in views),
        "ALTER TABLE anomaly_verdicts DROP COLUMN p_value",
        *UNDO_V6,
        *(f"DROP TABLE {t}" for t in tables),
        "DROP SEQUENCE annotation_id_seq",
        "DELETE FROM schema_version WHERE version >= 3",
    )


def test_a_version_2_repository_migrates_to_annotations_keeping_its_data(
    repo_location: str | Path,
) -> None:
    with MetricsRepository(repo_location) as repo:
        _saved(repo, days=3)
    _downgrade_to_v2(repo_location)
    assert raw_sql(repo_location, "SELECT max(version) FROM schema_version") == [(2,)]
    with MetricsRepository(repo_location) as repo:
        assert repo.schema_version == LATEST_VERSION
        assert repo.history("Size(*)").tolist() == [100.0, 101.0, 102.0]
        assert repo.annotations() == []
        repo.annotate("excluded", day(1), metric="Size(*)")
        assert repo.history("Size(*)", exclude_annotated=True).tolist() == [100.0, 102.0]
        with repo.sql() as cur:
            versions = cur.execute("SELECT version FROM schema_version ORDER BY 1").fetchall()
    assert set(VIEWS) <= view_names(repo_location)
    assert versions == [(v,) for v in range(1, LATEST_VERSION + 1)]
