"""An in-memory ``mark_done`` hot, and right after a wait: how much slower it runs cold.

A diagnostic for the durable ratio at 10 steps, not a comparison with peers' writes. Between
two durable ``mark_done`` calls the process waits for the commit's fsync, and the Python that
runs next starts cold (whatever the wait left behind: caches, the CPU's state); here, a plain
sleep stands in for that wait. This times the same in-memory operation of
taskforce (``PlannerTool.execute``, unbound) and of the origin's planner (``OriginPlanner``,
as ``bench_planner.py`` describes it) in three conditions, interleaved per round in a random
order (``_interleave``): hot (a call on the same step made, untimed, just before: taskforce
starts the step, so the timed call is a real change, IN_PROGRESS to DONE, not a repeat), after
a 0.3 ms sleep (about one commit's fsync), and after a 2 ms sleep (those timed calls take a
step from PENDING to DONE). The warm-up calls and the sleeps are not timed.

Prints one JSON object: per condition, each side's median ms and the per-round ratio
taskforce ÷ origin (median and IQR, ``_interleave.compare``), and the rounds' load.

    .venv/bin/python bench/bench_cold.py [--rounds 60] [--steps 10]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import run
from bench._interleave import Contender, compare, interleave
from bench.peers import OriginPlanner, tasks
from taskforce import PlannerTool

OPS = 10
PAUSES = {"hot": 0.0, "after 0.3 ms": 0.0003, "after 2 ms": 0.002}


async def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    n = args.steps
    box: dict[str, Any] = {}

    async def tf_prepare() -> None:
        box["tool"] = tool = PlannerTool()
        created = await tool.execute(action="create_plan", tasks=tasks(n))
        assert created["success"], created

    async def origin_prepare() -> None:
        box["origin"] = OriginPlanner(tasks(n))

    def contenders(pause: float, label: str) -> list[Contender]:
        async def tf_op(j: int) -> float:
            call = {"action": "mark_done", "step_index": [j % n + 1]}
            if pause:
                time.sleep(pause)  # noqa: ASYNC251 - a blocking wait is the point: nothing else runs
            else:
                await box["tool"].execute(**call, status="IN_PROGRESS")
            start = time.perf_counter()
            result = await box["tool"].execute(**call)
            elapsed = time.perf_counter() - start
            assert result["success"], result
            return elapsed

        async def origin_op(j: int) -> float:
            if pause:
                time.sleep(pause)  # noqa: ASYNC251
            else:
                await box["origin"].execute("mark_done", step_index=j % n + 1)
            start = time.perf_counter()
            result = await box["origin"].execute("mark_done", step_index=j % n + 1)
            elapsed = time.perf_counter() - start
            assert result["success"], result
            return elapsed

        return [
            Contender(f"taskforce {label}", tf_prepare, tf_op),
            Contender(f"origin {label}", origin_prepare, origin_op),
        ]

    load_before = os.getloadavg()
    per_round = await interleave(
        [c for label, pause in PAUSES.items() for c in contenders(pause, label)],
        args.rounds,
        OPS,
    )
    load_after = os.getloadavg()
    return {
        "steps": n,
        "rounds": args.rounds,
        "ops_per_round": OPS,
        "conditions": {
            label: compare(
                {side: per_round[f"{side} {label}"] for side in ("taskforce", "origin")},
                "taskforce",
            )
            for label in PAUSES
        },
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after],
    }


if __name__ == "__main__":
    run(main)
