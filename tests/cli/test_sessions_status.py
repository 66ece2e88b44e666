"""`sessions` and `sessions --summary` show the same status, also for sessions made by a
bare planner (the MCP server and the adapters store no status of their own)."""

from __future__ import annotations

import asyncio
import json

from taskforce.store import StateManager
from taskforce.tools.planner import PlannerTool
from tests.cli.conftest import Invoke


def _planner_sessions(url: str) -> None:
    async def go() -> None:
        async with StateManager(url) as store:
            for sid, marks in (("fresh", []), ("half", [1]), ("done", [1, 2])):
                planner = PlannerTool()
                planner.bind(store, sid)  # what the MCP server does per session
                await planner.execute(action="create_plan", tasks=["One", "Two"])
                for number in marks:
                    await planner.execute(action="mark_done", step_index=[number])
            await store.save_state("agent", {"mission": "m", "status": "max_steps"})

    asyncio.run(go())


def test_one_status_in_every_listing(cli: Invoke, db_url: str) -> None:
    _planner_sessions(db_url)
    listed = {r["session_id"]: r["status"] for r in json.loads(cli("sessions", "--json").stdout)}
    summary = json.loads(cli("sessions", "--summary", "--json").stdout)
    assert listed == {r["id"]: r["status"] for r in summary["plans"]}
    assert listed == {
        "fresh": "pending", "half": "running", "done": "completed", "agent": "max_steps",
    }  # fmt: skip
    table = cli("sessions").stdout
    for sid, status in listed.items():
        row = next(line for line in table.splitlines() if f" {sid} " in line)
        assert f" {status} " in row
    board = cli("sessions", "--summary").stdout
    for sid, status in listed.items():
        assert f" {status} " in next(line for line in board.splitlines() if f" {sid} " in line)
    assert summary["completed_plans"] == 1 and summary["active_plans"] == 3
    shown = cli("plan", "show", "half").stdout.splitlines()[0]
    assert shown == "half · running · 1/2 done"  # and the session's own view agrees
