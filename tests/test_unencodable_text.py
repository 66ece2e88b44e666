"""Unencodable text never reaches storage, whichever door it comes through (issue 13.1).

A lone surrogate is what a small model sends for half an emoji, what Python makes of a
non-UTF-8 byte on the command line (surrogateescape), and what ``"\\ud800"`` decodes to
in JSON. Every door normalises with the one normaliser (``taskforce.plan.scrub``): the
planner's arguments, the agent's mission and the model's messages, a Plan.md import (see
tests/documents/test_plan_md_hostile.py), the store's raw columns. A session that holds
such text already (written before) can still be shown and exported.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from taskforce.agent import LeanAgent
from taskforce.documents import export_plan_md
from taskforce.errors import StatePayloadError
from taskforce.plan import Plan
from taskforce.store import StateManager
from taskforce.testing import ScriptedModel, call, reply
from taskforce.tools import PlannerTool

HALF_EMOJI = "bad \ud83d emoji"
NON_UTF8_ARGV = b"mission \xff with a byte".decode("utf-8", "surrogateescape")


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[StateManager]:
    async with StateManager(f"sqlite+aiosqlite:///{tmp_path / 'text.db'}") as manager:
        yield manager


def all_text(path: Path) -> None:
    """Every TEXT value in the database decodes as UTF-8 (raises otherwise)."""
    conn = sqlite3.connect(path)
    try:
        conn.text_factory = bytes
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'"):
            for row in conn.execute(f"SELECT * FROM {table.decode()}"):
                for value in row:
                    if isinstance(value, bytes):
                        value.decode("utf-8")
    finally:
        conn.close()


def decoded_json_strings(path: Path) -> list[str]:
    """The strings inside every stored JSON body, as a reader gets them back."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(k)
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    conn = sqlite3.connect(path)
    try:
        for table, column in (("tf_steps", "body"), ("tf_messages", "body"),
                              ("tf_history", "body"), ("tf_sessions", "data")):  # fmt: skip
            for (body,) in conn.execute(f"SELECT {column} FROM {table}"):
                walk(json.loads(body))
    finally:
        conn.close()
    return found


def storable(strings: list[str]) -> bool:
    try:
        for text in strings:
            text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


async def test_the_planner_door(store: StateManager, tmp_path: Path) -> None:
    tool = PlannerTool(state_manager=store, session_id="p")
    result = await tool.execute(action="create_plan", tasks=[HALF_EMOJI, "ok"])
    assert result["success"] and "bad \ufffd emoji" in result["output"]
    note = await tool.execute(action="mark_done", step_index=1, note="done \udcff")
    assert note["success"]
    assert storable(decoded_json_strings(tmp_path / "text.db"))
    all_text(tmp_path / "text.db")


async def test_the_agent_door_mission_and_model_text(store: StateManager, tmp_path: Path) -> None:
    model = ScriptedModel([call("planner", action="create_plan", tasks=[HALF_EMOJI]),
                           reply("half an emoji: \ud83d")])  # fmt: skip
    agent = LeanAgent(model, state_manager=store, plan_first=False, max_finish_reminders=0)
    result = await agent.execute(NON_UTF8_ARGV, session_id="a")
    assert result.session_id == "a"
    state = await store.load_state("a")
    assert state is not None and state["mission"] == "mission \ufffd with a byte"
    assert storable(decoded_json_strings(tmp_path / "text.db"))
    all_text(tmp_path / "text.db")
    assert (await store.list_sessions())[0].title == "mission \ufffd with a byte"


async def test_the_store_refuses_an_unencodable_step_id_naming_it(store: StateManager) -> None:
    state = {"plan": {"tasks": [{"id": "s\ud800", "description": "x"}]}}
    with pytest.raises(StatePayloadError, match=r'\["id"\] contains .* lone surrogate'):
        await store.save_state("ids", state)
    await store.save_state("title", {"mission": HALF_EMOJI})  # a listing column: replaced
    assert (await store.list_sessions())[0].title == "bad \ufffd emoji"


async def test_a_session_holding_such_text_can_still_be_shown_and_exported(
    store: StateManager,
) -> None:
    # written as 0.1 wrote it: the JSON keeps the lone surrogate (escaped)
    await store.save_state("old", {"mission": "m", "plan": {"tasks": [
        {"id": "s1", "description": HALF_EMOJI, "status": "DONE", "note": "\udcff"},
    ]}})  # fmt: skip
    state = await store.load_state("old")
    assert state is not None
    plan = Plan.from_state(state["plan"])
    assert plan.render() == "- [x] 1. bad \ufffd emoji — \ufffd"
    exported = await export_plan_md(store, "old")
    exported.encode("utf-8")
    assert "bad \ufffd emoji" in exported
