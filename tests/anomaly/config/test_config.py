"""Config files: valid examples load; every kind of mistake names the file, line, key path and
what is allowed."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anomaly.judging.verdicts import judge
from anomaly.service import ConfigFileError, load_config
from detectors import (
    AlertFatigue,
    AllOf,
    AnyOf,
    BatchNormal,
    KOfLastN,
    OnlineNormal,
    RobustMAD,
    SeasonalArima,
)
from tests.anomaly.service.conftest import write_config

DOCS = Path(__file__).resolve().parents[3] / "docs" / "config.md"

VALID = """
repository: ${REPO_DIR:-data}/metrics.duckdb
spark: {master: "local[2]", conf: {spark.sql.shuffle.partitions: 4}}
sources:
  events: {path: events.parquet, time_column: day}
  orders: {table: warehouse.orders, time_column: created_at, partition: hour}
  recent: {sql: "SELECT * FROM orders WHERE status = 'open'"}
defaults: {detector: RobustMAD, severity: warning, min_history: 14}
alerts:
  console: {type: log}
  slack: {type: webhook, url: "${HOOK_URL}", min_severity: error}
scans:
  events_daily:
    source: events
    group_by: [country]
    tags: {env: prod, version: 2}
    schedule: {cron: "0 6 * * *", timezone: Europe/Berlin}
    alerts: [slack]
    metrics:
      - Size
      - analyzer: Completeness
        column: price
        detector: {type: OnlineNormal, lower_deviation_factor: 4, upper_deviation_factor: null}
        severity: error
      - analyzer: Uniqueness
        column_names: [user_id, day]
        detector:
          type: AllOf
          detectors: [RobustMAD, {type: SeasonalArima, seasonal_order: [0, 1, 1, 7]}]
      - analyzer: Compliance
        name: refunds
        predicate: "status = 'refund'"
        min_history: 3
        detector: {type: KOfLastN, detector: RobustMAD, k: 2, n: 3}
  hourly:
    source: orders
    schedule: {interval: 15m, misfire_grace: 1h}
    metrics: [Size]
"""


def test_a_valid_config_loads_with_defaults_interpolation_and_relative_paths(
    tmp_path: Path,
) -> None:
    path = write_config(tmp_path, VALID)
    config = load_config(path, env={"HOOK_URL": "https://hooks.example.com/T1"})
    assert config.repository == str(tmp_path / "data" / "metrics.duckdb")
    assert config.sources["events"].path == str(tmp_path / "events.parquet")
    assert config.sources["orders"].partitioning == "hour"
    assert config.sources["recent"].partitioning is None
    assert config.alerts["slack"].url == "${HOOK_URL}"  # resolved when an alert is sent
    assert config.alerts["slack"].resolved().url == "https://hooks.example.com/T1"
    assert config.spark.conf == {"spark.sql.shuffle.partitions": "4"}
    assert config.scans["events_daily"].tags == {"env": "prod", "version": "2"}
    plans = {p.analyzer.metric_id: p for p in config.plans("events_daily")}
    assert list(plans) == [
        "Size(*)",
        "Completeness(price)",
        "Uniqueness(user_id, day)",
        "Compliance(refunds: status = 'refund')",
    ]
    assert isinstance(plans["Size(*)"].detector, RobustMAD)  # from defaults
    assert (plans["Size(*)"].severity, plans["Size(*)"].min_history) == ("warning", 14)
    completeness = plans["Completeness(price)"]
    assert completeness.detector == OnlineNormal(4, None)
    assert completeness.severity == "error"
    combined = plans["Uniqueness(user_id, day)"].detector
    assert isinstance(combined, AllOf)
    assert isinstance(combined.detectors[1], SeasonalArima)
    assert plans["Uniqueness(user_id, day)"].detector_label == "AllOf(RobustMAD, SeasonalArima)"
    assert isinstance(plans["Compliance(refunds: status = 'refund')"].detector, KOfLastN)
    assert plans["Compliance(refunds: status = 'refund')"].min_history == 3
    assert list(config.sinks("events_daily")) == ["slack"]
    assert list(config.sinks("hourly")) == ["console", "slack"]
    assert config.scans["hourly"].schedule is not None
    assert config.scans["hourly"].schedule.describe() == "every 15m"


def test_the_full_example_of_the_docs_is_valid(tmp_path: Path) -> None:
    text = DOCS.read_text(encoding="utf-8")
    example = re.search(r"## Full example.*?```yaml\n(.*?)```", text, re.S)
    assert example is not None, "docs/config.md lost its full example"
    config = load_config(write_config(tmp_path, example.group(1)), env={"SLACK_WEBHOOK_URL":
                         "https://hooks.slack.com/services/T0/B0/x"})  # fmt: skip
    assert config.scans and config.sources and config.alerts


NESTED = """
sources:
  events: {path: e.parquet, time_column: day}
