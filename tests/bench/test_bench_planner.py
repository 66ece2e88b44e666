"""Smoke test of the interleaved planner benchmark: it runs and produces ratios.

Speed is never asserted here (see docs/qa/benchmarks.md for figures); the peers that are
not installed in the test venv are reported as not measured, the origin always runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.bench.helpers import ROOT, run_bench


def test_quick_planner_bench_produces_interleaved_ratios(tmp_path: Path) -> None:
    result = run_bench("bench_planner.py", str(tmp_path), "--quick", "--rounds", "2")
    sqlite = result["durable"]["sqlite"]
    for size in ("10", "100"):
        ratio = sqlite["sizes"][size]["ratios"]["origin_planner"]
        assert ratio["rounds"] == 2
        assert ratio["q1"] <= ratio["median"] <= ratio["q3"]
    assert sqlite["pragmas"]["taskforce"] == {"journal_mode": "wal", "synchronous": "FULL"}
    assert sqlite["disk_bytes"]["taskforce@10"] > 0
    assert result["in_memory"]["20"]["ratios"]["origin"]["rounds"] == 2


def test_the_in_memory_part_runs_alone_and_the_report_says_how_it_was_rerun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run_bench("bench_planner.py", str(tmp_path), "--rounds", "2", "--in-memory-only")
    assert "durable" not in result
    assert set(result["in_memory"]) == {"20", "1000"}
    monkeypatch.syspath_prepend(str(ROOT))
    from bench.report_planner import planner

    ratio = {"median": 5.0, "q1": 4.0, "q3": 6.0, "rounds": 2}
    rerun = {
        "date": "D",
        "command": "C",
        "rounds": 2,
        "loadavg_before": [1.0],
        "loadavg_after": [2.0],
        "before": {"tree": "T", "how": "H", "ratios": {"20": [ratio]}},
    }
    text = planner({**result, "durable": {}, "in_memory_rerun": rerun})
    assert "re-measured on their own on D: `C` (2 rounds" in text
    assert "Before (T, H): taskforce ÷ origin 20 steps **5.00x** (4.00-6.00)." in text


def test_a_target_is_met_only_when_its_interquartile_range_stays_within_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    from bench.report_planner import planner

    def ratios(median: float, q3: float) -> dict[str, Any]:
        return {"origin": {"median": median, "q1": median - 0.1, "q3": q3, "rounds": 9}}

    mem = {
        "20": {"ratios": ratios(1.4, 1.6), "median_ms": {}},
        "1000": {"ratios": ratios(0.5, 0.9), "median_ms": {}},
    }
    p = {"rounds": 9, "ops_per_round": 10, "tool_spec_size_chars": 1, "in_memory": mem}
    text = planner({**p, "how": "Re-run on its own: HOW."})
    rows = [line for line in text.splitlines() if line.startswith("| in_memory")]
    assert rows[0].endswith("| median met, IQR crosses the target |"), rows
    assert rows[1].endswith("| met |"), rows
    assert "Re-run on its own: HOW." in text
    mem["20"]["ratios"] = ratios(1.7, 1.8)
    assert "| **not met** |" in planner(p)
