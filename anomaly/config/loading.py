"""Loading a config file: YAML, ``${VAR}`` interpolation, validation, one clear error."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import ValidationError

from anomaly.config.config import ALERTS, ServiceConfig
from anomaly.config.interpolation import InterpolationError, interpolate_tree, mask, secrets_near
from anomaly.config.model import allowed_keys
from anomaly.config.problems import ConfigFileError, Location, Problem, from_pydantic
from anomaly.config.yaml_file import line_of, read_yaml


def load_config(
    path: str | os.PathLike[str], env: Mapping[str, str] | None = None
) -> ServiceConfig:
    """The validated config in `path`; relative paths in it are relative to its directory.

    Every problem found is reported at once in a `ConfigFileError` naming the file, the line,
    the key path and what is allowed; a value read from a ``${VAR}`` is shown as ``${VAR}``,
    never as itself. The alert sinks keep their references until an alert is sent (an unset
    one is only a `ServiceConfig.warnings` entry here). The YAML reader's limits are in
    `anomaly.config.yaml_file`.

    Examples
    --------
    >>> import tempfile
    >>> text = '''
    ... repository: ${HOME_DIR:-/tmp}/metrics.duckdb
    ... sources:
    ...   events: {path: events.parquet, time_column: day}
    ... scans:
    ...   daily:
    ...     source: events
    ...     metrics: [Size, {analyzer: Mean, column: price}]
    ... '''
    >>> with tempfile.NamedTemporaryFile("w", suffix=".yml") as f:
    ...     _ = f.write(text); f.flush()
    ...     config = load_config(f.name, env={})
    >>> config.repository, [p.analyzer.metric_id for p in config.plans("daily")]
    ('/tmp/metrics.duckdb', ['Size(*)', 'Mean(price)'])
    """
    file = Path(path)
    data, lines = read_yaml(file)
    if data is None:
        raise ConfigFileError(file, [Problem((), "the file is empty: it needs sources and scans")])
    if not isinstance(data, dict):
        problem = Problem((), f"the file must be a mapping (key: value), got {type(data).__name__}")
        raise ConfigFileError(file, [problem])
    environment = os.environ if env is None else env
    used: dict[Location, dict[str, str]] = {}  # variables read: no message shows their values
    try:
        # Alert sinks keep their references: they are resolved when an alert is sent.
        data = {
            key: value if key == ALERTS else interpolate_tree(value, environment, (key,), used)
            for key, value in data.items()
        }
    except InterpolationError as error:
        location = error.location
        problem = Problem(location, str(error), line_of(location, lines))
        raise ConfigFileError(file, [problem]) from None
    context = {"base_dir": file.parent, "env": env}
    try:
        config = ServiceConfig.model_validate(data, context=context)
    except ValidationError as error:
        problems = [from_pydantic(e, _allowed) for e in error.errors()]
        located = sorted((_with_line(p, lines, used) for p in problems), key=lambda p: p.line or 0)
        raise ConfigFileError(file, located) from None
    problems = config.problems()
    if problems:
        raise ConfigFileError(file, [_with_line(p, lines, used) for p in problems])
    config.warnings.extend(_unset_alert_variables(config, lines))
    return config


def _unset_alert_variables(config: ServiceConfig, lines: dict[Location, int]) -> list[Problem]:
    found = []
    for name, sink in config.alerts.items():
        for key, variable in sink.unset_variables():
            location = (ALERTS, name, *key)
            message = (
                f"environment variable {variable} is not set: alert {name!r} cannot be sent "
                "until it is (commands that send no alert do not need it)"
            )
            found.append(Problem(location, message, line_of(location, lines)))
    return found


def _allowed(location: Location) -> list[str] | None:
    return allowed_keys(ServiceConfig, location)


def _with_line(
    problem: Problem, lines: dict[Location, int], used: dict[Location, dict[str, str]]
) -> Problem:
    message = mask(problem.message, secrets_near(problem.location, used))
    return Problem(problem.location, message, line_of(problem.location, lines))
