"""Smoke tests of the mark_done breakdown (durable and in memory): it measures every part.

Speed is never asserted: only that each part was measured, that each part of a durable
call's time (a sub-interval of it) is smaller than the whole, and what the report shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.helpers import ROOT, run_bench


def test_the_breakdown_names_each_part_of_a_durable_mark_done(tmp_path: Path) -> None:
    result = run_bench("bench_breakdown.py", str(tmp_path), "--rounds", "2")
    times = result["median_ms"]
    parts = ("taskforce before", "taskforce in thread", "taskforce after")
    assert set(times) == {"taskforce", "hop", "origin write", "origin save", *parts}
    assert all(times[name] > 0 for name in times)
    assert all(times[part] < times["taskforce"] for part in parts)
    assert (result["rounds"], result["ops_per_round"], result["steps"]) == (2, 10, 10)


def test_the_in_memory_split_times_each_part_against_the_origins_whole_call(
    tmp_path: Path,
) -> None:
    result = run_bench("bench_breakdown.py", str(tmp_path), "--in-memory", "--rounds", "3")
    assert (result["rounds"], result["ops_per_round"], result["steps"]) == (3, 10, 20)
    times, ratios = result["median_ms"], result["ratio_to_origin"]
    parts = ("decode", "apply", "result")
    assert set(times) == {"origin", "taskforce", *parts}
    assert set(ratios) == {"taskforce", *parts}
    assert all(times[name] > 0 for name in times)
    for r in ratios.values():
        assert 0 < r["q1"] <= r["median"] <= r["q3"]


def test_the_report_shows_the_split_beside_the_planner_section(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    from bench.report_planner import planner

    ratio = {"median": 3.5, "q1": 3.25, "q3": 3.75}
    split = {
        "in_memory": {
            "steps": 20,
            "rounds": 4,
            "median_ms": {"origin": 0.007, "apply": 0.025},
            "ratio_to_origin": {"apply": ratio},
        },
        "durable": {"error": "exit 1: boom"},
    }
    p = {"rounds": 9, "ops_per_round": 10, "tool_spec_size_chars": 1}
    text = planner(p, split)
    assert "In memory, 20 steps, 4 rounds" in text
    rules = "| the plan's rules applied (`PlannerTool.change`) | **3.50x** (3.25-3.75) | 0.025 |"
    assert rules in text
    assert "| origin: its whole `mark_done` | 1.00x | 0.007 |" in text
    assert "Durable: failed in this run: `exit 1: boom`" in text
    assert "Where the time goes" not in planner(p)
