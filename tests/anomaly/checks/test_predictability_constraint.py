"""has_predictability: the seed's hasPredictability constraint, pass and fail in one run."""

from __future__ import annotations

from pyspark.sql import SparkSession

from anomaly.checks import Check, CheckLevel, CheckStatus, at_least, at_most
from anomaly.verification import VerificationSuite


def test_has_predictability_passes_and_fails(spark: SparkSession) -> None:
    cities = {"berlin": "DE", "munich": "DE", "paris": "FR", "lyon": "FR", "rome": "IT"}
    rows = [(city, f"z{i % 7}", country) for i in range(60) for city, country in cities.items()]
    data = spark.createDataFrame(rows, "city string, zip string, country string")
    good = Check(CheckLevel.ERROR, "good").has_predictability("country", ["city"], at_least(0.9))
    bad = Check(CheckLevel.ERROR, "bad").has_predictability("country", "city", at_most(0.5))
    result = VerificationSuite(spark).on_data(data).add_checks([good, bad]).run()
    statuses = {r.check.description: r.status for r in result.check_results}
    assert statuses == {"good": CheckStatus.SUCCESS, "bad": CheckStatus.ERROR}
    assert result.rows[0].predicate == "Predictability(country, [city]) >= 0.9"
