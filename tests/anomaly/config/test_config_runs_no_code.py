"""Validating a config never runs code named in it (issue 31, finding 5): ``os:system`` or
``subprocess:run`` given as a detector, an analyzer or an alert sink ran and left marker files;
now only classes of the right protocol are resolved, and none is called while validating."""

from __future__ import annotations

import copy
import pickle
import shlex
from pathlib import Path

import pytest

from anomaly.cli import main
from anomaly.errors import ConfigurationError
from anomaly.service import ConfigFileError, load_config
from tests.anomaly.service.conftest import write_config

pytestmark = pytest.mark.faults

BASE = """
sources:
  events: {{path: e.parquet, time_column: day}}
scans:
  daily:
    source: events
    metrics:
      - {metric}
{alerts}"""
PLUGIN = "tests.anomaly.config.plugin_detectors"


def config(tmp_path: Path, metric: str, alerts: str = "") -> Path:
    return write_config(tmp_path, BASE.format(metric=metric, alerts=alerts))


def touch(marker: Path) -> str:
    return shlex.join(["touch", str(marker)])


@pytest.mark.parametrize(
    ("metric", "alerts", "expected"),
    [
        ('{{analyzer: Size, detector: {{type: "os:system", command: "{touch}"}}}}', "",
         "line 8, scans.daily.metrics[0].detector: 'os:system' is a builtin_function_or_method,"
         " not a detector class: name a class with a detect method (the Detector protocol); it "
         "was not called"),
        ('{{analyzer: Size, detector: {{type: "subprocess:run", args: "{touch}", shell: true}}}}',
         "", "'subprocess:run' is a function, not a detector class"),
        ('{{analyzer: Size, detector: {{type: "subprocess:Popen", args: "{touch}", shell: true}}}}',
         "", "'subprocess:Popen' is a type, not a detector class"),
        ("{{analyzer: Size, detector: {{type: '" + PLUGIN + ":NotADetector', "
         'marker: "{marker}"}}}}', "", f"'{PLUGIN}:NotADetector' is a type, not a detector class"),
        ('{{analyzer: "os:system", command: "{touch}"}}', "",
         "line 8, scans.daily.metrics[0]: 'os:system' is a builtin_function_or_method, not an "
         "analyzer class: name a subclass of anomaly.analyzers.Analyzer; it was not called"),
        ('{{analyzer: "subprocess:run", args: "{touch}", shell: true}}', "",
         "'subprocess:run' is a function, not an analyzer class"),
        ("Size", 'alerts:\n  x: {{type: "os:system", command: "{touch}"}}\n',
         "alerts.x.type: must be one of 'log', 'webhook' or 'command'"),
    ],
)  # fmt: skip
def test_callables_named_in_a_config_are_refused_and_never_called(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], metric: str, alerts: str, expected: str
) -> None:
    marker = tmp_path / "marker"
    values = {"touch": touch(marker), "marker": marker}
    path = config(tmp_path, metric.format(**values), alerts.format(**values))
    with pytest.raises(ConfigFileError) as raised:
        load_config(path, env={})
    assert expected in str(raised.value)
    assert main(["validate-config", str(path)]) == 3
    assert expected in capsys.readouterr().err
    assert not marker.exists()


def test_a_user_detector_class_is_checked_at_validation_and_built_only_when_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "marker"
    detector = f'{{type: "{PLUGIN}:Marking", marker: "{marker}"'
    wrapped = f"{{type: KOfLastN, k: 2, n: 3, detector: {detector}, window: 3}}}}"
    path = config(tmp_path, f"{{analyzer: Size, detector: {wrapped}}}")
    assert main(["validate-config", str(path)]) == 0
    assert not marker.exists()  # validated, not called
    plan = load_config(path, env={}).plans("daily")[0]  # a scan resolves its plans
    assert plan.detector.detector.window == 3
    assert marker.exists()

    copied = pickle.loads(pickle.dumps(copy.deepcopy(load_config(path, env={}))))
    assert copied.plans("daily")[0].detector.detector.window == 3  # built, once copied

    misspelt = config(tmp_path, f"{{analyzer: Size, detector: {detector}, windw: 3}}}}")
    with pytest.raises(
        ConfigFileError,
        match=r"line 8, scans\.daily\.metrics\[0\]\.detector"
        r"\.windw: .*Marking has no parameter 'windw' \(did you mean 'window'\?\)",
    ):
        load_config(misspelt, env={})  # fmt: skip
    marker.unlink()
    missing = config(tmp_path, f'{{analyzer: Size, detector: "{PLUGIN}:Marking"}}')
    with pytest.raises(ConfigFileError, match=r"Marking needs 'marker'"):
        load_config(missing, env={})
    assert not marker.exists()


def test_a_user_detector_that_fails_when_built_names_itself_and_the_parameter(
    tmp_path: Path,
) -> None:
    bad = f'{{type: "{PLUGIN}:Marking", marker: "{tmp_path / "marker"}", window: 0}}'
    loaded = load_config(config(tmp_path, f"{{analyzer: Size, detector: {bad}}}"), env={})
    with pytest.raises(ConfigurationError) as raised:
        loaded.plans("daily")
    assert str(raised.value) == (
        f"detector Marking: {PLUGIN}:Marking: window must be at least 1, got 0"
    )
