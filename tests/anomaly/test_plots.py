"""PNG plots of a stored metric: one panel per group (or the chosen one), band, anomalies,
annotated points."""

from __future__ import annotations

import math
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from matplotlib.image import imread

from anomaly.chart_style import COLORS
from anomaly.judging.queries import QueryError
from anomaly.plots import ANNOTATION_MARKERS, plot_metric
from repository import AnomalyVerdict, MetricRecord, MetricsRepository, ResultKey

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20 days of Size(*) for three countries; FR drops on the last day. Verdicts: insufficient
    history for 5 days, then a band (one-sided for JP), FR's last day an anomaly."""
    path = tmp_path_factory.mktemp("plots") / "metrics.duckdb"
    with MetricsRepository(path) as repo:
        _save_days(repo)
    return path


@pytest.fixture
def repo(stored: Path, tmp_path: Path) -> MetricsRepository:
    """A copy of `stored` of the test's own (a test annotates it): the 20 saves, 1-2 s, once a
    module."""
    shutil.copyfile(stored, tmp_path / "metrics.duckdb")
    return MetricsRepository(tmp_path / "metrics.duckdb")


def _save_days(repo: MetricsRepository) -> None:
    for d in range(20):
        key = ResultKey(datetime(2026, 3, 1, tzinfo=UTC) + timedelta(days=d), {"scan": "daily"})
        records, verdicts = [], []
        for country, level in (("DE", 100.0), ("FR", 50.0), ("JP", 20.0)):
            value = 5.0 if (country == "FR" and d == 19) else level + d % 3
            group = {"country": country}
            records.append(MetricRecord("Dataset", "*", "Size", "Size(*)", value, group))
            if d < 5:
                status, lower, upper = "insufficient_history", None, None
            else:
                status = "anomaly" if value == 5.0 else "normal"
                lower, upper = level - 10, (math.inf if country == "JP" else level + 10)
            verdicts.append(AnomalyVerdict("Size(*)", status, "RobustMAD", value, lower, upper,
                                           history_length=d, group=group))  # fmt: skip
        repo.save(key, records, verdicts=verdicts)


def height(path: Path) -> int:
    assert path.read_bytes()[:8] == PNG
    return int(imread(path).shape[0])


def test_one_panel_per_group_or_the_chosen_group(repo: MetricsRepository, tmp_path: Path) -> None:
    every = plot_metric(repo, "Size(*)", tmp_path / "all.png", tags={"scan": "daily"})
    assert every == tmp_path / "all.png"
    assert height(every) == round((1.0 + 2.2 * 3) * 100)
    one = plot_metric(repo, "Size(*)", tmp_path / "sub" / "fr.png", group={"country": "FR"})
    assert height(one) == round((1.0 + 2.2 * 1) * 100)
    capped = plot_metric(repo, "Size(*)", tmp_path / "two.png", max_panels=2, title="Rows")
    assert height(capped) == round((1.0 + 2.2 * 2) * 100)


def test_unknown_metrics_and_empty_groups_are_errors(
    repo: MetricsRepository, tmp_path: Path
) -> None:
    with pytest.raises(QueryError, match=r"unknown metric 'Size' \(did you mean 'Size\(\*\)'\?\)"):
        plot_metric(repo, "Size", tmp_path / "x.png")
    with pytest.raises(QueryError, match="Size\\(\\*\\) has no stored points for this group"):
        plot_metric(repo, "Size(*)", tmp_path / "x.png", group={"country": "US"})
    assert not (tmp_path / "x.png").exists()


def pixels_of(path: Path, colour: str) -> int:
    """How many pixels of the PNG have (about) this ``#rrggbb`` colour."""
    image = imread(path)[:, :, :3]
    rgb = np.array([int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    return int((np.abs(image - rgb).max(axis=2) < 0.03).sum())


@pytest.mark.parametrize("kind", sorted(ANNOTATION_MARKERS))
def test_annotated_points_are_marked_by_kind(
    repo: MetricsRepository, tmp_path: Path, kind: str
) -> None:
    _, colour = ANNOTATION_MARKERS[kind]
    before = plot_metric(repo, "Size(*)", tmp_path / "before.png")
    assert pixels_of(before, colour) == 0
    # The last panel's group (JP sorts after DE): its marker and legend entry must still show.
    day = datetime(2026, 3, 10, tzinfo=UTC)
    repo.annotate(kind, day, day + timedelta(days=2), group={"country": "JP"})
    after = plot_metric(repo, "Size(*)", tmp_path / "after.png")
    assert pixels_of(after, colour) > 50
    # No marker of another kind: a marker is far more than 50 pixels; a few pixels of the
    # excluded kind's grey can come from anti-aliased text.
    others = [c for k, (_, c) in ANNOTATION_MARKERS.items() if k != kind]
    assert all(pixels_of(after, c) < 20 for c in others)


def test_a_band_of_millions_does_not_flatten_the_series(tmp_path: Path) -> None:
    """The demo's Size(*): about 100 rows a day under a first week's band reaching 5,000,000.
    The axis follows the values, so the series spans the panel instead of lying at 0."""
    repo = MetricsRepository(tmp_path / "metrics.duckdb")
    for d in range(30):
        value = 25.0 if d == 29 else 100.0 + 20 * math.sin(d)
        lower, upper = (-4e6, 5e6) if d < 7 else (60.0, 140.0)
        status = "anomaly" if d == 29 else "normal"
        repo.save(
            ResultKey(datetime(2026, 3, 1, tzinfo=UTC) + timedelta(days=d), {}),
            [MetricRecord("Dataset", "*", "Size", "Size(*)", value)],
            verdicts=[AnomalyVerdict("Size(*)", status, "Adaptive", value, lower, upper)],
        )
    png = plot_metric(repo, "Size(*)", tmp_path / "size.png")
    image = imread(png)[:, :, :3]
    rgb = np.array([int(COLORS["value"][i : i + 2], 16) / 255 for i in (1, 3, 5)])
    middle = image[:, int(0.4 * image.shape[1]) : int(0.7 * image.shape[1])]  # no legend there
    rows = np.flatnonzero((np.abs(middle - rgb).max(axis=2) < 0.03).any(axis=1))
    # The series covers much of the panel's height: flattened at 0 it would cover a few rows.
    assert rows.max() - rows.min() > 0.3 * image.shape[0], (rows.min(), rows.max())
