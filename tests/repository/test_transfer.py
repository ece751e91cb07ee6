from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from repository import MetricsRepository
from repository.transfer import PARQUET_SCHEMA
from tests.repository.conftest import BACKENDS, day, key, mean, postgres_location, size


def fill(repo: MetricsRepository) -> None:
    for n in range(4):
        repo.save(
            key(n, dataset="orders", env="o'prod"),
            [
                size(float(n)),
                mean("price", 2.0 * n, country="DE", segment=None),
                mean("qty", None, error=f"failed {n}"),
            ],
        )


@pytest.mark.parametrize("into", BACKENDS)
def test_export_then_import_reproduces_the_history(
    repo: MetricsRepository, tmp_path: Path, into: str, request: pytest.FixtureRequest
) -> None:
    fill(repo)
    target = tmp_path / "history.parquet"
    assert repo.export_parquet(target) == 12
    table = pq.read_table(target)
    assert table.schema == PARQUET_SCHEMA
    # Into the same kind of store, and into the other one.
    location = (
        tmp_path / "copy.duckdb"
        if into == "duckdb"
        else postgres_location(request.getfixturevalue("postgres"))
    )
    with MetricsRepository(location) as copy:
        assert copy.import_parquet(target) == 12
        original = repo.load().include_failures().to_pandas()
        pd.testing.assert_frame_equal(copy.load().include_failures().to_pandas(), original)
        copy.import_parquet(target)  # importing again replaces, never duplicates
        pd.testing.assert_frame_equal(copy.load().include_failures().to_pandas(), original)
        again = tmp_path / "again.parquet"
        copy.export_parquet(again)
        exported = pq.read_table(again)  # the same rows (within a run, in another order)
        assert exported.schema == table.schema
        assert sorted(exported.to_pylist(), key=repr) == sorted(table.to_pylist(), key=repr)


def test_filtered_export(repo: MetricsRepository, tmp_path: Path) -> None:
    fill(repo)
    repo.save(key(9, dataset="users"), [size(1.0)])
    target = tmp_path / "part.parquet"
    assert (
        repo.export_parquet(
            target, tags={"dataset": "orders"}, after=day(2), include_failures=False
        )
        == 4
    )
    frame = pd.read_parquet(target)
    assert sorted(frame.metric_id) == ["Mean(price)", "Mean(price)", "Size(*)", "Size(*)"]
    assert frame.error.isna().all()


def test_bad_imports_are_refused_whole(repo: MetricsRepository, tmp_path: Path) -> None:
    fill(repo)
    good = tmp_path / "good.parquet"
    repo.export_parquet(good)
    table = pq.read_table(good)
    # Every bad file also holds new runs: none of them may arrive.
    table = pa.concat_tables([table, table.set_column(1, "tags", _other_tags(table))])
    before = repo.load().include_failures().to_pandas()
    pq.write_table(table.drop_columns(["group"]), tmp_path / "no_group.parquet")
    with pytest.raises(ValueError, match=r"lacks the columns \['group'\]"):
        repo.import_parquet(tmp_path / "no_group.parquet")
    entity = table.column("entity").to_pylist()
    entity[-1] = "Table"
    bad = table.set_column(3, "entity", pa.array(entity))
    pq.write_table(bad, tmp_path / "bad_entity.parquet")
    with pytest.raises(ValueError, match=r"entity must be one of .* got Table"):
        repo.import_parquet(tmp_path / "bad_entity.parquet")
    pq.write_table(pa.concat_tables([table, table.slice(0, 1)]), tmp_path / "dup.parquet")
    with pytest.raises(ValueError, match="appears 2 times in one run"):
        repo.import_parquet(tmp_path / "dup.parquet")
    pd.testing.assert_frame_equal(repo.load().include_failures().to_pandas(), before)


def _other_tags(table: pa.Table) -> pa.Array:
    return pa.array([{"dataset": "imported"}] * table.num_rows, table.schema.field("tags").type)
