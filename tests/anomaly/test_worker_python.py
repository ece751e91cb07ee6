"""Python workers of local sessions run on the driver's interpreter (a non-activated venv).

cron and systemd run ``/opt/venv/bin/<script>`` with a bare PATH: Spark's default worker Python
(``python3`` from the PATH) is then another interpreter without the environment's packages, and
the per-group fan-out (``applyInPandas``) fails with ``ModuleNotFoundError``.
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
import sysconfig
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from detectors import SimpleThreshold, detect_frame
from detectors.worker_python import use_driver_python
from tests.conftest import child_jvm_env

ROOT = Path(__file__).resolve().parents[2]

# A user's nightly job, installed only in the application's venv: its detector class lives in
# this package, so a worker must run on the venv's Python to unpickle it.
JOB = '''
"""Nightly job: per-group detection fanned out over Spark."""
import sys
from dataclasses import dataclass

from anomaly import build_session
from detectors import SimpleThreshold, detect_frame
from pyspark.sql import SparkSession


@dataclass(frozen=True)
class Ceiling(SimpleThreshold):
    """A team's own detector (importable only where this package is installed)."""


SESSIONS = {
    # What the README says works too: a plain session, built without this package's help.
    "plain": lambda: SparkSession.builder.master("local[1]")
    .config("spark.sql.shuffle.partitions", "1").getOrCreate(),
    "ours": lambda: build_session(master="local[1]", conf={"spark.sql.shuffle.partitions": "1"}),
}


def main() -> int:
    for name in sys.argv[1:]:
        spark = SESSIONS[name]()
        # plain: PySpark's default, PATH's python3 (detect_frame must change it); ours: this
        # venv's python, set by build_session. Each session is a new SparkContext.
        print(name, "starts with workers on", spark.sparkContext.pythonExec)
        rows = [(g, f"2024-01-0{d}", float(v)) for g, v0 in (("a", 1), ("b", 20))
                for d, v in enumerate([v0, v0, v0 * 3], start=1)]
        frame = spark.createDataFrame(rows, "board string, day string, value double")
        frame = frame.selectExpr("board", "to_timestamp(day) AS timestamp", "value")
        found = detect_frame(frame, Ceiling(upper_bound=10.0), by="board").collect()
        print(name, "anomalies:", sorted((r.board, r.value) for r in found))
        spark.stop()
    return 0
'''


def make_venv(path: Path, *options: str) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", *options, str(path)], check=True)
    return path / "bin"


def see_these_packages(venv: Path) -> None:
    """Let `venv` import what this interpreter imports (pandas, pyarrow, pyspark), wherever
    that is: the base interpreter (CI) or a venv of its own (the README's, not activated).
    ``--system-site-packages`` would only reach the base interpreter's packages."""
    paths = dict.fromkeys([*site.getsitepackages(), sysconfig.get_paths()["purelib"]])
    (site_packages(venv) / "these-packages.pth").write_text("\n".join(paths) + "\n")


def site_packages(venv: Path) -> Path:
    return (
        venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    )


def install(venv: Path, package: str, source: str, script: str) -> Path:
    """The package into the venv's site-packages and its console script into its bin, as an
    installer lays them out (no build tools needed)."""
    (site_packages(venv) / f"{package}.py").write_text(source)
    entry = venv / "bin" / script
    entry.write_text(
        f"#!{venv / 'bin' / 'python'}\nimport sys\nfrom {package} import main\nsys.exit(main())\n"
    )
    entry.chmod(0o755)
    return entry


@pytest.mark.slow
def test_console_script_of_a_non_activated_venv(tmp_path: Path) -> None:
    """A plain ``SparkSession`` (as a user builds it), stopped, then ours (`build_session`): one
    process and one JVM for both."""
    app = tmp_path / "app"
    make_venv(app)
    see_these_packages(app)
    # What PATH's python3 is under cron on many hosts: an interpreter without pandas/pyspark.
    bare = make_venv(tmp_path / "bare")
    script = install(app, "nightly_checks", JOB, "nightly-checks")
    java = Path(os.environ.get("JAVA_HOME", "")) / "bin"
    env = {
        "PATH": os.pathsep.join([str(bare), str(java), "/usr/bin", "/bin"]),
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),  # this worktree's code, not the installed copy
        "LANG": "C.UTF-8",
        **child_jvm_env(),
    }
    done = subprocess.run(
        [str(script), "plain", "ours"], env=env, capture_output=True, text=True, timeout=600,
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    # The premise: left to PySpark, the plain session's workers could not import the job.
    assert "plain starts with workers on python3\n" in done.stdout, done.stdout
    for session in ("plain", "ours"):
        found = f"{session} anomalies: [('b', 20.0), ('b', 20.0), ('b', 60.0)]"
        assert found in done.stdout, done.stdout


def test_the_bare_interpreter_really_lacks_the_packages(tmp_path: Path) -> None:
    """The premise of the test above: PATH's python3 there cannot run a pandas worker."""
    bare = make_venv(tmp_path / "bare")
    probe = subprocess.run(
        [str(bare / "python3"), "-c", "import pandas"], capture_output=True, text=True
    )
    assert probe.returncode != 0 and "No module named 'pandas'" in probe.stderr


def test_detect_frame_runs_workers_of_a_plain_session_on_this_interpreter(
    spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    context = spark.sparkContext
    ours = context.pythonExec
    context.pythonExec = "python3"  # what SparkSession.builder.getOrCreate() leaves
    try:
        rows = [("a", datetime(2024, 1, d, tzinfo=UTC), float(v)) for d, v in ((1, 1), (2, 30))]
        frame = spark.createDataFrame(rows, "board string, timestamp timestamp, value double")
        found = detect_frame(frame, SimpleThreshold(upper_bound=10.0), by="board").collect()
        assert context.pythonExec == sys.executable
        assert [r.value for r in found] == [30.0]
    finally:
        context.pythonExec = ours


def test_an_interpreter_the_user_chose_is_kept(
    spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    context = spark.sparkContext
    ours = context.pythonExec
    context.pythonExec = "/opt/team/python"  # PYSPARK_PYTHON, read when the context started
    try:
        use_driver_python(spark)
        assert context.pythonExec == "/opt/team/python"
    finally:
        context.pythonExec = ours
