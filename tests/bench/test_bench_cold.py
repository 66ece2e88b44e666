"""Smoke test of the cold/hot diagnostic: it runs and times every contender in every condition.

Speed is never asserted: only that each condition was measured on both sides and a ratio
given for each.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_cold_bench_times_both_planners_hot_and_after_each_pause() -> None:
    argv = [sys.executable, str(ROOT / "bench" / "bench_cold.py"), "--rounds", "3"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    conditions = ("hot", "after 0.3 ms", "after 2 ms")
    times = result["median_ms"]
    assert set(times) == {f"{side} {c}" for side in ("taskforce", "origin") for c in conditions}
    assert all(value > 0 for value in times.values())
    assert set(result["taskforce_over_origin"]) == set(conditions)
    assert all(ratio > 0 for ratio in result["taskforce_over_origin"].values())
    assert (result["rounds"], result["ops_per_round"], result["steps"]) == (3, 10, 10)
