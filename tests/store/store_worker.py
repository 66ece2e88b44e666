"""Subprocess worker for the crash and multi-process tests (run as a script, not collected).

python store_worker.py crash URL          # save deterministic versions forever
python store_worker.py count URL SID N    # N load/modify/save increments, retry on stale
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from taskforce.errors import StaleStateError
from taskforce.store import StateManager


def plan_for(version: int) -> dict[str, Any]:
    """The plan saved as ``version``: its size and statuses are a function of the version."""
    size = 3 + version % 6
    tasks = [
        {
            "id": f"s{i}",
            "description": f"step {i} of v{version // 4}",
            "status": "DONE" if i < version % 4 else "PENDING",
            "note": None,
        }
        for i in range(size)
    ]
    return {"tasks": tasks, "version": version, "next_id": size}


def state_for(version: int) -> dict[str, Any]:
    return {"mission": "crash test", "counter": version, "plan": plan_for(version)}


async def crash(url: str) -> None:
    async with StateManager(url) as sm:
        while True:
            current = await sm.load_state("crash")
            version = 0 if current is None else current["version"]
            new = await sm.save_state(
                "crash",
                state_for(version + 1),
                version,
                messages=[{"v": version + 1}],
                events=[{"kind": "tick", "note": str(version + 1)}],
            )
            print(new, flush=True)


async def count(url: str, session_id: str, times: int) -> None:
    async with StateManager(url) as sm:
        for _ in range(times):
            while True:
                state = await sm.load_state(session_id)
                assert state is not None
                state["counter"] += 1
                try:
                    await sm.save_state(session_id, state, events=[{"kind": "inc"}])
                    break
                except StaleStateError:
                    continue


if __name__ == "__main__":
    mode, url, *rest = sys.argv[1:]
    if mode == "crash":
        asyncio.run(crash(url))
    else:
        asyncio.run(count(url, rest[0], int(rest[1])))
