"""Adaptive exposure: a short mission of several steps is offered the planner; one action is not."""

from __future__ import annotations

from typing import Any

import pytest

from taskforce.agent import LeanAgent
from taskforce.testing import ScriptedModel, call, reply


def _tool_names(model: ScriptedModel) -> set[str]:
    return {t["function"]["name"] for t in model.requests[0].tools}


@pytest.mark.parametrize(
    "mission",
    [
        "Multiply 6 by 7, then note the product.",
        "Check the weather in Quito and jot a note about it; after that tell me.",
        "Look up the weather for Lima, Cusco and Arequipa.",
    ],
)
async def test_a_short_mission_of_several_steps_is_offered_the_planner(
    tools: Any, mission: str
) -> None:
    model = ScriptedModel([reply("ok")] * 4)
    await LeanAgent(model=model, tools=tools[0], max_finish_reminders=0).execute(mission)
    assert "planner" in _tool_names(model)


async def test_one_action_with_a_noun_that_looks_like_a_verb_is_not(tools: Any) -> None:
    model = ScriptedModel([reply("ok")])
    await LeanAgent(model=model, tools=tools[0]).execute("Save a note with the text 'email Ann'.")
    assert "planner" not in _tool_names(model)


def _planner_spec(request: Any) -> dict[str, Any] | None:
    found = [t for t in request.tools if t["function"]["name"] == "planner"]
    return found[0]["function"] if found else None


MISSION = "Get the weather in Oslo, then compute 2*21 and save a note with both."


async def test_while_its_plan_is_open_the_planner_is_offered_without_create_plan(
    tools: Any,
) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Compute"]),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1]),
            call("planner", action="create_plan", tasks=["Compute 2*21"]),  # still taken
            call("calculator", expression="2*21"),
            call("planner", action="mark_done", step_index=[2]),
            reply("Oslo 4°C; 42."),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0])
    await agent.execute(MISSION)
    first = _planner_spec(model.requests[0])
    assert (
        first is not None and "create_plan" in first["parameters"]["properties"]["action"]["enum"]
    )
    assert "tasks" in first["parameters"]["properties"]
    for request in model.requests[1:6]:
        working = _planner_spec(request)
        assert working is not None
        assert working["parameters"]["properties"]["action"]["enum"] == [
            "mark_done", "read_plan", "update_plan",
        ]  # fmt: skip
        assert "tasks" not in working["parameters"]["properties"]
        assert "create_plan" not in working["description"]
    assert _planner_spec(model.requests[6]) is None  # the finished plan hides the planner
    # the call the working form does not show still ran: the open step was replaced
    assert agent.planner.plan.render() == "- [x] 1. Weather in Oslo\n- [x] 2. Compute 2*21"


async def test_a_new_mission_beside_an_open_plan_is_offered_create_plan(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Compute"]),
            reply("Stopping here."),
            reply("Stopping here."),
            reply("A new start."),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], max_finish_reminders=0)
    await agent.execute(MISSION, "s")
    assert agent.planner.plan.open_steps()
    await agent.execute("Multiply 6 by 7, then note the product.", "s")
    new_mission = _planner_spec(model.requests[-1])
    assert new_mission is not None
    assert "create_plan" in new_mission["parameters"]["properties"]["action"]["enum"]
