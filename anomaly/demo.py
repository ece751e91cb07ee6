"""`anomaly demo`: the product's loop on generated data with the embedded defaults."""

from __future__ import annotations

from typing import Any

import pandas as pd

from anomaly.analyzers import Analyzer, ApproxCountDistinct, Completeness, Mean, Size, Uniqueness
from anomaly.demo_data import events_frame
from anomaly.runner import AnalysisRunner
from anomaly.spark import build_session


def run_demo(days: int = 90, master: str = "local[*]") -> int:
    """Generate events, compute metrics per country in the minimal passes, print them."""
    spark = build_session(master=master)
    df = events_frame(spark, days=days)
    analyzers: list[Analyzer[Any]] = [
        Size(),
        Completeness("price"),
        Mean("price"),
        ApproxCountDistinct("user_id"),
        Uniqueness(["user_id", "day"]),
    ]
    context = AnalysisRunner(spark).on_data(df).add_analyzers(analyzers).group_by("country").run()
    table = context.to_pandas().pivot(index="country", columns="metric_id", values="value")
    with pd.option_context("display.width", 120, "display.float_format", "{:,.3f}".format):
        print(f"Metrics per country over {days} days of generated events:")
        print(table)
    return 0
