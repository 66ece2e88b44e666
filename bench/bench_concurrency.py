"""Commits per second with 1, 4 and 8 processes on one SQLite file, and on PostgreSQL.

    python bench/bench_concurrency.py WORKDIR [--pg URL] [--seconds S]

Two workloads, each worker a separate process with its own ``StateManager``:

* ``own``: every process edits its own session through a bound ``PlannerTool``
  (``update_plan`` rewording one step of a 10-step plan: one action + one commit);
* ``shared``: every process increments a counter in ONE session: load, +1, save with the
  version it read; a ``StaleStateError`` (another process won) is retried.
* ``planner``: every process edits the plan of ONE session through its own bound
  ``PlannerTool`` (``update_plan`` rewording a step of its own, so no change is invalid
  on the fresh plan): the latency of each call (p50, p99) and how many calls came back to
  the model as a ``conflict`` (a retry inside the planner turns those into successes).

Afterwards the database is checked: for ``own`` each session's version equals 1 + the
commits its worker reported, for ``shared`` the counter equals the sum of all reported
commits. A difference is a lost update. Errors are exceptions other than the expected
``StaleStateError`` (e.g. a surfaced "database is locked"); both must be 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# Workers of bench_writers.py may import an older taskforce tree instead of this one.
sys.path.insert(0, os.environ.get("TASKFORCE_BENCH_SRC") or sys.path[0])

from bench._common import databases, run
from taskforce.errors import StaleStateError
from taskforce.store import StateManager
from taskforce.tools.planner import PlannerTool

PROCESSES = (1, 4, 8)
SRC_ENV = "TASKFORCE_BENCH_SRC"
"""A taskforce source tree the workers import instead of this one (``bench_writers.py``)."""


async def worker(url: str, mode: str, session_id: str, seconds: float) -> dict[str, Any]:
    """One process: set up, say ready, wait for "go" on stdin, commit for `seconds`."""
    commits = conflicts = 0
    errors: list[str] = []
    latencies: list[float] = []
    async with StateManager(url) as sm:
        tool = PlannerTool(state_manager=sm, session_id=session_id.split("#")[0])
        if mode == "planner":
            await tool.execute(action="read_plan")
        elif mode == "own":
            result = await tool.execute(action="create_plan", tasks=[f"t{i}" for i in range(10)])
            assert result["success"], result
        else:
            await sm.load_state(session_id)  # migrate / connect before the clock starts
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            try:
                if mode == "planner":
                    k = worker_index(session_id) + 1 + 8 * (commits % 10)
                    began = time.perf_counter()
                    result = await tool.execute(
                        action="update_plan", step_index=[k], text=f"t{k} rev {commits}"
                    )
                    latencies.append(time.perf_counter() - began)
                    if result.get("error_type") == "conflict":
                        conflicts += 1
                        continue
                    if not result["success"]:
                        errors.append(result["error"])
                        continue
                elif mode == "own":
                    k = commits % 10 + 1
                    result = await tool.execute(
                        action="update_plan", step_index=[k], text=f"t{k} rev {commits}"
                    )
                    if not result["success"]:
                        errors.append(result["error"])
                        continue
                else:
                    state = await sm.load_state(session_id)
                    assert state is not None
                    state["counter"] += 1
                    await sm.save_state(session_id, state)
                commits += 1
            except StaleStateError:
                conflicts += 1
            except Exception as exc:
                errors.append(f"{type(exc).__name__}: {exc}"[:300])
    code = str(Path(sys.modules["taskforce"].__file__ or "").parent)
    return {
        "commits": commits,
        "conflicts": conflicts,
        "errors": errors,
        "latencies": latencies,
        "code": code,
    }


def worker_index(session_id: str) -> int:
    """The worker number carried in a ``planner`` session id (``sid#w``); 0 otherwise."""
    return int(session_id.rsplit("#", 1)[1]) if "#" in session_id else 0


async def check(url: str, mode: str, sessions: list[str], reported: list[int]) -> int:
    """Lost updates: commits reported by workers but missing from the database."""
    async with StateManager(url) as sm:
        if mode == "planner":
            state = await sm.load_state(sessions[0])
            assert state is not None
            return sum(reported) - (state["version"] - 1)  # version 1: the plan created
        if mode == "own":
            lost = 0
            for sid, n in zip(sessions, reported, strict=True):
                state = await sm.load_state(sid)
                assert state is not None
                lost += n - (state["version"] - 1)
            return lost
        state = await sm.load_state(sessions[0])
        assert state is not None
        return sum(reported) - int(state["counter"])


async def measure(
    url: str, mode: str, processes: int, seconds: float, src: str | None = None
) -> dict[str, Any]:
    """One run of `mode` with `processes` workers; `src`: the taskforce tree they import."""
    tag = uuid.uuid4().hex[:8]
    if mode == "own":
        sessions = [f"own-{tag}-{i}" for i in range(processes)]
    elif mode == "planner":
        shared = f"planner-{tag}"
        async with StateManager(url) as sm:
            tool = PlannerTool(state_manager=sm, session_id=shared)
            await tool.execute(action="create_plan", tasks=[f"t{i}" for i in range(1, 81)])
        sessions = [f"{shared}#{i}" for i in range(processes)]
    else:
        sessions = [f"shared-{tag}"] * processes
        async with StateManager(url) as sm:
            await sm.save_state(sessions[0], {"mission": "counter", "counter": 0}, 0)
    argv = [sys.executable, __file__, "--worker", url, mode]
    procs = [
        subprocess.Popen(  # noqa: ASYNC220 (the workers are the point)
            [*argv, sid, str(seconds)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, SRC_ENV: src or ""},
        )
        for sid in sessions
    ]
    if mode == "planner":
        sessions = [shared]
    for proc in procs:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError(f"worker failed to start: {line!r}")
    start = time.perf_counter()
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    results = [json.loads(proc.communicate()[0].strip().splitlines()[-1]) for proc in procs]
    wall = time.perf_counter() - start
    commits = [r["commits"] for r in results]
    lost = await check(url, mode, sessions if mode == "own" else sessions[:1], commits)
    errors = [e for r in results for e in r["errors"]]
    latencies = sorted(x for r in results for x in r["latencies"])
    extra: dict[str, Any] = {}
    if latencies:
        extra = {
            "calls": len(latencies),
            "p50_ms": round(latencies[len(latencies) // 2] * 1000, 2),
            "p99_ms": round(
                latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000, 2
            ),
            "conflicts_shown_to_model": sum(r["conflicts"] for r in results),
        }
    return {
        **extra,
        "code": sorted({r["code"] for r in results}),
        "processes": processes,
        "commits": sum(commits),
        "commits_per_s": round(sum(commits) / seconds, 1),
        "wall_s": round(wall, 2),
        "conflicts_retried": sum(r["conflicts"] for r in results),
        "errors": len(errors),
        "error_samples": errors[:3],
        "lost_updates": lost,
    }


async def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--pg", default=None)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    out: dict[str, Any] = {"seconds_per_run": args.seconds}
    async with databases(args.workdir, "concurrency.db", args.pg) as backends:
        for name, url in backends.items():
            out[name] = {
                mode: [await measure(url, mode, n, args.seconds) for n in PROCESSES]
                for mode in ("own", "shared", "planner")
            }
    return out


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        _, _, url, mode, sid, secs = sys.argv
        result = asyncio.run(worker(url, mode, sid, float(secs)))
        print(json.dumps(result), flush=True)
    else:
        run(main)