scans:
  daily:
    source: events
    detector:
      type: AlertFatigue
      detector: {type: OnlineNormal, upper_deviation_factor: 4, ignore_anomalies: false}
      first_of_run: true
      cooldown: 7
    metrics:
      - Size
      - analyzer: Completeness
        column: price
        detector:
          type: AllOf
          detectors:
            - type: AlertFatigue
              min_relative_change: 0.2
              detector:
                type: KOfLastN
                k: 2
                n: 3
                detector: {type: AnyOf, detectors: [RobustMAD, {type: AlertFatigue,
                           detector: BatchNormal, k: 2, n: 2}]}
            - {type: KOfLastN, detector: {type: AlertFatigue, detector: RobustMAD,
                                          min_absolute_change: 5}, k: 1, n: 2}
"""


def test_alert_fatigue_and_wrappers_nest_to_any_depth(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path, NESTED), env={})
    size, completeness = config.plans("daily")
    assert size.detector == AlertFatigue(
        OnlineNormal(3.0, 4, ignore_anomalies=False), first_of_run=True, cooldown=7
    )
    assert size.detector_label == "AlertFatigue(OnlineNormal)"
    both = completeness.detector
    assert isinstance(both, AllOf)
    fatigue, persistent = both.detectors
    assert isinstance(fatigue, AlertFatigue) and fatigue.min_relative_change == 0.2
    persistent_either = fatigue.detector
    assert isinstance(persistent_either, KOfLastN)
    assert (persistent_either.k, persistent_either.n) == (2, 3)
    either = persistent_either.detector
    assert isinstance(either, AnyOf)
    assert either.detectors[1] == AlertFatigue(BatchNormal(), k=2, n=2)
    assert isinstance(persistent, KOfLastN) and isinstance(persistent.detector, AlertFatigue)
    assert persistent.detector.min_absolute_change == 5
    assert completeness.detector_label == (
        "AllOf(AlertFatigue(KOfLastN(AnyOf(RobustMAD, AlertFatigue(BatchNormal)))), "
        "KOfLastN(AlertFatigue(RobustMAD)))"
    )


def test_errors_deep_in_a_nesting_name_their_key_path_and_line(tmp_path: Path) -> None:
    text = NESTED.replace("min_absolute_change: 5", "min_absolute_change: -5").replace(
        "first_of_run: true", "first_of_run: 1"
    )
    with pytest.raises(ConfigFileError) as raised:
        load_config(write_config(tmp_path, text), env={})
    assert [p.render() for p in raised.value.problems] == [
        "line 10, scans.daily.detector.first_of_run: AlertFatigue: first_of_run must be a "
        "boolean (true or false), got 1",
        "line 28, scans.daily.metrics[1].detector.detectors[1].detector.min_absolute_change: "
        "AlertFatigue: min_absolute_change must be >= 0 or None (unbounded), got -5",
    ]  # fmt: skip


def test_a_configured_alert_fatigue_alerts_once_per_run_of_anomalies(tmp_path: Path) -> None:
    fatigue = "{type: AlertFatigue, detector: OnlineNormal, first_of_run: true}"
    scan = f"    source: events\n    detector: {fatigue}\n    min_history: 7"
    config = load_config(write_config(tmp_path, BASE.replace("    source: events", scan)), env={})
    plans = {p.analyzer.metric_id: p for p in config.plans("daily")}
    values = [100.0, 101, 99, 100, 102, 98, 100, 101, 99, 100, 10, 10, 100]
    frame = pd.DataFrame({
        "metric_id": "Size(*)", "group": "[]", "value": values,
        "timestamp": pd.date_range("2026-03-01", periods=len(values), tz="UTC"),
    })  # fmt: skip
    statuses = [judge(frame, at, plans)[0].status for at in frame["timestamp"][9:]]
    assert statuses == ["normal", "anomaly", "normal", "normal"]  # the second 10 is not alerted
    [second] = judge(frame, frame["timestamp"][11], plans)
    assert second.detail is not None and "not the first anomaly of a run" in second.detail


BASE = """
sources:
  events: {path: e.parquet, time_column: day}
