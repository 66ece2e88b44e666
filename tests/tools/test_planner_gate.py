"""Approval flags are sticky (13.5): what the planner's gate asks a human for, call by call."""

from __future__ import annotations

from typing import Any

import pytest

from taskforce.tools import PlannerTool

DEPLOY = {"description": "Deploy to prod", "requires_approval": True}


async def gated_plan() -> PlannerTool:
    """A plan whose step 2 (open) needs a human's approval."""
    tool = PlannerTool()
    result = await tool.execute(action="create_plan", tasks=["Build", DEPLOY, "Announce"])
    assert result["success"], result
    return tool


def gate_of(tool: PlannerTool, approved: tuple[str, ...] = (), **params: Any) -> str | None:
    found = tool.gate(tool.decode(params), tool.plan, approved)
    return None if found is None else found.preview


@pytest.mark.parametrize(
    ("params", "preview"),
    [
        ({"action": "mark_done", "step_index": 2}, "mark done plan step 2. Deploy to prod"),
        (
            {"action": "mark_done", "step_index": 2, "status": "IN_PROGRESS"},
            "start plan step 2. Deploy to prod",
        ),
        (
            {"action": "mark_done", "step_index": 2, "status": "SKIPPED"},
            "skip plan step 2. Deploy to prod",
        ),
        (
            {"action": "mark_done", "step_index": 2, "status": "FAILED"},
            "mark failed plan step 2. Deploy to prod",
        ),
        # replacing the plan without the flag, or without the step at all
        (
            {"action": "create_plan", "tasks": ["Build", "Deploy to prod", "Announce"]},
            "drop plan step 2. Deploy to prod",
        ),
        ({"action": "create_plan", "tasks": ["Announce"]}, "drop plan step 2. Deploy to prod"),
        # removing it, also when it is added back unflagged in the same call
        ({"action": "update_plan", "remove_indices": [2]}, "drop plan step 2. Deploy to prod"),
        (
            {"action": "update_plan", "remove_indices": [2], "add_steps": ["Deploy to prod"]},
            "drop plan step 2. Deploy to prod",
        ),
        (
            {"action": "update_plan", "step_index": 2, "text": "Look at prod"},
            "reword plan step 2. Deploy to prod",
        ),
    ],
)
async def test_every_way_around_a_gated_step_needs_a_human(
    params: dict[str, Any], preview: str
) -> None:
    tool = await gated_plan()
    assert gate_of(tool, **params) == preview


@pytest.mark.parametrize(
    "params",
    [
        {"action": "read_plan"},
        {"action": "mark_done", "step_index": 1},
        {"action": "mark_done", "step_index": 3, "status": "SKIPPED"},
        {"action": "update_plan", "add_steps": ["Write the changelog"]},
        {"action": "update_plan", "remove_indices": [3]},
        {"action": "update_plan", "step_index": 1, "text": "Build it"},
        # a new plan carrying the step over, still flagged, keeps the gate on the new step
        {"action": "create_plan", "tasks": ["Test", {**DEPLOY, "description": "deploy to PROD"}]},
        {"action": "update_plan", "remove_indices": [2], "add_steps": [DEPLOY]},
        # a call the plan refuses is not sent to a human: it fails as usual
        {"action": "mark_done", "step_index": 9},
    ],
)
async def test_calls_that_leave_the_gate_in_place_need_none(params: dict[str, Any]) -> None:
    tool = await gated_plan()
    assert gate_of(tool, **params) is None


async def test_an_approved_or_finished_step_is_not_asked_again() -> None:
    tool = await gated_plan()
    step = tool.plan.steps[1].id
    assert gate_of(tool, (step,), action="update_plan", remove_indices=[2]) is None
    tool = await gated_plan()
    assert (await tool.execute(action="mark_done", step_index=2))["success"]  # no agent here
    assert gate_of(tool, action="create_plan", tasks=["Something else"]) is None


async def test_one_carried_step_stands_in_for_one_dropped_step() -> None:
    tool = PlannerTool()
    twice = ["Build", DEPLOY, {**DEPLOY, "depends_on": [1]}]  # not a mere repeat: kept
    assert (await tool.execute(action="create_plan", tasks=twice))["success"]
    preview = gate_of(tool, action="create_plan", tasks=["Build", DEPLOY, "Deploy to prod"])
    assert preview == "drop plan step 3. Deploy to prod"
    found = tool.gate(tool.decode({"action": "create_plan", "tasks": ["x"]}), tool.plan, ())
    assert found is not None and found.step_ids == ("s2", "s3")
    assert found.preview == "drop plan step 2. Deploy to prod; 3. Deploy to prod"
