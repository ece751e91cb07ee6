"""The class archive the suite's JVMs map (tests/class_archive.py) is one a Spark JVM can use.

With ``-Xshare:on`` a JVM that cannot map its archive stops instead of falling back: the archive
written for this machine must load into a Spark started as the tests start one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

START = (
    "from pyspark.sql import SparkSession\n"
    "spark = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')"
    ".getOrCreate()\n"
    "print(spark.range(3).count())\n"
)


@pytest.mark.slow  # a JVM of its own
def test_a_spark_jvm_maps_the_class_archive() -> None:
    options = os.environ.get("SPARK_SUBMIT_OPTS", "")
    if "-XX:SharedArchiveFile=" not in options:
        pytest.skip(f"this run's JVMs share no class archive (SPARK_SUBMIT_OPTS={options!r})")
    archive = Path(options.split("-XX:SharedArchiveFile=")[1].split()[0])
    waited = 0.0
    while not archive.exists() and waited < 300:  # a fresh machine's archive is being written
        assert not archive.with_suffix(".failed").exists(), archive.with_suffix(".failed")
        time.sleep(1)
        waited += 1
    env = {**os.environ, "SPARK_SUBMIT_OPTS": f"{options} -Xshare:on"}
    done = subprocess.run(
        [sys.executable, "-c", START], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "3"


def test_the_archive_is_off_when_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.class_archive import SWITCH, archive_options

    monkeypatch.setenv(SWITCH, "0")
    assert archive_options("-XX:+UseSerialGC") == ("", f"spark class archive: off ({SWITCH}=0)")
