"""Running a bench script the way ``bench/run_all.py`` does, for the bench smoke tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_bench(script: str, *args: str) -> dict[str, Any]:
    """Run ``bench/<script>`` with `args` in a child process; the JSON object it printed last.

    Fails the test (with the script's stderr) when the script exits non-zero.
    """
    argv = [sys.executable, str(ROOT / "bench" / script), *args]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result
