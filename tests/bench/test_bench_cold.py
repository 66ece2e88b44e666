"""Smoke test of the cold/hot diagnostic: it runs and times every contender in every condition.

Speed is never asserted: only that each condition was measured on both sides and a ratio
given for each.
"""

from __future__ import annotations

from tests.bench.helpers import run_bench


def test_the_cold_bench_times_both_planners_hot_and_after_each_pause() -> None:
    result = run_bench("bench_cold.py", "--rounds", "3")
    conditions = result["conditions"]
    assert set(conditions) == {"hot", "after 0.3 ms", "after 2 ms"}
    for measured in conditions.values():
        assert set(measured["median_ms"]) == {"taskforce", "origin"}
        assert all(value > 0 for value in measured["median_ms"].values())
        assert set(measured["ratios"]) == {"origin"}
        assert measured["ratios"]["origin"]["median"] > 0
    assert (result["rounds"], result["ops_per_round"], result["steps"]) == (3, 10, 10)
