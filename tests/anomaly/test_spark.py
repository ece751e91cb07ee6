"""`anomaly.spark.build_session` with a session the process already has."""

from __future__ import annotations

import threading

from pyspark.sql import SparkSession

from anomaly.spark import build_session, runtime_conf


def test_building_from_another_thread_keeps_the_owners_settings(spark: SparkSession) -> None:
    # A scheduler thread does not see the caller's session as "active"; getOrCreate still returns
    # it, and used to write our defaults (8 partitions, UTC) over the owner's settings.
    built: list[SparkSession] = []
    owner = {"spark.sql.shuffle.partitions": "3", "spark.sql.session.timeZone": "Asia/Tokyo"}
    with runtime_conf(spark, owner):
        worker = threading.Thread(target=lambda: built.append(build_session()))
        worker.start()
        worker.join()
        assert built[0] is spark or built[0]._jsparkSession.equals(spark._jsparkSession)
        assert spark.conf.get("spark.sql.shuffle.partitions") == "3"
        assert spark.conf.get("spark.sql.session.timeZone") == "Asia/Tokyo"


def test_what_the_caller_asks_for_is_applied_to_the_existing_session(spark: SparkSession) -> None:
    with runtime_conf(spark, {"spark.sql.shuffle.partitions": "3"}):
        build_session(conf={"spark.sql.shuffle.partitions": "5"})
        assert spark.conf.get("spark.sql.shuffle.partitions") == "5"
