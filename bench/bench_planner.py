"""Planner action latency: in memory, and with its durable commit at 10, 100 and 1,000 steps.

    python bench/bench_planner.py WORKDIR [--pg URL] [--samples N]

* in memory, 20 steps: ``read_plan`` and ``mark_done`` on an unbound ``PlannerTool``;
* durable: ``mark_done`` on a ``PlannerTool`` bound to a ``StateManager`` session (SQLite
  file, WAL, ``synchronous=FULL``; and PostgreSQL when ``--pg`` is given): the action plus
  its commit, which returns only once the change is on disk;
* the peers (``bench/peers.py``) doing their own durable write for the same plan.

Prints one JSON object: medians (ms) per backend and plan size, and the growth ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import PgDatabase, ratio, run, summary, time_async
from bench.peers import PEERS, make_peer
from taskforce.plan import Plan
from taskforce.store import StateManager
from taskforce.tools.base import tool_spec_size
from taskforce.tools.planner import PlannerTool

SIZES = (10, 100, 1000)


def tasks(n: int) -> list[str]:
    return [f"Step {i}: do the thing number {i} carefully" for i in range(1, n + 1)]


async def in_memory(samples: int) -> dict[str, Any]:
    tool = PlannerTool()
    await tool.execute(action="create_plan", tasks=tasks(20))
    fresh = tool.get_state()

    async def read() -> None:
        result = await tool.execute(action="read_plan")
        assert result["success"], result

    counter = iter(range(10**9))

    async def mark() -> None:
        i = next(counter) % 20
        if i == 0:
            tool.set_state(fresh)
        result = await tool.execute(action="mark_done", step_index=[i + 1])
        assert result["success"], result

    read_s = await time_async(read, samples * 5)
    mark_s = await time_async(mark, samples * 5)
    return {"steps": 20, "read_plan": summary(read_s), "mark_done": summary(mark_s)}


async def in_memory_by_size(n: int, samples: int) -> dict[str, Any]:
    """``mark_done`` without a store at n steps: the planner's own share of the durable cost."""
    tool = PlannerTool()
    await tool.execute(action="create_plan", tasks=tasks(n))
    fresh = tool.get_state()
    per_plan = min(n, 40)
    counter = iter(range(10**9))

    async def mark() -> None:
        i = next(counter) % per_plan
        if i == 0:
            tool.set_state(fresh)
        result = await tool.execute(action="mark_done", step_index=[i + 1])
        assert result["success"], result

    return summary(await time_async(mark, samples))


async def durable(sm: StateManager, n: int, samples: int) -> dict[str, Any]:
    """Median of ``mark_done`` + commit on an n-step plan (fresh sessions as needed)."""
    per_session = min(n, 40)
    times: list[float] = []
    while len(times) < samples:
        tool = PlannerTool(state_manager=sm, session_id=f"bench-{n}-{uuid.uuid4().hex[:8]}")
        created = await tool.execute(action="create_plan", tasks=tasks(n))
        assert created["success"], created
        for index in range(1, per_session + 1):
            start = asyncio.get_running_loop().time()
            result = await tool.execute(action="mark_done", step_index=[index])
            times.append(asyncio.get_running_loop().time() - start)
            assert result["success"], result
    return summary(times[:samples])


async def peer_commit(name: str, workdir: Path, n: int, samples: int) -> dict[str, Any]:
    """The peer's durable write of the same plan after each ``mark_done``."""
    plan_tool = PlannerTool()
    await plan_tool.execute(action="create_plan", tasks=tasks(n))
    peer = make_peer(name, workdir / "peers")
    times: list[float] = []
    try:
        for i in range(samples + 3):
            index = i % n + 1
            if index == 1 and i:
                await plan_tool.execute(action="create_plan", tasks=tasks(n))
            start = asyncio.get_running_loop().time()
            result = await plan_tool.execute(action="mark_done", step_index=[index])
            await peer.step(plan_tool.get_state(), Plan.render(plan_tool.plan))
            elapsed = asyncio.get_running_loop().time() - start
            assert result["success"], result
            if i >= 3:
                times.append(elapsed)
    finally:
        await peer.close()
    return {"version": peer.version, **summary(times)}


async def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--pg", default=None)
    parser.add_argument("--samples", type=int, default=60)
    args = parser.parse_args()
    workdir: Path = args.workdir
    workdir.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240
    out: dict[str, Any] = {
        "tool_spec_size_chars": tool_spec_size(PlannerTool()),
        "in_memory": await in_memory(args.samples),
        "in_memory_by_size": {str(n): await in_memory_by_size(n, args.samples) for n in SIZES},
        "durable": {},
        "peers": {},
    }
    backends = {"sqlite": f"sqlite+aiosqlite:///{workdir / 'planner.db'}"}
    pg = PgDatabase(args.pg) if args.pg else None
    if pg is not None:
        backends["postgresql"] = await pg.create()
    try:
        for name, url in backends.items():
            async with StateManager(url) as sm:
                out["durable"][name] = {str(n): await durable(sm, n, args.samples) for n in SIZES}
    finally:
        if pg is not None:
            await pg.drop()
    for peer in PEERS:
        try:
            out["peers"][peer] = {
                str(n): await peer_commit(peer, workdir, n, args.samples) for n in SIZES
            }
        except ImportError as exc:
            out["peers"][peer] = {"error": f"not installed: {exc}"}
        except Exception as exc:  # a peer that installs but fails here is reported, not hidden
            out["peers"][peer] = {"error": f"{type(exc).__name__}: {exc}"}
    growth: dict[str, Any] = {}
    for name, rows in [*out["durable"].items(), *out["peers"].items()]:
        if "error" not in rows:
            growth[name] = ratio(rows["1000"]["median_ms"], rows["10"]["median_ms"])
    out["growth_1000_vs_10"] = growth
    sqlite_rows = out["durable"]["sqlite"]
    out["taskforce_vs_peer"] = {
        peer: {n: ratio(sqlite_rows[n]["median_ms"], rows[n]["median_ms"]) for n in map(str, SIZES)}
        for peer, rows in out["peers"].items()
        if "error" not in rows
    }
    return out


if __name__ == "__main__":
    run(main)
