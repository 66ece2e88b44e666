"""LeanAgent(planning=False): the same loop with no planner tool and no planning prompt."""

from __future__ import annotations

from typing import Any

import pytest

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.prompts import PLAN_HEADER, REMINDER_HEADER
from taskforce.errors import ConfigurationError
from taskforce.testing import ScriptedModel, call, reply
from taskforce.tools.planner import PlannerTool
from tests.agent.helpers import tool_results

MISSION = "Get the weather in Oslo, then compute 2*21 and save a note with both."


async def test_no_planner_tool_no_plan_first_no_planning_prompt(tools: Any) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("weather", city="Oslo"),
            call("calculator", expression="2*21"),
            call("notes", text="Oslo 4C; 42"),
            reply("Done: Oslo 4°C, 42, note saved."),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, planning=False)
    result = await agent.execute(MISSION)

    assert result.status is AgentStatus.COMPLETED
    assert "- [" not in result.plan_markdown  # no checklist: "No active plan."
    assert [c[0] for c in log["calls"]] == ["weather", "calculator", "notes"]
    for request in model.requests:
        assert request.tool_names == ["calculator", "weather", "notes"]
        system = request.messages[0]
        assert system["role"] == "system" and "planner" not in system["content"]
        texts = [str(m.get("content")) for m in request.messages]
        # neither a plan-first reminder nor a plan recitation ever reaches the model
        assert not any(t.startswith((PLAN_HEADER, REMINDER_HEADER)) for t in texts)


async def test_the_default_still_plans_first(tools: Any) -> None:
    model = ScriptedModel([call("weather", city="Oslo"), reply("x"), reply("y"), reply("z")])
    await LeanAgent(model=model, tools=tools[0]).execute(MISSION)
    first = model.requests[0]
    assert first.tool_names == ["planner"]  # plan first: only the planner is offered
    assert "planner" in first.messages[0]["content"]


async def test_a_planner_call_is_an_unknown_tool(tools: Any) -> None:
    model = ScriptedModel([call("planner", action="create_plan", tasks=["a", "b"]), reply("ok")])
    result = await LeanAgent(model=model, tools=tools[0], planning=False).execute(MISSION)
    assert result.status is AgentStatus.COMPLETED
    (error,) = tool_results(model.requests[1].messages).values()
    assert error["success"] is False and error["error_type"] == "unknown_tool"
    assert "- [" not in result.plan_markdown  # no checklist: "No active plan."


@pytest.mark.parametrize(
    "kwargs",
    [
        {"planning": False, "plan_first": True},
        {"planning": False, "tools": [PlannerTool()]},
        {"planning": "no"},
    ],
)
def test_contradictory_options_are_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError, match=r"planning|planner"):
        LeanAgent(model=ScriptedModel(), **kwargs)
