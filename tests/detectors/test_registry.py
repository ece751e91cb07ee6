from __future__ import annotations

import pytest

from detectors import (
    DetectorLoadError,
    InvalidParameterError,
    OnlineNormal,
    SeasonalArima,
    detector_factory,
    load_detector,
)


class Plugin:
    """A user detector as a config file would register it, by import path."""

    def __init__(self, limit: float = 1.0) -> None:
        self.limit = limit

    def detect(self, values: object, interval: object = None) -> list[object]:
        return []


class Container:
    Nested = Plugin


def test_built_in_names_and_import_paths() -> None:
    assert load_detector("OnlineNormal", {"upper_deviation_factor": 4.0}) == OnlineNormal(
        upper_deviation_factor=4.0
    )
    assert load_detector("detectors:SeasonalArima", {"order": [1, 0, 0]}) == SeasonalArima(
        order=(1, 0, 0)
    )
    plugin = load_detector(f"{__name__}:Plugin", {"limit": 3.0})
    assert isinstance(plugin, Plugin) and plugin.limit == 3.0
    assert detector_factory(f"{__name__}:Container.Nested") is Plugin


@pytest.mark.parametrize(
    ("spec", "params", "message"),
    [
        ("", None, "non-empty string"),
        ("NoSuchDetector", None, "unknown detector 'NoSuchDetector': built-ins are"),
        ("no_such_module_xyz:Thing", None, "cannot import module 'no_such_module_xyz'"),
        (f"{__name__}:Missing", None, "has no 'Missing'"),
        ("detectors.registry:BUILTINS", None, "is not a class or factory"),
        ("OnlineNormal", {"stddevs": 3}, "cannot build 'OnlineNormal' with parameters"),
        ("builtins:dict", None, "which has no detect method"),
    ],
)
def test_load_errors_say_what_is_wrong(
    spec: str, params: dict[str, object] | None, message: str
) -> None:
    with pytest.raises(DetectorLoadError, match=message):
        load_detector(spec, params)


def test_bad_parameter_values_keep_the_detectors_own_error() -> None:
    with pytest.raises(InvalidParameterError) as raised:
        load_detector("OnlineNormal", {"ignore_start_percentage": 2})
    assert raised.value.parameter == "ignore_start_percentage"
