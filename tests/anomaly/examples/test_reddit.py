"""The paper's reddit case: the injected trolling spikes, and only they, are flagged."""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession

from anomaly.examples.reddit import SPIKES, run
from repository import MetricsRepository

DAYS = 52  # the example's 60 less 8 quiet days after the last spike (day 51): a job a day


def test_spikes_and_only_spikes_are_flagged(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "reddit.duckdb")
    flagged = run(path, days=DAYS, spark=spark)
    assert max(s.day for s in SPIKES) < DAYS
    assert sorted(flagged) == sorted((s.day, s.subreddit) for s in SPIKES)
    repo = MetricsRepository(path)
    verdicts = repo.load_verdicts(tags={"dataset": "reddit"})
    assert len(verdicts) == DAYS * 6
    assert sorted(verdicts["status"].unique()) == ["anomaly", "insufficient_history", "normal"]
