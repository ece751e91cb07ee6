"""A class-data-sharing archive of Spark's classes, so that each test JVM starts faster.

A local Spark spends most of its start loading and verifying some 10,000 classes from its jars.
JDK 17 can write the classes a JVM loaded into an archive when it exits
(``-XX:ArchiveClassesAtExit``) and map that archive into later JVMs with the same class path
(``-XX:SharedArchiveFile``). The suite starts Spark in every test process and again in dozens of
child processes (scans, ``anomaly serve``, demos); side by side on a quiet 2-core machine a
session's start and first query took 10.5-11.2 s without the archive and 6.2-6.3 s with it.

`archive_options` writes the archive once per machine (in the user's cache folder, outside the
checkout, named after everything that must match for the JVM to use it) by running a small
analysis in a child process, and returns the JVM options that use it. A JVM whose class path
differs (Spark Connect's server, a session with extra jars) ignores the archive;
``-Xlog:disable`` keeps the JVM's note about that out of the output tests read. Set
``ANOMALY_TEST_CLASS_ARCHIVE=0`` to turn it off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

SWITCH = "ANOMALY_TEST_CLASS_ARCHIVE"
QUIET = "-Xlog:disable -Xlog:all=error:stderr"
"""The JVM's unified log prints warnings on stdout; a test that parses a child's stdout must not
see "Unable to use shared archive" when a class path differs."""
WORKLOAD = """
import sys
from anomaly import (AnalysisRunner, ApproxCountDistinct, ApproxQuantile, Completeness, Mean,
                     Size, Uniqueness, build_session)
spark = build_session(master="local[2]", conf={
    "spark.sql.shuffle.partitions": "2", "spark.driver.extraJavaOptions": sys.argv[1]})
frame = spark.createDataFrame(
    [(i, f"title {i}", ("a", "b", "c")[i % 3], float(i % 7)) for i in range(200)],
    "id long, title string, kind string, price double")
frame.write.mode("overwrite").parquet(sys.argv[2])
data = spark.read.parquet(sys.argv[2])
analyzers = [Size(), Completeness("title"), Mean("price"), ApproxQuantile("price", 0.5),
             ApproxCountDistinct("kind"), Uniqueness(["id"])]
for group in ((), ("kind",)):
    runner = AnalysisRunner(spark).on_data(data).add_analyzers(analyzers)
    (runner.group_by(*group) if group else runner).run().to_pandas()
data.toPandas()
spark.stop()
"""
"""What the archive's JVM runs: a parquet round trip and the analyzers a scan runs, plain and
grouped, so that the classes of reading, aggregating, code generation and Arrow are archived."""


def archive_options(jvm_options: str) -> tuple[str, str]:
    """JVM options that use the archive, and a line for the test report's header saying whether
    it exists.

    A missing archive is written in the background: the run does not wait for it, and the JVMs
    it starts before the archive is complete start as they would without one (a JVM maps the
    archive whole or not at all). Returns no options when switched off or when writing it
    failed on this machine before.
    """
    if os.environ.get(SWITCH, "1") == "0":
        return "", f"spark class archive: off ({SWITCH}=0)"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "anomaly-tests")
    archive = cache / f"spark-{_fingerprint(jvm_options)}.jsa"
    failed = archive.with_suffix(".failed")
    if failed.exists():
        return "", f"spark class archive: off ({failed.read_text().strip()}; see {failed})"
    use = f"-XX:SharedArchiveFile={archive} {QUIET}"
    if archive.exists():
        return use, f"spark class archive: {archive}"
    writer = subprocess.Popen(
        [sys.executable, __file__, str(archive), jvm_options],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a run that ends first (or a Ctrl-C) does not cut it short
    )
    return use, f"spark class archive: {archive} (being written by process {writer.pid})"


def write(archive: Path, jvm_options: str) -> str | None:
    """Run the workload in a JVM that archives its classes at exit; the reason if it failed."""
    try:
        archive.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"cannot create {archive.parent}: {error.strerror}"
    partial = archive.with_name(f"{archive.name}.{os.getpid()}.partial")
    scratch = archive.with_name(f"workload-{os.getpid()}.parquet")
    options = f"{jvm_options} -XX:ArchiveClassesAtExit={partial} {QUIET}"
    environment = {k: v for k, v in os.environ.items() if k != "SPARK_SUBMIT_OPTS"}
    try:
        done = subprocess.run(
            [sys.executable, "-c", WORKLOAD, options, str(scratch)],
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
        )
    except subprocess.TimeoutExpired:
        return "the archive's workload ran over 300 s"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if done.returncode != 0 or not partial.exists():
        partial.unlink(missing_ok=True)
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"the archive's workload exited {done.returncode}: {last}"
    os.replace(partial, archive)  # whole or absent: a JVM never maps a half-written archive
    return None


def _fingerprint(jvm_options: str) -> str:
    """What the JVM checks before it maps an archive: its own build, the class path's jars, and
    the options the archive was written with."""
    import pyspark

    java_home = os.environ.get("JAVA_HOME")
    java = Path(java_home, "bin", "java") if java_home else Path(shutil.which("java") or "java")
    jars = Path(pyspark.__file__).parent / "jars"
    parts = [str(java.resolve()), str(_mtime(java.resolve())), pyspark.__version__, jvm_options]
    parts += sorted(f"{jar.name}:{jar.stat().st_size}" for jar in jars.glob("*.jar"))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _mtime(path: Path) -> int:
    return path.stat().st_mtime_ns if path.exists() else 0


if __name__ == "__main__":
    target = Path(sys.argv[1])
    reason = write(target, sys.argv[2])
    if reason is not None:  # said once, in the header of every later run, not retried each run
        with contextlib.suppress(OSError):
            target.with_suffix(".failed").write_text(reason + "\n")
