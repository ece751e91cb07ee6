"""The query commands read only a config's ``repository`` key: the same path `load_config`
resolves, a mistake elsewhere in the file does not stop them, and a repository key that cannot
be read so is reported by `load_config`, with its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from anomaly.cli import main
from anomaly.config import ConfigFileError, load_config
from anomaly.config.repository_path import configured_repository
from repository import MetricRecord, MetricsRepository, ResultKey

VALID = """
repository: "{repository}"
sources:
  events: {{path: events.parquet}}
scans:
  daily: {{source: events, metrics: [Size]}}
"""


@pytest.mark.parametrize(
    "repository",
    ["metrics.duckdb", "data/../m.duckdb", "${REPO_DIR}/m.duckdb", "${UNSET:-fallback.duckdb}",
     ":memory:", "postgresql://quality@db:5432/metrics"],
)  # fmt: skip
def test_the_key_is_read_as_load_config_resolves_it(
    repository: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REPO_DIR", str(tmp_path / "store"))
    monkeypatch.delenv("UNSET", raising=False)
    config = tmp_path / "anomaly.yml"
    config.write_text(VALID.format(repository=repository), encoding="utf-8")
    assert configured_repository(config) == load_config(config).repository


def test_a_config_without_the_key_names_the_default(tmp_path: Path) -> None:
    config = tmp_path / "anomaly.yml"
    config.write_text("scans: {}\nsources: {}\n", encoding="utf-8")
    assert configured_repository(config) == str(tmp_path / "metrics.duckdb")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("repository: [a, b]\n", "repository"),
        ("repository: ${NOT_SET_ANYWHERE}\n", "NOT_SET_ANYWHERE"),
        ("- a list\n", "mapping"),
    ],
)
def test_a_key_that_cannot_be_read_is_reported_by_the_whole_validation(
    text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "anomaly.yml"
    config.write_text(text, encoding="utf-8")
    assert configured_repository(config, env={}) is None
    with pytest.raises(ConfigFileError, match=message):
        load_config(config, env={})
    assert main(["history", "-c", str(config), "Size(*)"]) == 3
    assert message in capsys.readouterr().err


def test_a_mistake_in_a_scan_does_not_stop_a_query(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = MetricsRepository(tmp_path / "metrics.duckdb")
    repo.save(
        ResultKey(0, {"scan": "daily"}), [MetricRecord("Dataset", "*", "Size", "Size(*)", 7.0)]
    )
    repo.close()
    config = tmp_path / "anomaly.yml"
    config.write_text(VALID.format(repository="metrics.duckdb").replace("Size", "Sise"))
    with pytest.raises(ConfigFileError, match="did you mean 'Size'"):
        load_config(config)
    assert main(["history", "-c", str(config), "Size(*)", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1970-01-01T00:00:00Z,Size(*),7.0"
