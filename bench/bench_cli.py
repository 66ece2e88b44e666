"""Cold start and peak RSS of the ``taskforce`` CLI.

    python bench/bench_cli.py WORKDIR [--runs N]

Each command runs as a fresh process (the console script of the interpreter's venv):
``taskforce --help``; ``taskforce sessions`` on an empty database and on the 100,000-
session database left by ``bench_scale.py`` (``WORKDIR/scale.db``); ``taskforce plan
show SID`` on that database. ``python -c pass`` and ``python -c "import taskforce"`` give
the floor. Medians of wall time; peak RSS of the process (``wait4``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _dataset as ds
from bench._common import ChildRun, emit, run_child


def measure(argv: list[str], env: dict[str, str], runs: int) -> dict[str, Any]:
    results: list[ChildRun] = []
    for _ in range(runs + 1):
        res = run_child(argv, env)
        if res.returncode != 0:
            raise RuntimeError(f"{argv} failed ({res.returncode}): {res.stderr[-1500:]}")
        results.append(res)
    timed = results[1:]  # the first run warms the page cache
    return {
        "median_ms": round(statistics.median(r.seconds for r in timed) * 1000, 1),
        "peak_rss_mb": statistics.median(r.max_rss_mb for r in timed),
        "runs": runs,
    }


def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    exe = str(Path(sys.executable).with_name("taskforce"))
    big = args.workdir / "scale.db"
    empty = args.workdir / "cli-empty.db"
    if not big.exists():
        raise SystemExit(f"{big} is missing: run bench_scale.py first")
    count = ds.count_sessions(big)
    env_big = {"TASKFORCE_DB_URL": ds.url_of(big)}
    env_empty = {"TASKFORCE_DB_URL": ds.url_of(empty)}
    py = sys.executable
    commands: dict[str, tuple[list[str], dict[str, str]]] = {
        "python -c pass": ([py, "-c", "pass"], {}),
        "python -c 'import taskforce'": ([py, "-c", "import taskforce"], {}),
        "taskforce --help": ([exe, "--help"], {}),
        "taskforce sessions (empty db)": ([exe, "sessions"], env_empty),
        f"taskforce sessions ({count:,} sessions)": ([exe, "sessions"], env_big),
        f"taskforce plan show SID ({count:,} sessions)": (
            [exe, "plan", "show", "s0000042"],
            env_big,
        ),
    }
    return {
        "sessions_in_db": count,
        "commands": {name: measure(argv, env, args.runs) for name, (argv, env) in commands.items()},
    }


if __name__ == "__main__":
    emit(main())
