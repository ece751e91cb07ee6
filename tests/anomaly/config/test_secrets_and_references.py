"""``${VAR}`` references: a value read from the environment is never echoed in an error
(issue 31, finding 16), and defaults may hold references, ``${A:-${B}}`` (finding 19)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from anomaly.config.interpolation import InterpolationError, interpolate
from anomaly.service import ConfigFileError, load_config
from tests.anomaly.config.test_config import BASE
from tests.anomaly.service.conftest import write_config

SECRET = "pa55-Word_s3cret"


@pytest.mark.parametrize(
    ("text", "variable", "expected"),
    [
        (BASE + "spark: {remote: '${SPARK_REMOTE}'}\n", "SPARK_REMOTE",
         "line 8, spark.remote: remote must be a Spark Connect URL sc://host:port, got "
         "'${SPARK_REMOTE}'"),
        (BASE + "    severity: ${SEVERITY}\n", "SEVERITY",
         "line 8, scans.daily.severity: must be one of 'warning' or 'error'; got '${SEVERITY}'"),
        (BASE + "    min_history: ${MIN_HISTORY}\n", "MIN_HISTORY",
         "line 8, scans.daily.min_history: must be a valid integer, unable to parse string as "
         "an integer; got '${MIN_HISTORY}'"),
        (BASE.replace("source: events", "source: ${SOURCE}"), "SOURCE",
         "line 6, scans.daily.source: unknown source '${SOURCE}'; allowed: events"),
        (BASE + "    schedule: {cron: '${CRON}'}\n", "CRON",
         "line 8, scans.daily.schedule.cron: invalid cron expression '${CRON}': "),
        (BASE + "    group_by: {by: '${GROUPS}'}\n", "GROUPS",
         "line 8, scans.daily.group_by: must be a list, got dict {'by': '${GROUPS}'}"),
    ],
)  # fmt: skip
def test_a_value_from_the_environment_is_never_echoed_in_an_error(
    tmp_path: Path, text: str, variable: str, expected: str
) -> None:
    with pytest.raises(ConfigFileError) as raised:
        load_config(write_config(tmp_path, text), env={variable: SECRET})
    message = str(raised.value)
    assert SECRET not in message
    assert expected in message


def test_two_variables_of_one_value_are_each_named_where_they_are_used(tmp_path: Path) -> None:
    text = BASE + "    schedule: {cron: '${CRON}'}\n    history_window: ${WINDOW}\n"
    with pytest.raises(ConfigFileError) as raised:
        load_config(write_config(tmp_path, text), env={"CRON": SECRET, "WINDOW": SECRET})
    message = str(raised.value)
    assert SECRET not in message
    assert "line 9, scans.daily.history_window: invalid duration '${WINDOW}'" in message
    assert "line 8, scans.daily.schedule.cron: invalid cron expression '${CRON}'" in message


def test_a_short_value_is_masked_where_it_is_quoted(tmp_path: Path) -> None:
    text = BASE + "    severity: ${SEVERITY}\n"
    with pytest.raises(ConfigFileError) as raised:
        load_config(write_config(tmp_path, text), env={"SEVERITY": "err"})
    assert str(raised.value).endswith("must be one of 'warning' or 'error'; got '${SEVERITY}'")


def test_an_alerts_secret_is_never_echoed_when_it_is_wrong(tmp_path: Path) -> None:
    text = BASE + "alerts:\n  slack: {type: webhook, url: '${HOOK}', headers: {X: '${KEY}'}}\n"
    config = load_config(write_config(tmp_path, text), env={"HOOK": "ftp://" + SECRET})
    with pytest.raises(Exception) as raised:
        config.alerts["slack"].resolved()
    assert str(raised.value) == (
        "headers.X: environment variable KEY is not set (use ${KEY:-default} for a default)"
    )
    config = load_config(write_config(tmp_path, text), env={"HOOK": "ftp://" + SECRET, "KEY": "k"})
    with pytest.raises(Exception) as raised:
        config.alerts["slack"].resolved()
    assert str(raised.value) == (
        "url must start with http:// or https://; ${HOOK} gives a value that does not (not "
        "shown: it may hold a secret)"
    )


@pytest.mark.parametrize(
    ("text", "env", "expected"),
    [
        ("${A:-${B}}", {"B": "b"}, "b"),
        ("${A:-${B}}", {"A": "a"}, "a"),  # B unset: the default is not read
        ("${A:-${B}}", {"A": "", "B": "b"}, "b"),
        ("${A:-${B:-${C:-c}}}", {}, "c"),
        ("${A:-x-${B}-y}/${C:-}", {"B": "b"}, "x-b-y/"),
        ("${A:-{b}}", {}, "{b}"),  # the first } closes a default, as in a shell
        ("$${A:-$${B}}", {}, "${A:-${B}}"),
        ("${A:-$${B}}", {}, "${B}"),
        ("cost: $5", {}, "cost: $5"),
    ],
)
def test_defaults_may_hold_references(text: str, env: dict[str, str], expected: str) -> None:
    assert interpolate(text, env) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${A:-${B}}", "environment variable B is not set (use ${B:-default} for a default)"),
        ("${A:-${B}", "malformed reference '${B}': no closing }"),
        ("${A:-${B:x}}", "malformed reference '${B:x}'"),
        ("${A:default}", "malformed reference '${A:default}'"),
        ("${}", "malformed reference '${}'"),
        ("${A:-" * 9 + "x" + "}" * 9, "references nest more than 8 deep in defaults"),
    ],
)
def test_unresolvable_references_say_which(text: str, expected: str) -> None:
    with pytest.raises(InterpolationError, match=None) as raised:
        interpolate(text, {})
    assert str(raised.value).startswith(expected)


def test_a_nested_default_works_in_a_config_file(tmp_path: Path) -> None:
    text = "repository: ${REPO:-${DATA_DIR}/metrics.duckdb}\n" + BASE
    config = load_config(write_config(tmp_path, text), env={"DATA_DIR": str(tmp_path / "d")})
    assert config.repository == str(tmp_path / "d" / "metrics.duckdb")


@given(st.text())
def test_doubling_every_dollar_gives_the_text_back(text: str) -> None:
    assert interpolate(text.replace("$", "$$"), {}) == text


@given(st.text(alphabet=st.characters(blacklist_characters="$")))
def test_text_without_a_dollar_is_left_alone(text: str) -> None:
    assert interpolate(text, {"A": "x"}) == text
