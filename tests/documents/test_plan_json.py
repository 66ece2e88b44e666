"""JSON plan sources imported like a Plan.md: a plan contract payload (seed 003) and goals
planned by the table-driven rule planner (seed 004), through the same door and rules."""

from __future__ import annotations

import json
from typing import Any

import pytest

from taskforce.documents import import_plan_md
from taskforce.errors import UserError
from taskforce.store import MemoryStore

PAYLOAD: dict[str, Any] = {
    "goal": "Greet the user at the right time",
    "steps": [
        {"step_id": "step_1", "description": "Read the clock", "tool": "get_time",
         "depends_on": [], "deliverable": "the current time"},
        {"step_id": "step_2", "description": "Greet", "tool": "echo_tool",
         "depends_on": ["step_1"], "deliverable": "a greeting", "requires_approval": True},
    ],
}  # fmt: skip


async def test_a_contract_payload_becomes_a_session_plan() -> None:
    store = MemoryStore()
    sid = await import_plan_md(store, json.dumps(PAYLOAD), session_id="greet")
    state = await store.load_state(sid)
    assert state is not None and state["mission"] == PAYLOAD["goal"]
    tasks = state["plan"]["tasks"]
    assert [t["description"] for t in tasks] == ["Read the clock", "Greet"]
    assert tasks[1]["depends_on"] == ["s1"] and tasks[1]["requires_approval"] is True
    assert tasks[0]["tool"] == "get_time" and tasks[1]["deliverable"] == "a greeting"
    history = await store.get_history(sid)
    assert [(h.kind, h.data.get("steps")) for h in history] == [("plan_created", 2)]


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"steps": [{**PAYLOAD["steps"][1], "step_id": "step_2"}]}, "numbering must start"),
        ({"steps": [{**PAYLOAD["steps"][0], "tool": "rm_rf"}]}, "not in the whitelist"),
        ({"extra": 1}, "extra field"),
    ],
)
async def test_a_payload_that_breaks_the_contract_changes_nothing(
    change: dict[str, Any], fragment: str
) -> None:
    store = MemoryStore()
    with pytest.raises(UserError, match=fragment):
        await import_plan_md(store, json.dumps({**PAYLOAD, **change}), session_id="x")
    assert await store.load_state("x") is None


async def test_the_tool_whitelist_can_be_given_with_the_payload() -> None:
    payload = {**PAYLOAD, "tools": ["get_time", "echo_tool", "send_mail"]}
    payload["steps"] = [*PAYLOAD["steps"][:1], {**PAYLOAD["steps"][1], "tool": "send_mail"}]
    sid = await import_plan_md(MemoryStore(), json.dumps(payload), session_id="mail")
    assert sid == "mail"


async def test_goals_are_planned_by_the_rule_table() -> None:
    goals = {
        "objective": "Open the docs and wait for the login form",
        "goals": [
            {"domain": "browser", "verb": "navigate", "params": {"url": "https://docs.example"}},
            {"domain": "browser", "verb": "wait", "params": {"selector": "#login"},
             "goal_id": "g1", "scope": "after:g0"},
        ],
    }  # fmt: skip
    store = MemoryStore()
    sid = await import_plan_md(store, json.dumps(goals))
    assert sid.startswith("plan-")
    state = await store.load_state(sid)
    assert state is not None and state["mission"] == goals["objective"]
    tasks = state["plan"]["tasks"]
    assert [t["description"] for t in tasks] == [
        "navigate:https://docs.example",
        "wait:#login:visible",
    ]
    assert tasks[1]["depends_on"] == ["s1"]
    assert tasks[0]["action"]["intent"] == "browser_control"


@pytest.mark.parametrize(
    ("goals", "fragment"),
    [
        ([{"domain": "browser", "verb": "fly", "params": {}}], "rule_not_found"),
        ([{"domain": "browser", "verb": "navigate", "params": {}}], "validation_failed"),
        ([{"domain": "browser"}], "needs a text 'verb'"),
    ],
)
async def test_goals_the_rules_refuse_change_nothing(goals: list[Any], fragment: str) -> None:
    store = MemoryStore()
    with pytest.raises(UserError, match=fragment):
        await import_plan_md(store, json.dumps({"goals": goals}), session_id="g")
    assert await store.load_state("g") is None


async def test_json_that_is_neither_source_is_refused() -> None:
    with pytest.raises(UserError, match='"steps" \\(a plan contract\\) or "goals"'):
        await import_plan_md(MemoryStore(), '{"hello": 1}')
    with pytest.raises(UserError, match="not valid JSON"):
        await import_plan_md(MemoryStore(), "{nope")