scans:
  daily:
    source: events
    metrics: [Size]
"""


def with_detector(flow: str) -> str:
    """`BASE` with a scan-level detector (YAML flow style) on line 7."""
    return BASE.replace("    source: events", f"    source: events\n    detector: {flow}")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (BASE + "sheduler: {}\n",
         "line 8, sheduler: unknown key 'sheduler' (did you mean 'scheduler'?); allowed keys: "
         "version, repository, spark, sources, scans, alerts, defaults, scheduler"),
        (BASE.replace("    source: events", "    source: events\n    shedule: {cron: '0 6 * * *'}"),
         "line 7, scans.daily.shedule: unknown key 'shedule' (did you mean 'schedule'?)"),
        (BASE.replace("[Size]", "[{analyzer: Meen, column: price}]"),
         "scans.daily.metrics[0]: unknown analyzer 'Meen' (did you mean 'Mean'?); allowed: "
         "ApproxCountDistinct,"),
        (BASE.replace("[Size]", "[{analyzer: Mean, colum: price}]"),
         "line 7, scans.daily.metrics[0].colum: Mean has no parameter 'colum' (did you mean "
         "'column'?); allowed: column, where"),
        (BASE.replace("[Size]", "[{analyzer: Mean}]"),
         "scans.daily.metrics[0]: Mean needs 'column'"),
        (BASE.replace("[Size]", "[{analyzer: Mean, column: 3}]"),
         "scans.daily.metrics[0].column: Mean.column must be str, got 3"),
        (BASE.replace("[Size]", "[{analyzer: Size, detector: OnlneNormal}]"),
         "scans.daily.metrics[0].detector: unknown detector 'OnlneNormal' (did you mean "
         "'OnlineNormal'?); allowed: AbsoluteChange,"),
        (BASE.replace("[Size]", "[{analyzer: Size, detector: {type: RobustMAD, window: 0}}]"),
         "scans.daily.metrics[0].detector.window: RobustMAD: window must be an integer >= 1 or "
         "None, got 0"),
        (BASE.replace("[Size]", "[{analyzer: Size, detector: {type: HoltWinters}}]"),
         "scans.daily.metrics[0].detector: HoltWinters needs 'period'"),
        (with_detector("{type: AlertFatigue, detector: {type: OnlineNormal, "
                       "upper_deviation_factor: -1}, first_of_run: true}"),
         "line 7, scans.daily.detector.detector.upper_deviation_factor: OnlineNormal: "
         "upper_deviation_factor must be >= 0 or None (unbounded), got -1"),
        (with_detector("{type: AlertFatigue, detector: OnlineNormal, first_of_run: 'yes'}"),
         "scans.daily.detector.first_of_run: AlertFatigue: first_of_run must be a boolean "
         "(true or false), got 'yes'"),
        (with_detector("{type: AlertFatigue, detector: OnlineNormal, cooldwn: 7}"),
         "scans.daily.detector.cooldwn: AlertFatigue has no parameter 'cooldwn' (did you mean "
         "'cooldown'?); allowed: detector, first_of_run, min_absolute_change, "
         "min_relative_change, k, n, cooldown"),
        (with_detector("{type: AlertFatigue, detector: OnlineNormal, first_of_run: false}"),
         "scans.daily.detector: AlertFatigue needs at least one control: first_of_run: true, "
         "min_absolute_change, min_relative_change, n > 1 (with k), or cooldown > 0"),
        (with_detector("{type: AlertFatigue, detector: none, cooldown: 7}"),
         "scans.daily.detector: AlertFatigue needs 'detector' (the detector whose anomalies it "
         "filters; not 'none')"),
        (with_detector("{type: AlertFatigue, detectors: [RobustMAD], cooldown: 7}"),
         "scans.daily.detector.detectors: AlertFatigue takes no 'detectors' (only AllOf/AnyOf "
         "do)"),
        (with_detector("{type: RobustMAD, detector: OnlineNormal}"),
         "scans.daily.detector.detector: RobustMAD takes no 'detector' (only KOfLastN and "
         "AlertFatigue do)"),
        (with_detector("{type: AlertFatigue, detector: OnlineNormal, k: 3}"),
         "scans.daily.detector: AlertFatigue: n must be an integer >= 3, got 1"),
        (with_detector("{type: AllOf, detectors: [RobustMAD, {type: KOfLastN, k: 2, n: 3, "
                       "detector: {type: AlertFatigue, cooldown: 2, detector: {type: AnyOf, "
                       "detectors: [OnlineNormal, BatchNorml]}}}]}"),
         "line 7, scans.daily.detector.detectors[1].detector.detector.detectors[1]: unknown "
         "detector 'BatchNorml' (did you mean 'BatchNormal'?); allowed: AbsoluteChange, "
         "Adaptive, BatchNormal, HoltWinters, OnlineNormal, RelativeRateOfChange, RobustMAD, "
         "SeasonalArima, SimpleThreshold, AllOf, AnyOf, KOfLastN, AlertFatigue, none, "
         "package.module:Class"),
        (with_detector("{type: KOfLastN, k: 2, n: 3, detector: {type: AlertFatigue, "
                       "detector: RobustMAD, cooldown: -1}}"),
         "scans.daily.detector.detector.cooldown: AlertFatigue: cooldown must be an integer >= "
         "0, got -1"),
        (with_detector("{type: AnyOf, detectors: [RobustMAD], k: 2}"),
         "scans.daily.detector.k: AnyOf has no parameter 'k'; it takes only 'detectors'"),
        (with_detector("{type: AnyOf, detectors: [RobustMAD, none]}"),
         "scans.daily.detector: AnyOf needs 'detectors': a list of detectors (not 'none')"),
        (BASE.replace("[Size]", "[{analyzer: Size, severity: fatal}]"),
         "scans.daily.metrics[0].severity: must be one of 'warning' or 'error'; got 'fatal'"),
        (BASE.replace("[Size]", "[]"),
         "scans.daily.metrics: a scan needs at least one metric, or monitors "
         "(e.g. monitors: auto)"),
        (BASE.replace("    source: events", "    source: evnts"),
         "line 6, scans.daily.source: unknown source 'evnts' (did you mean 'events'?); "
         "allowed: events"),
        (BASE.replace("    source: events", "    source: events\n    schedule: {cron: '0 6 *'}"),
         "scans.daily.schedule.cron: invalid cron expression '0 6 *'"),
        (BASE.replace("    source: events", "    source: events\n    schedule: {interval: soon}"),
         "scans.daily.schedule.interval: invalid duration 'soon': write e.g. 90s, 15m"),
        (BASE.replace("    source: events", "    source: events\n    schedule: {}"),
         "scans.daily.schedule: a schedule needs exactly one of 'cron' or 'interval'"),
        (BASE.replace("    source: events", "    source: events\n    tags: {scan: x}"),
         "scans.daily.tags: the tag 'scan' is set by the service (the scan's name)"),
        (BASE.replace("    source: events", "    source: events\n    alerts: [slak]"),
         "scans.daily.alerts[0]: unknown alert 'slak'"),
        (BASE.replace("{path: e.parquet, time_column: day}", "{path: e.parquet, table: t}"),
         "line 3, sources.events: a source needs exactly one of 'path', 'table', 'sql', "
         "'stream' (got path, table)"),
        (BASE.replace("{path: e.parquet, time_column: day}", "{table: t, format: csv}"),
         "sources.events.format: 'format' applies to 'path' sources only"),
        (BASE.replace("{path: e.parquet, time_column: day}", "{path: e.parquet, partition: week}"),
         "sources.events.partition: must be one of 'day' or 'hour'; got 'week'"),
        (BASE.replace("  events:", "  my events:"),
         "sources: source name 'my events' is not allowed"),
        (BASE + "alerts:\n  slack: {type: webhook}\n",
         "line 9, alerts.slack: a webhook needs 'url'"),
        (BASE + "alerts:\n  slack: {type: webhook, url: hooks.slack.com}\n",
         "alerts.slack.url: url must start with http:// or https://"),
        (BASE + "alerts:\n  pager: {type: log, command: [page]}\n",
         "alerts.pager.command: 'command' applies to type: command only"),
        (BASE + "spark: {remote: 'localhost:15002'}\n",
         "spark.remote: remote must be a Spark Connect URL sc://host:port"),
        (BASE + "repository: ${NO_SUCH_VARIABLE}/m.duckdb\n",
         "line 8, repository: environment variable NO_SUCH_VARIABLE is not set (use "
         "${NO_SUCH_VARIABLE:-default} for a default)"),
        ("scans: [\n", "anomaly.yml: line 2: invalid YAML: did not find expected node content"),
        ("", "anomaly.yml: the file is empty: it needs sources and scans"),
        ("- a\n- b\n", "anomaly.yml: the file must be a mapping (key: value), got list"),
        ("sources: {}\n", "anomaly.yml: line 1: missing required key 'scans'"),
    ],
)  # fmt: skip
def test_invalid_configs_say_where_and_what_is_allowed(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = write_config(tmp_path, text)
    with pytest.raises(ConfigFileError) as raised:
        load_config(path, env={})
    message = str(raised.value)
    assert message.startswith(str(path))
    assert expected in message


def test_several_problems_are_reported_at_once_in_file_order(tmp_path: Path) -> None:
    text = BASE.replace("[Size]", "[{analyzer: Mean, colum: x}, {analyzer: Size, severity: x}]")
    path = write_config(tmp_path, text + "sheduler: {}\n")
    with pytest.raises(ConfigFileError) as raised:
        load_config(path, env={})
    problems = raised.value.problems
    assert [p.line for p in problems] == sorted(p.line or 0 for p in problems)
    assert len(problems) == 3
    assert str(raised.value).startswith(f"{path}: 3 problems\n  line 7, scans.daily.metrics[0]")


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigFileError, match=r"nope\.yml: .*file does not exist"):
        load_config(tmp_path / "nope.yml")


@pytest.mark.parametrize(
    ("detector", "expected"),
    [("Adaptive", "anomaly"), ("{type: Adaptive, holidays: US}", "normal")],
)
def test_a_configured_holiday_calendar_keeps_thanksgiving_quiet(
    tmp_path: Path, detector: str, expected: str
) -> None:
    config = load_config(write_config(tmp_path, with_detector(detector)), env={})
    plans = {p.analyzer.metric_id: p for p in config.plans("daily")}
    days = pd.date_range("2025-10-01", "2025-11-27", tz="UTC")  # ends on Thanksgiving
    noise = np.random.default_rng(3).lognormal(0, 0.03, len(days))
    values = np.round(20_000 * np.where(days.dayofweek >= 5, 0.4, 1.0) * noise)
    values[-1] *= 0.5  # a business table's holiday: about a weekend's rows
    frame = pd.DataFrame({"metric_id": "Size(*)", "group": "[]", "value": values,
                          "timestamp": days})  # fmt: skip
    [verdict] = judge(frame, days[-1], plans)
    assert verdict.status == expected
