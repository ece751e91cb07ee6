"""Where alerts go: the log, a webhook (Slack-compatible JSON), or a command.

A sink keeps its ``${VAR}`` references as written: they are resolved when an alert is sent
(`AlertSinkConfig.resolved`), so commands that send none need no alert secrets.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from datetime import timedelta
from typing import Literal

from pydantic import PrivateAttr, ValidationInfo, field_validator, model_validator

from anomaly.config.durations import Duration
from anomaly.config.interpolation import InterpolationError, interpolate, references, unset
from anomaly.config.metric_spec import Severity
from anomaly.config.model import ConfigModel
from anomaly.config.problems import Location, custom_error, key_path
from anomaly.errors import ConfigurationError

SinkType = Literal["log", "webhook", "command"]
ONLY_FOR = {"url": "webhook", "headers": "webhook", "format": "webhook", "command": "command"}


class AlertSinkConfig(ConfigModel):
    """One alert destination.

    * ``log``: a WARNING/ERROR line on the service's log.
    * ``webhook``: POST JSON to ``url``: ``format: slack`` (default) is a Slack incoming-webhook
      body (``text`` + ``blocks``), ``format: json`` the structured alert. ``headers`` may hold
      ``${TOKEN}`` references.
    * ``command``: run ``command`` (a list, or a string split like a shell would, never run by
      one) with the alert JSON on stdin and ``ANOMALY_SCAN``, ``ANOMALY_STATUS``,
      ``ANOMALY_SUMMARY`` in the environment.

    ``min_severity: error`` sends only alerts that include ERROR-level findings or failures.
    ``url``, ``headers`` and ``command`` keep their ``${VAR}`` references until `resolved`.

    Examples
    --------
    >>> sink = AlertSinkConfig.model_validate({"type": "command", "command": "notify-send hi"})
    >>> sink.argv
    ['notify-send', 'hi']
    >>> hook = AlertSinkConfig.model_validate({"type": "webhook", "url": "${HOOK}"},
    ...                                       context={"env": {"HOOK": "https://x.test/T1"}})
    >>> hook.url, hook.resolved().url
    ('${HOOK}', 'https://x.test/T1')
    """

    type: SinkType
    min_severity: Severity = "warning"
    url: str | None = None
    headers: dict[str, str] = {}
    format: Literal["slack", "json"] = "slack"
    command: list[str] | str | None = None
    timeout: Duration = timedelta(seconds=10)
    _env: Mapping[str, str] | None = PrivateAttr(None)

    @field_validator("url")
    @classmethod
    def _http(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith("${"):  # else checked when resolved
            _check_url(value)
        return value

    @model_validator(mode="after")
    def _references(self, info: ValidationInfo) -> AlertSinkConfig:
        for at, text in self._templates():
            try:
                references(text)
            except InterpolationError as error:
                raise custom_error(str(error), key=key_path(at)) from None
        self._env = (info.context or {}).get("env")
        return self

    @model_validator(mode="after")
    def _keys_of_type(self) -> AlertSinkConfig:
        for key, owner in ONLY_FOR.items():
            if key in self.model_fields_set and self.type != owner:
                raise custom_error(f"{key!r} applies to type: {owner} only", key=key)
        if self.type == "webhook" and not self.url:
            raise custom_error("a webhook needs 'url'")
        if self.type == "command" and not self.argv:
            raise custom_error("a command sink needs 'command' (a list or a string)")
        return self

    def resolved(self) -> AlertSinkConfig:
        """This sink with its ``${VAR}`` references replaced, from the environment the config
        was loaded with (`os.environ` unless `load_config` got another); a
        `ConfigurationError` names the key and the unset variable, never a value."""
        env = os.environ if self._env is None else self._env

        def fill(key: str, text: str) -> str:
            try:
                return interpolate(text, env)
            except InterpolationError as error:
                raise ConfigurationError(f"{key}: {error}") from None

        url = None if self.url is None else fill("url", self.url)
        headers = {k: fill(f"headers.{k}", v) for k, v in self.headers.items()}
        command: list[str] | str | None = self.command
        if isinstance(command, str):
            command = fill("command", command)
        elif command is not None:
            command = [fill(f"command[{i}]", part) for i, part in enumerate(command)]
        if url is not None:
            try:
                _check_url(url, self.url)
            except ValueError as error:
                raise ConfigurationError(str(error)) from None
        return self.model_copy(update={"url": url, "headers": headers, "command": command})

    def unset_variables(self) -> list[tuple[Location, str]]:
        """``(key path, variable)`` of each reference `resolved` would fail on now.

        >>> AlertSinkConfig.model_validate({"type": "webhook", "url": "${NO_SUCH_HOOK}"},
        ...                                context={"env": {}}).unset_variables()
        [(('url',), 'NO_SUCH_HOOK')]
        """
        env = os.environ if self._env is None else self._env
        return [(at, name) for at, text in self._templates() for name in unset(text, env)]

    def _templates(self) -> list[tuple[Location, str]]:
        found: list[tuple[Location, str]] = [(("url",), self.url)] if self.url else []
        found += [(("headers", k), v) for k, v in self.headers.items()]
        if isinstance(self.command, str):
            return [*found, (("command",), self.command)]
        return found + [(("command", i), part) for i, part in enumerate(self.command or [])]

    @property
    def argv(self) -> list[str]:
        """The command as arguments."""
        if isinstance(self.command, str):
            return shlex.split(self.command)
        return list(self.command or [])


def _check_url(url: str, template: str | None = None) -> None:
    """An error unless `url` is http(s); one from a `template` shows the template only."""
    if url.startswith(("http://", "https://")):
        return
    if template is not None and "${" in template:
        raise ValueError(
            f"url must start with http:// or https://; {template} gives a value that "
            "does not (not shown: it may hold a secret)"
        )
    raise ValueError(f"url must start with http:// or https://, got {url!r}")
