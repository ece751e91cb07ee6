"""The fast lane (``-m fast``, tests/fast_lane.py) touches every package and every page."""

from __future__ import annotations

import pytest

from tests import fast_lane

WHOLE = {"README.md", "docs", "tests", *fast_lane.PACKAGES}


@pytest.fixture
def collected(request: pytest.FixtureRequest) -> list[fast_lane.Collected]:
    """This session's whole collection (also when ``-m fast`` runs only the lane)."""
    tests = request.config.stash[fast_lane.COLLECTED]
    if not {test.nodeid.split("/")[0].split("::")[0] for test in tests} >= WHOLE:
        pytest.skip("the lane is checked on the whole collection: run the suite or -m fast")
    return tests


def test_the_fast_lane_touches_every_package_and_page(collected: list[fast_lane.Collected]) -> None:
    assert fast_lane.untouched(test.nodeid for test in collected if test.fast) == []


def test_every_folder_of_spark_tests_keeps_one_in_the_fast_lane(
    collected: list[fast_lane.Collected],
) -> None:
    """A package whose tests need Spark is run on Spark in the lane too, not only imported."""

    def folders(tests: list[fast_lane.Collected]) -> set[str]:
        paths = (test.nodeid.split("::")[0] for test in tests)
        return {path.rsplit("/", 1)[0] for path in paths if path.startswith("tests/")}

    spark = [test for test in collected if test.spark]
    assert folders(spark) - folders([test for test in spark if test.fast]) == set()


def test_the_fast_lane_runs_a_page_on_spark_and_few_other_spark_tests(
    collected: list[fast_lane.Collected],
) -> None:
    spark_in_lane = [test for test in collected if test.fast and test.spark]
    assert any(".md::" in test.nodeid for test in spark_in_lane)
    assert len(spark_in_lane) < sum(test.spark for test in collected) / 10


def test_every_listed_node_id_still_names_a_test(collected: list[fast_lane.Collected]) -> None:
    """A renamed test must not leave the lists quietly: a heavy test would come back in."""
    ids = [test.nodeid for test in collected]
    listed = (*fast_lane.SPARK_SMOKE, *fast_lane.HEAVY)
    assert [prefix for prefix in listed if not any(i.startswith(prefix) for i in ids)] == []
