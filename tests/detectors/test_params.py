"""Bad parameters fail at construction with a ValueError that names the parameter."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from detectors import (
    AbsoluteChange,
    BatchNormal,
    HoltWinters,
    InvalidParameterError,
    OnlineNormal,
    RelativeRateOfChange,
    RobustMAD,
    SeasonalArima,
    SimpleThreshold,
)


@pytest.mark.parametrize(
    ("build", "parameter"),
    [
        (lambda: SimpleThreshold(), "lower_bound/upper_bound"),
        (lambda: SimpleThreshold(lower_bound=2, upper_bound=1), "lower_bound"),
        (lambda: SimpleThreshold(upper_bound=math.nan), "upper_bound"),
        (lambda: SimpleThreshold(upper_bound="10"), "upper_bound"),  # type: ignore[arg-type]
        (lambda: SimpleThreshold(upper_bound=True), "upper_bound"),
        (lambda: OnlineNormal(None, None), "lower_deviation_factor/upper_deviation_factor"),
        (lambda: OnlineNormal(lower_deviation_factor=-3.0), "lower_deviation_factor"),
        (lambda: OnlineNormal(upper_deviation_factor=-0.1), "upper_deviation_factor"),
        (lambda: OnlineNormal(ignore_start_percentage=1.5), "ignore_start_percentage"),
        (lambda: OnlineNormal(ignore_start_percentage=-1.0), "ignore_start_percentage"),
        (lambda: OnlineNormal(ignore_anomalies="yes"), "ignore_anomalies"),  # type: ignore[arg-type]
        (lambda: OnlineNormal(include_current_point=1), "include_current_point"),  # type: ignore[arg-type]
        (lambda: BatchNormal(-1.0), "lower_deviation_factor"),
        (lambda: BatchNormal(include_interval=None), "include_interval"),  # type: ignore[arg-type]
        (lambda: AbsoluteChange(), "max_rate_decrease/max_rate_increase"),
        (lambda: AbsoluteChange(-2.0, -3.0), "max_rate_decrease"),
        (lambda: AbsoluteChange(max_rate_increase=1, order=-1), "order"),
        (lambda: AbsoluteChange(max_rate_increase=1, order=1.5), "order"),  # type: ignore[arg-type]
        (lambda: RelativeRateOfChange(max_rate_increase=2, order=0), "order"),
        (lambda: RelativeRateOfChange(2.0, 0.5), "max_rate_decrease"),
        (lambda: HoltWinters(1), "period"),
        (lambda: HoltWinters("7"), "period"),  # type: ignore[arg-type]
        (lambda: SeasonalArima(order=(1, 1)), "order"),
        (lambda: SeasonalArima(order=(1, -1, 1)), "order"),
        (lambda: SeasonalArima(seasonal_order=(0, 1)), "seasonal_order"),
        (lambda: SeasonalArima(alpha=0.0), "alpha"),
        (lambda: SeasonalArima(alpha=1.0), "alpha"),
        (lambda: SeasonalArima(period=1), "period"),
        (lambda: SeasonalArima(seasonal_order=(0, 1, 1, 7), period=12), "period"),
        (lambda: SeasonalArima(max_history=3), "max_history"),
        (lambda: RobustMAD(-1.0), "lower_deviation_factor"),
        (lambda: RobustMAD(window=0), "window"),
        (lambda: RobustMAD(min_history=0), "min_history"),
    ],
)
def test_bad_parameter_is_named(build: Callable[[], object], parameter: str) -> None:
    with pytest.raises(ValueError) as raised:
        build()
    assert isinstance(raised.value, InvalidParameterError)
    assert raised.value.parameter == parameter
    assert str(raised.value).startswith(f"{parameter} must ")
    assert ", got " in str(raised.value)


def test_sequences_are_accepted_for_orders_and_stored_as_tuples() -> None:
    detector = SeasonalArima(order=[1, 0, 0], seasonal_order=[0, 1, 1, 7])  # type: ignore[arg-type]
    assert detector.order == (1, 0, 0) and detector.seasonal_order == (0, 1, 1, 7)
    assert detector == SeasonalArima(order=(1, 0, 0), seasonal_order=(0, 1, 1, 7))
