"""The fast lane (``pytest -n 2 -q -m fast``): every package touched, in minutes.

The one place that says which tests are in it (conftest.py applies it at collection):

- every test that needs no JVM and is not marked ``slow``: unit tests, Hypothesis laws,
  the repository on DuckDB and PostgreSQL, the detectors, the packages' doctests, the
  documentation's static checks;
- plus `SPARK_SMOKE`: one or a few Spark tests per package whose other tests all need Spark,
  and the documentation pages whose blocks run in seconds;
- minus `HEAVY`: tests that need no JVM but take many seconds (left to the full run).

A test needs Spark when its fixtures do, directly or through other fixtures; conftest.py marks
it ``spark`` (``-m "not spark"`` leaves them all out). A package is touched by a test in the
package's own folder (its doctests), in the folder of tests that mirrors it, or by a test
module that imports it; `untouched` lists the packages the lane misses, and
tests/test_fast_lane.py fails when there is one.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("anomaly", "repository", "detectors")
PAGES = ("README.md", "docs/")

SPARK_SMOKE: tuple[str, ...] = (
    "tests/anomaly/test_analyzers_reference.py::test_grouped_metrics_equal_reference[spark]",
    "tests/anomaly/accuracy/test_accuracy_spark.py::test_per_group_counts_match_the_construction",
    "tests/anomaly/checks/test_constraints.py::test_rows_and_statuses",
    "tests/anomaly/engine/test_runner_passes.py::test_frequency_analyzers_cost_one_pass_per_grouping_set",
    "tests/anomaly/engine/differential/test_scenarios.py::test_overlapping_partitions_are_refused",
    "tests/anomaly/examples/test_reddit.py::test_spikes_and_only_spikes_are_flagged",
    "tests/anomaly/monitors/test_scan.py::test_every_monitor_stores_its_series",
    "tests/anomaly/service/test_scan.py::test_a_scan_stores_metrics_and_verdicts_and_alerts_the_anomalies",
    "tests/anomaly/sources/test_reading.py::test_pandas_nanosecond_timestamps_are_read_as_",
    "tests/anomaly/streaming/test_metrics_batches.py::test_windows_merged_over_batches_and_replays_equal_a_batch_recompute",
    "tests/anomaly/suggestion/test_runner.py::test_suggestions_come_from_the_sample",
    "tests/anomaly/verification/test_split.py::test_flag_marks_every_row_in_one_pass",
    "tests/detectors/test_spark.py::test_spark_anomalies_only",
    "docs/repository.md::",
)
"""Node ids (or a prefix of them, ``path::`` for a whole page) of the Spark tests kept: one
end-to-end test per folder of Spark tests, and the pages that run in seconds."""

READ_ONLY = "tests/anomaly/test_cli_imports.py::test_read_only_commands_load_no_spark_nor_pandas"
HEAVY: tuple[str, ...] = (
    # Subprocesses: a killed writer, a CLI or interpreter per case, a second process's ids.
    "tests/anomaly/engine/test_stacked_passes.py::",  # a JVM of its own, killed
    "tests/repository/test_crash.py::test_a_process_killed_mid_",
    "tests/repository/test_postgres_concurrency.py::test_a_process_killed_mid_",
    "tests/anomaly/monitors/test_cli.py::test_bad_arguments_fail_before_spark",
    "tests/anomaly/test_cli.py::test_config_errors_in_a_subprocess_exit_3_without_traceback",
    "tests/anomaly/test_cli_imports.py::test_serve_ui_without_scheduled_scans_starts_no_spark",
    *(f"{READ_ONLY}[{case}" for case in ("plot", "report", "valid", "history -c", "anomalies -c")),
    "tests/anomaly/test_contract.py::test_metric_ids_are_the_same_in_another_process",
    "tests/anomaly/suggestion/test_name_model.py::test_features_hash_the_same_in_every_process",
    "tests/anomaly/backtest/test_curve.py::test_the_cli_prints_the_curve",
    # Threads racing on one repository file or server for many rounds.
    "tests/repository/test_readers.py::test_many_readers_while_a_writer_saves_see_only_whole_runs",
    "tests/repository/test_readers.py::test_a_writer_waits_for_readers_and_readers_for_a_writer",
    "tests/repository/test_readers.py::test_readers_do_not_wait_for_each_other",
    "tests/repository/test_concurrency.py::test_threads_writing_and_reading_one_file_lose_nothing",
    "tests/repository/test_concurrency.py::test_a_busy_file_times_out_with_a_clear_error_then_works",
    "tests/repository/test_postgres.py::test_threads_share_the_pool_and_lose_nothing",
    # Much data: files compacted, many groups or long series replayed, models trained, charts.
    "tests/repository/test_compaction.py::test_compaction_shrinks_the_file_and_keeps_every_table",
    "tests/repository/test_compaction.py::test_compaction_without_reclustering_also_shrinks",
    "tests/anomaly/backtest/test_joint.py::test_a_backtest_gives_each_group_the_verdicts_the_scan_",
    "tests/anomaly/verification/test_grouped_anomaly_checks.py::test_every_group_gets_the_verdict_",
    "tests/anomaly/report/test_downsampling.py::test_a_long_series_is_cut_to_the_limit_keeping_",
    "tests/anomaly/suggestion/test_name_model.py::test_cross_validated_auc_is_well_above_chance",
    "tests/anomaly/test_plots.py::",  # every chart drawn with matplotlib; the doctest stays
    "tests/detectors/test_frame.py::test_vectorised_path_equals_the_per_group_series_path",
    "tests/detectors/test_forward.py::test_long_series_are_cut_into_row_chunks",
    "tests/detectors/test_online_normal.py::test_scalar_loop_and_matrix_kernel_agree_exactly",
    "tests/detectors/adaptive/test_adaptive.py::test_without_timestamps_the_period_comes_from_the_",
    "tests/detectors/adaptive/test_adaptive.py::test_a_lasting_level_shift_raises_one_alert_and_is_",
    "tests/detectors/adaptive/test_pooling.py::test_heavy_tailed_groups_judged_together_keep_the_",
    "tests/anomaly/config/test_yaml_limits.py::test_many_values_without_aliases_are_not_an_alias_",
    "tests/anomaly/config/test_secrets_and_references.py::test_doubling_every_dollar_gives_the_text_",
    "docs/backtesting.md::",  # replays four detectors over four months of two series
)
"""Node ids (or prefixes) of tests without Spark that take many seconds alone (over ~2 s on a
quiet machine, measured with ``--durations``); the full run keeps them."""


class Collected(NamedTuple):
    """A collected test, as the fast lane saw it."""

    nodeid: str
    spark: bool
    fast: bool


COLLECTED = pytest.StashKey[list[Collected]]()
"""Every test of the session's collection (before ``-m`` deselects), kept by conftest.py."""


