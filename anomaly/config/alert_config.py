"""Where alerts go: the log, a webhook (Slack-compatible JSON), or a command."""

from __future__ import annotations

import shlex
from datetime import timedelta
from typing import Literal

from pydantic import field_validator, model_validator

from anomaly.config.durations import Duration
from anomaly.config.metric_spec import Severity
from anomaly.config.model import ConfigModel
from anomaly.config.problems import custom_error

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

    Examples
    --------
    >>> sink = AlertSinkConfig.model_validate({"type": "command", "command": "notify-send hi"})
    >>> sink.argv
    ['notify-send', 'hi']
    """

    type: SinkType
    min_severity: Severity = "warning"
    url: str | None = None
    headers: dict[str, str] = {}
    format: Literal["slack", "json"] = "slack"
    command: list[str] | str | None = None
    timeout: Duration = timedelta(seconds=10)

    @field_validator("url")
    @classmethod
    def _http(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"url must start with http:// or https://, got {value!r}")
        return value

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

    @property
    def argv(self) -> list[str]:
        """The command as arguments."""
        if isinstance(self.command, str):
            return shlex.split(self.command)
        return list(self.command or [])
