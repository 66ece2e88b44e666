"""Eight writers on one session's plan: this tree against an older one, interleaved.

    python bench/bench_writers.py WORKDIR --baseline SRC [--pg URL] [--rounds R]
        [--seconds S] [--processes N]

SRC is a source tree holding the older ``taskforce`` package, e.g.
``git archive <commit> taskforce | tar -x -C SRC``. Each round runs the ``planner``
workload of ``bench_concurrency.py`` (N processes, each with its own ``StateManager``
and bound ``PlannerTool``, reword steps of ONE session's plan for S seconds) once with
the workers importing SRC and once importing this tree, the order alternating (old new,
new old, ...), on the same database, each run in a fresh session. Per side and round:
the p50 and p99 of the call latencies; per round the ratio new / old of the p99s, so
both sides of a ratio ran under the same machine load (stated: load average before and
after every run). The latencies of all rounds of a side are also pooled for one p99.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import databases, run
from bench._interleave import ratio_summary
from bench.bench_concurrency import measure


def _tree(path: str) -> str:
    """The absolute path of a source tree holding a ``taskforce`` package."""
    if not (Path(path) / "taskforce" / "__init__.py").is_file():
        raise argparse.ArgumentTypeError(f"{path} holds no taskforce/ package")
    return str(Path(path).resolve())


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


async def compare(
    url: str, src: str, rounds: int, seconds: float, processes: int
) -> dict[str, Any]:
    """The interleaved rounds on one database: per side its runs, per round new / old."""
    sides: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    for r in range(rounds):
        for side in ("old", "new") if r % 2 == 0 else ("new", "old"):
            before = _load()
            row = await measure(url, "planner", processes, seconds, src if side == "old" else None)
            sides[side].append({**row, "loadavg_before": before, "loadavg_after": _load()})
    out: dict[str, Any] = {"processes": processes, "rounds": rounds, "seconds_per_run": seconds}
    for side, runs in sides.items():
        out[side] = {
            "code": sorted({c for row in runs for c in row["code"]}),
            "p50_ms": [row["p50_ms"] for row in runs],
            "p99_ms": [row["p99_ms"] for row in runs],
            "calls": sum(row["calls"] for row in runs),
            "commits_per_s": [row["commits_per_s"] for row in runs],
            "conflicts_shown_to_model": sum(row["conflicts_shown_to_model"] for row in runs),
            "errors": sum(row["errors"] for row in runs),
            "lost_updates": sum(row["lost_updates"] for row in runs),
            "loadavg": [row["loadavg_before"][0] for row in runs],
        }
        out[side]["p99_ms_median"] = ratio_summary(out[side]["p99_ms"])["median"]
        out[side]["p50_ms_median"] = ratio_summary(out[side]["p50_ms"])["median"]
    old, new = out["old"], out["new"]
    out["p99_new_vs_old"] = ratio_summary(
        [n / o for n, o in zip(new["p99_ms"], old["p99_ms"], strict=True)]
    )
    out["p50_new_vs_old"] = ratio_summary(
        [n / o for n, o in zip(new["p50_ms"], old["p50_ms"], strict=True)]
    )
    out["throughput_new_vs_old"] = ratio_summary(
        [n / o for n, o in zip(new["commits_per_s"], old["commits_per_s"], strict=True)]
    )
    return out


async def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument(
        "--baseline", required=True, type=_tree, help="a tree holding the older taskforce/"
    )
    parser.add_argument("--pg", default=None)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--processes", type=int, default=8)
    args = parser.parse_args()
    out: dict[str, Any] = {"loadavg_at_start": _load()}
    async with databases(args.workdir, "writers.db", args.pg) as backends:
        for name, url in backends.items():
            out[name] = await compare(url, args.baseline, args.rounds, args.seconds, args.processes)
    out["loadavg_at_end"] = _load()
    return out


if __name__ == "__main__":
    run(main)