def selected(nodeid: str, uses_spark: bool, slow: object) -> bool:
    """Whether the test `nodeid` is in the fast lane.

    >>> selected("tests/detectors/test_base.py::test_x", uses_spark=False, slow=False)
    True
    >>> selected("tests/anomaly/test_x.py::test_y", uses_spark=True, slow=False)
    False
    """
    if slow:
        return False
    if uses_spark:
        return nodeid.startswith(SPARK_SMOKE)
    return not nodeid.startswith(HEAVY)


def packages() -> list[str]:
    """Every package of the product, as a dotted name."""
    found = (path.parent for top in PACKAGES for path in (ROOT / top).rglob("__init__.py"))
    return sorted(".".join(path.relative_to(ROOT).parts) for path in found)


def touched(nodeid: str) -> set[str]:
    """The packages (and documentation pages) a test touches (see the module's docstring)."""
    path = nodeid.split("::")[0]
    if path.endswith(".md"):
        return {path}
    if path == "tests/test_docs.py" and nodeid.endswith(".md]"):  # a page's static checks
        page = nodeid.rsplit("[", 1)[1][:-1]
        return {page if page == "README.md" else f"docs/{page}"}
    return _touched_by_file(path)


@functools.cache
def _touched_by_file(path: str) -> set[str]:
    known = set(packages())
    parts = Path(path).parts
    folder = parts[1:-1] if parts[0] == "tests" else parts[:-1]
    found = {".".join(folder)} & known
    if parts[0] == "tests" and (ROOT / path).is_file():
        found |= {_package_of(name, known) for name in _imports(ROOT / path)} - {""}
    return found


def _imports(path: Path) -> Iterable[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def _package_of(module: str, known: set[str]) -> str:
    """The deepest known package that `module` is, or is in ("" for none)."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in known:
            return ".".join(parts[:end])
    return ""


def untouched(nodeids: Iterable[str]) -> list[str]:
    """The packages and documentation pages that none of `nodeids` touches."""
    pages = ["README.md", *(f"docs/{p.name}" for p in sorted((ROOT / "docs").glob("*.md")))]
    seen: set[str] = set()
    for nodeid in nodeids:
        seen |= touched(nodeid)
    return [name for name in [*packages(), *pages] if name not in seen]
