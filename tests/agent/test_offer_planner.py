"""Adaptive exposure: a short mission of several steps is offered the planner; one action is not."""

from __future__ import annotations

from typing import Any

import pytest

from taskforce.agent import LeanAgent
from taskforce.testing import ScriptedModel, call, calls, reply


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
            call("planner", action="create_plan", tasks=["Compute 2*21"]),  # not offered: taken
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
    for index in (2, 3, 4, 5):  # mark and revise, no create
        working = _planner_spec(model.requests[index])
        assert working is not None
        assert working["parameters"]["properties"]["action"]["enum"] == [
            "mark_done", "read_plan", "update_plan",
        ]  # fmt: skip
        assert "tasks" not in working["parameters"]["properties"]
        assert "create_plan" not in working["description"]
    assert _planner_spec(model.requests[1]) is None  # the new plan's first step waits for work
    assert _planner_spec(model.requests[6]) is None  # the finished plan hides the planner
    # the call the working form does not show still ran: the open step was replaced
    assert agent.planner.plan.render() == "- [x] 1. Weather in Oslo\n- [x] 2. Compute 2*21"


def _offered(model: ScriptedModel) -> list[bool]:
    return [_planner_spec(request) is not None for request in model.requests]


async def test_a_new_plans_first_step_is_worked_on_without_the_planner_offered(
    tools: Any,
) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Compute 2*21"]),
            call("planner", action="mark_done", step_index=[1]),  # not shown, still taken
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1]),
            call("calculator", expression="2*21"),  # a later step: the planner stays shown
            call("planner", action="mark_done", step_index=[2]),
            reply("Oslo 4°C; 42."),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0])
    result = await agent.execute(MISSION)
    assert _offered(model) == [True, False, True, True, True, True, False]
    tools_shown = [request.tool_names for request in model.requests]
    assert tools_shown[1] == [n for n in tools_shown[2] if n != "planner"]  # the rest, in order
    refusal = model.requests[2].messages[-1]  # the call made while not shown was screened
    assert refusal["role"] == "tool" and "no_work_done" in str(refusal["content"])
    assert result.status.value == "completed" and not agent.planner.plan.open_steps()


async def test_a_first_step_that_needs_no_tool_keeps_the_planner_offered(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Decide the city", "Weather in Oslo"]),
            call("planner", action="mark_done", step_index=[1]),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[2]),
            reply("Oslo 4°C."),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0])
    await agent.execute(MISSION)
    assert _offered(model) == [True, True, True, True, False]
    assert not agent.planner.plan.open_steps()


async def test_a_tool_that_ran_with_the_new_plan_keeps_the_planner_offered(tools: Any) -> None:
    model = ScriptedModel(
        [
            calls(  # step 1's tool ran in the turn that made the plan
                call("planner", action="create_plan", tasks=["Weather in Oslo", "Compute 2*21"]),
                call("weather", city="Oslo"),
            ),
            call("planner", action="mark_done", step_index=[1]),
            call("calculator", expression="2*21"),
            call("planner", action="mark_done", step_index=[2]),
            reply("Oslo 4°C; 42."),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False)
    await agent.execute(MISSION)
    assert _offered(model) == [True, True, True, True, False]
    assert not agent.planner.plan.open_steps()


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
