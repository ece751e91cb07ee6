"""``monitors:`` in the config: its forms, defaults, and errors that name the key path."""

from __future__ import annotations

from pathlib import Path

import pytest

from anomaly.config.monitor_config import KINDS, MonitorsConfig
from anomaly.service import ConfigFileError, load_config
from tests.anomaly.service.conftest import write_config

BASE = """
sources:
  orders: {path: orders.parquet, time_column: day}
scans:
  orders:
    source: orders
"""


@pytest.mark.parametrize(
    ("monitors", "enabled"),
    [
        ("auto", KINDS),
        (["volume", "schema"], ("volume", "schema")),
        (["auto", {"columns": {"exclude": "*_id"}}], KINDS),
        ({"auto": True, "schema": {"added": "ignore"}}, KINDS),
        ({"freshness": None, "columns": {"include": ["a*"]}}, ("freshness", "columns")),
    ],
)
def test_forms(monitors: object, enabled: tuple[str, ...]) -> None:
    assert MonitorsConfig.model_validate(monitors).enabled == enabled


def test_options_reach_their_monitor() -> None:
    config = MonitorsConfig.model_validate(
        ["volume", {"columns": {"exclude": "*_id"}}, {"schema": {"added": "error"}},
         {"timeliness": {"arrival_column": "loaded_at", "threshold": "2h"}}]
    )  # fmt: skip
    assert config.columns is not None and config.columns.exclude == ["*_id"]
    assert config.schema_changes is not None and config.schema_changes.severity("added") == "error"
    assert config.timeliness is not None and config.timeliness.threshold is not None
    assert config.timeliness.threshold.total_seconds() == 7200


def test_a_scan_with_only_monitors_is_valid(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path, BASE + "    monitors: auto\n"))
    scan = config.scan("orders")
    assert scan.metrics == [] and scan.monitors is not None
    assert config.plans("orders") == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "line 5, scans.orders.metrics: a scan needs at least one metric, or monitors "
             "(e.g. monitors: auto)"),
        ("    monitors: [volume, colums]\n",
         "line 7, scans.orders.monitors[1]: unknown monitor 'colums' (did you mean 'columns'?); "
         "allowed: auto, volume, freshness, schema, columns, timeliness"),
        ("    monitors: automatic\n",
         "scans.orders.monitors: unknown monitor 'automatic' (did you mean 'auto'?)"),
        ("    monitors: {columns: {exlude: [a]}}\n",
         "scans.orders.monitors.columns.exlude: unknown key 'exlude' (did you mean 'exclude'?); "
         "allowed keys: detector, severity, min_history, include, exclude"),
        ("    monitors: {schema: {removed: fatal}}\n",
         "scans.orders.monitors.schema.removed: must be one of 'error', 'warning' or 'ignore'; "
         "got 'fatal'"),
        ("    monitors: {volume: {detector: Bogus}}\n",
         "scans.orders.monitors.volume.detector: unknown detector 'Bogus'"),
        ("    monitors: {timeliness: {threshold: soon}}\n",
         "scans.orders.monitors.timeliness.threshold: invalid duration 'soon'"),
        ("    monitors: [volume, [schema]]\n",
         "scans.orders.monitors[1]: a monitor is a name (volume, freshness, schema, columns, "
         "timeliness) or {name: options}, got ['schema']"),
        ("    monitors: {auto: false}\n", "scans.orders.monitors: no monitor is on"),
    ],
)  # fmt: skip
def test_bad_monitors_say_where(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigFileError) as raised:
        load_config(write_config(tmp_path, BASE + text))
    assert message in str(raised.value)
