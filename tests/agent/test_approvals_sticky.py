"""Approval flags are sticky (13.5): the model cannot plan its way around a gated step.

Each run used to end ``completed`` with no pause; now the call that would remove the gate
waits for a human, on a real SQLite file, and the plan stays as it was until one decides.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.plan import Plan
from taskforce.store import StateManager
from taskforce.testing import ScriptedModel, call, reply

MISSION = "Release version 2 to production."
DEPLOY = {"description": "Deploy to prod", "requires_approval": True}


@pytest.fixture
async def sm(tmp_path: Path) -> AsyncIterator[StateManager]:
    async with StateManager(f"sqlite+aiosqlite:///{tmp_path}/sticky.db") as manager:
        yield manager


def agent(model: ScriptedModel, store: StateManager) -> LeanAgent:
    return LeanAgent(
        model=model,
        state_manager=store,
        plan_first=False,
        max_steps=8,
        require_work_before_done=False,
    )  # approvals, not evidence, are tested here


@pytest.mark.parametrize(
    ("bypass", "preview"),
    [
        (
            call("planner", action="create_plan", tasks=["Build", "Deploy to prod"]),
            "drop plan step 2. Deploy to prod",
        ),
        (
            call("planner", action="update_plan", remove_indices=[2], add_steps=["Deploy"]),
            "drop plan step 2. Deploy to prod",
        ),
        (
            call("planner", action="mark_done", step_index=[2], status="SKIPPED"),
            "skip plan step 2. Deploy to prod",
        ),
        (
            call("planner", action="update_plan", step_index=[2], text="Check prod"),
            "reword plan step 2. Deploy to prod",
        ),
    ],
)
async def test_the_model_cannot_remove_an_approval_requirement(
    sm: StateManager, bypass: Any, preview: str
) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Build", DEPLOY]),
            call("planner", action="mark_done", step_index=[1]),
            bypass,
            call("planner", action="mark_done", step_index=[2]),
            reply("Released."),
        ]
    )
    result = await agent(model, sm).execute(MISSION, "s")
    assert result.status is AgentStatus.PAUSED, result
    assert result.pending_approval is not None
    assert result.pending_approval["preview"] == preview
    stored = await sm.load_state("s")
    assert stored is not None and stored["status"] == "paused"
    tasks = stored["plan"]["tasks"]
    assert [(t["description"], t["status"]) for t in tasks] == [
        ("Build", "DONE"), ("Deploy to prod", "PENDING"),
    ]  # fmt: skip
    assert tasks[1]["requires_approval"] is True

    rejected = await agent(model, sm).resume("s", approve=False, note="no")
    assert rejected.status is AgentStatus.PAUSED  # mark_done on it waits again
    assert rejected.pending_approval is not None
    assert rejected.pending_approval["preview"] == "mark done plan step 2. Deploy to prod"


async def test_a_human_gate_from_the_stored_plan_holds_on_resume(sm: StateManager) -> None:
    """A step flagged by a human (Plan.md, the API) is gated for a model that replans."""
    plan = Plan.from_state({"tasks": [DEPLOY]})
    await sm.save_state("human", {"mission": MISSION, "plan": plan.to_state(), "status": "failed"})
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Tell the team"]),
            call("planner", action="mark_done", step_index=[1]),
            reply("Told the team."),
        ]
    )
    result = await agent(model, sm).execute(MISSION, "human")
    assert result.status is AgentStatus.PAUSED
    assert result.pending_approval is not None
    assert result.pending_approval["preview"] == "drop plan step 1. Deploy to prod"

    approved = await agent(model, sm).resume("human", approve=True)
    assert approved.status is AgentStatus.COMPLETED  # the human let the gated step go
    stored = await sm.load_state("human")
    assert stored is not None
    assert [t["description"] for t in stored["plan"]["tasks"]] == ["Tell the team"]


async def test_recreating_the_plan_with_the_flag_keeps_the_gate(sm: StateManager) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Build", DEPLOY]),
            call("planner", action="create_plan", tasks=["Build", "Test", DEPLOY]),
            call("planner", action="mark_done", step_index=[1, 2]),
            call("planner", action="mark_done", step_index=[3]),
            reply("Released."),
        ]
    )
    result = await agent(model, sm).execute(MISSION, "again")
    assert result.status is AgentStatus.PAUSED
    assert result.pending_approval is not None
    assert result.pending_approval["preview"] == "mark done plan step 3. Deploy to prod"
