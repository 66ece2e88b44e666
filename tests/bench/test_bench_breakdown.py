"""Smoke test of the durable mark_done breakdown: it runs and measures every part.

Speed is never asserted: only that each part was measured and that each part of
taskforce's time is smaller than the whole.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_breakdown_names_each_part_of_a_durable_mark_done(tmp_path: Path) -> None:
    argv = [sys.executable, str(ROOT / "bench" / "bench_breakdown.py"), str(tmp_path)]
    proc = subprocess.run([*argv, "--rounds", "2"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    times = result["median_ms"]
    parts = ("taskforce before", "taskforce in thread", "taskforce after")
    assert set(times) == {"taskforce", "hop", "origin write", "origin save", *parts}
    assert all(times[name] > 0 for name in times)
    assert all(times[part] < times["taskforce"] for part in parts)
    assert (result["rounds"], result["ops_per_round"], result["steps"]) == (2, 10, 10)
