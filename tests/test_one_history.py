"""One history: the same planner calls leave the same entries whichever door they came through.

The doors: :class:`LeanAgent` (its model makes the calls), a :class:`PlannerTool` bound to a
store, the MCP server (driven by the official client), and a Plan.md import of the plan
those calls made. Each writes to its own session of one real SQLite file; their histories
are compared entry by entry. Only what depends on the moment is left out: times and
durations, and how the entries are grouped into session versions.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from taskforce.agent import LeanAgent
from taskforce.documents import export_plan_md, import_plan_md
from taskforce.mcp import build_server
from taskforce.store import HistoryEntry, MemoryStore, SessionStore, StateManager
from taskforce.testing import ScriptedModel, call, reply
from taskforce.tools import PlannerTool

CALLS: list[dict[str, Any]] = [
    {"action": "create_plan", "tasks": ["Research", "Draft", "Review", "Publish"]},
    {"action": "mark_done", "step_index": 1, "note": "3 sources"},
    {"action": "mark_done", "step_index": 2, "status": "SKIPPED", "note": "not needed"},
    {"action": "mark_done", "step_index": 3, "status": "IN_PROGRESS"},
]
EXPECTED_KINDS = ["plan_created", "step_completed", "step_skipped", "step_started"]


def entries(history: list[HistoryEntry]) -> list[tuple[Any, ...]]:
    moment = {"duration_s"}  # depends on the clock, not on the door
    return [
        (
            h.kind,
            h.step_id,
            h.from_status,
            h.to_status,
            h.note,
            {k: v for k, v in h.data.items() if k not in moment},
        )
        for h in history
    ]


async def through_the_agent(store: SessionStore) -> None:
    script = [call("planner", **args) for args in CALLS] + [reply("Published nothing yet.")]
    agent = LeanAgent(
        ScriptedModel(script), state_manager=store, plan_first=False, max_finish_reminders=0
    )
    await agent.execute("Write and publish the post", session_id="agent")


async def through_a_bound_planner(store: SessionStore) -> None:
    tool = PlannerTool(state_manager=store, session_id="bound")
    for args in CALLS:
        assert (await tool.execute(**args))["success"]


async def through_mcp(store: StateManager) -> None:
    async with Client(build_server(store=store, session_id="mcp")) as client:
        for args in CALLS:
            name = args["action"]
            result = await client.call_tool(name, {k: v for k, v in args.items() if k != "action"})
            assert not result.is_error, result


async def through_an_import(store: SessionStore) -> None:
    await through_a_bound_planner(store)  # the plan the calls made, written as Plan.md ...
    text = await export_plan_md(store, "bound")
    assert await import_plan_md(store, text, session_id="imported") == "imported"  # ... read


@pytest.fixture
async def sqlite(tmp_path: Path) -> AsyncIterator[StateManager]:
    async with StateManager(f"sqlite+aiosqlite:///{tmp_path / 'history.db'}") as store:
        yield store


async def test_every_door_leaves_the_same_history(sqlite: StateManager) -> None:
    await through_the_agent(sqlite)
    await through_mcp(sqlite)
    await through_an_import(sqlite)  # also writes the bound planner's session
    histories = {sid: entries(await sqlite.get_history(sid)) for sid in (
        "agent", "bound", "mcp", "imported",
    )}  # fmt: skip
    reference = histories["bound"]
    assert [e[0] for e in reference] == EXPECTED_KINDS
    assert reference[1] == ("step_completed", "s1", "PENDING", "DONE", "3 sources", {"step": 1})
    for door, history in histories.items():
        assert history == reference, door


async def test_the_in_memory_store_keeps_the_same_history(sqlite: StateManager) -> None:
    memory = MemoryStore()
    await through_the_agent(memory)
    await through_an_import(memory)
    await through_a_bound_planner(sqlite)
    reference = entries(await sqlite.get_history("bound"))
    for sid in ("agent", "bound", "imported"):
        assert entries(await memory.get_history(sid)) == reference, sid
