"""Subprocess worker for the crash and concurrency tests (run as a script, not collected).

    python worker.py plan URL SID        # deterministic planner actions forever; prints
                                         # the session version after each commit
    python worker.py add URL SID TAG N   # N `update_plan add_steps` on a shared session,
                                         # retrying conflicts; prints a JSON summary

The ``plan`` worker's next action is a function of the stored plan only (:func:`next_call`),
and its clock is fixed, so any number of killed and restarted workers produce exactly the
states and history of one uninterrupted run: the test replays that run to compare.
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: make `taskforce` and `tests` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from taskforce.plan import DEFAULT_LIMITS, PlanLimits
from taskforce.store import StateManager
from taskforce.tools.planner import PlannerTool

FIXED_NOW = datetime(2026, 1, 1, tzinfo=UTC)
ADD_LIMITS = PlanLimits(max_steps=5000)


def next_call(state: dict[str, Any]) -> dict[str, Any]:
    """The action the ``plan`` worker takes next, given the current plan state."""
    tasks = state.get("tasks", [])
    version = state.get("version", 0)
    open_ = [i for i, t in enumerate(tasks, 1) if t["status"] in ("PENDING", "IN_PROGRESS")]
    if not open_:
        return {"action": "create_plan", "tasks": [f"round step {i}" for i in range(1, 6)]}
    if version % 7 == 3:
        return {"action": "update_plan", "add_steps": [f"extra {version}"], "insert_at": open_[0]}
    pending = [i for i in open_ if tasks[i - 1]["status"] == "PENDING"]
    if version % 11 == 5 and len(pending) > 1:
        return {"action": "update_plan", "remove_indices": [pending[-1]]}
    active = [i for i in open_ if tasks[i - 1]["status"] == "IN_PROGRESS"]
    if active:
        return {"action": "mark_done", "step_index": active, "note": f"done at v{version}"}
    return {"action": "mark_done", "step_index": [open_[0]], "status": "IN_PROGRESS"}


def planner(sm: StateManager, session_id: str, limits: PlanLimits | None = None) -> PlannerTool:
    """A planner bound to the session, with the fixed clock."""
    return PlannerTool(
        state_manager=sm,
        session_id=session_id,
        clock=lambda: FIXED_NOW,
        limits=limits or DEFAULT_LIMITS,
    )


async def plan_forever(url: str, session_id: str) -> None:
    async with StateManager(url) as sm:
        tool = planner(sm, session_id)
        await tool.execute(action="read_plan")  # load the stored plan
        while True:
            result = await tool.execute(**next_call(tool.get_state()))
            if not result["success"]:
                raise SystemExit(f"unexpected refusal: {result}")
            state = await sm.load_state(session_id)
            assert state is not None
            print(state["version"], flush=True)


async def add_steps(url: str, session_id: str, tag: str, count: int) -> dict[str, Any]:
    added = conflicts = 0
    errors: list[str] = []
    async with StateManager(url) as sm:
        tool = planner(sm, session_id, ADD_LIMITS)
        while added < count:
            result = await tool.execute(action="update_plan", add_steps=[f"{tag} {added}"])
            if result["success"]:
                added += 1
            elif result.get("error_type") == "conflict":
                conflicts += 1
            else:
                errors.append(f"{result.get('error_type')}: {result.get('error')}")
                if len(errors) > 20:
                    break
    return {"added": added, "conflicts": conflicts, "errors": errors}


if __name__ == "__main__":
    command, url, sid, *rest = sys.argv[1:]
    if command == "plan":
        asyncio.run(plan_forever(url, sid))
    elif command == "add":
        summary = asyncio.run(add_steps(url, sid, rest[0], int(rest[1])))
        print(json.dumps(summary), flush=True)
    else:
        raise SystemExit(f"unknown command {command!r}")
