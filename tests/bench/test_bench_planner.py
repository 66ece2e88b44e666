"""Smoke test of the interleaved planner benchmark: it runs and produces ratios.

Speed is never asserted here (see docs/qa/benchmarks.md for figures); the peers that are
not installed in the test venv are reported as not measured, the origin always runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_planner_bench_produces_interleaved_ratios(tmp_path: Path) -> None:
    argv = [sys.executable, str(ROOT / "bench" / "bench_planner.py"), str(tmp_path)]
    proc = subprocess.run(
        [*argv, "--quick", "--rounds", "2"], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    sqlite = result["durable"]["sqlite"]
    for size in ("10", "100"):
        ratio = sqlite["sizes"][size]["ratios"]["origin_planner"]
        assert ratio["rounds"] == 2
        assert ratio["q1"] <= ratio["median"] <= ratio["q3"]
    assert sqlite["pragmas"]["taskforce"] == {"journal_mode": "wal", "synchronous": "FULL"}
    assert sqlite["disk_bytes"]["taskforce@10"] > 0
    assert result["in_memory"]["20"]["ratios"]["origin"]["rounds"] == 2
