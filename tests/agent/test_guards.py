"""CallGuard: a planner refusal given again for the same reason is churn, counted as a stall."""

from __future__ import annotations

from typing import Any

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.dispatch import Prepared
from taskforce.agent.guards import CallGuard
from taskforce.models.base import ToolCall
from taskforce.plan.requests import ReadPlan
from taskforce.testing import ScriptedModel, call, calls, reply
from taskforce.tools.base import error_result
from tests.agent.helpers import tool_results

PLAN = call("planner", action="create_plan", tasks=["Look up the weather in Oslo", "Save a note"])


def _insert(at: int, step: str = "Save a note") -> Any:
    """A revision that adds a step the plan already has open (refused), at a new place."""
    return call("planner", action="update_plan", add_steps=[step], insert_at=at)


def _result(model: ScriptedModel, request: int, call_id: str) -> dict[str, Any]:
    return tool_results(model.requests[request].messages)[call_id]


def _nudged(model: ScriptedModel) -> list[int]:
    """The requests that end with the stall reminder."""
    return [
        i
        for i, r in enumerate(model.requests)
        if r.messages[-1]["role"] == "user" and "repeating calls" in r.messages[-1]["content"]
    ]


async def test_a_refusal_given_again_says_so_and_two_such_turns_are_a_stall(tools: Any) -> None:
    model = ScriptedModel([PLAN, _insert(1), _insert(2), _insert(3), reply("stopped")])
    agent = LeanAgent(model=model, tools=tools[0], max_steps=5)
    result = await agent.execute("Look up the weather in Oslo, then save a note about it.")
    first = _result(model, 2, "call_2")
    assert first["error_type"] == "plan_error" and "already reads" in first["error"]
    again = _result(model, 3, "call_3")
    assert again["error_type"] == "repeated_call"
    assert again["error"].startswith("Refused again, as before: step 2 already reads")
    assert "do the current step with its tool" in again["error"]
    assert _nudged(model) == [4]  # two turns of refusals given before: one reminder
    assert [s.description for s in result.plan.steps] == [
        "Look up the weather in Oslo",
        "Save a note",
    ]  # nothing added: the plan is exactly as it was


async def test_refusals_for_different_reasons_are_not_churn(tools: Any) -> None:
    model = ScriptedModel(
        [
            PLAN,
            _insert(1),
            _insert(2, "Look up the weather in Oslo"),  # another open step: another reason
            reply("stopped"),
        ]
    )
    await LeanAgent(model=model, tools=tools[0], max_steps=4).execute(
        "Look up the weather in Oslo, then save a note about it."
    )
    assert _result(model, 3, "call_3")["error_type"] == "plan_error"
    assert _nudged(model) == []


async def test_a_plan_change_forgets_the_refusals_before_it(tools: Any) -> None:
    model = ScriptedModel(
        [
            PLAN,
            _insert(1),
            call("planner", action="update_plan", add_steps=["Email Bob"]),  # the plan changes
            _insert(3),
            reply("stopped"),
        ]
    )
    await LeanAgent(model=model, tools=tools[0], max_steps=5).execute(
        "Look up the weather in Oslo, then save a note about it."
    )
    assert _result(model, 4, "call_4")["error_type"] == "plan_error"  # not "refused again"


async def test_a_turn_that_also_works_is_no_stall(tools: Any) -> None:
    weather = call("weather", city="Oslo")
    note = call("notes", text="Oslo is 4°C")
    model = ScriptedModel(
        [PLAN, _insert(1), calls(_insert(2), weather), calls(_insert(3), note), reply("done")]
    )
    await LeanAgent(model=model, tools=tools[0], max_steps=5).execute(
        "Look up the weather in Oslo, then save a note about it."
    )
    assert _result(model, 3, "call_3")["error_type"] == "repeated_call"
    assert _result(model, 4, "call_5")["error_type"] == "repeated_call"
    assert _nudged(model) == []


async def test_churn_that_goes_on_after_two_reminders_must_answer_calling_no_tool(
    tools: Any,
) -> None:
    answer = reply("I could not finish.")
    model = ScriptedModel([PLAN, *[_insert(i) for i in range(1, 6)], *[answer] * 3])
    result = await LeanAgent(model=model, tools=tools[0], max_steps=10).execute(
        "Look up the weather in Oslo, then save a note about it."
    )
    assert _nudged(model) == [4, 6]  # the second reminder, then the request for an answer
    assert model.requests[6].no_calls and model.requests[6].tools == model.requests[5].tools
    assert "plain text" in model.requests[6].messages[-1]["content"]
    assert not any(r.no_calls for r in model.requests[:6])
    assert result.status is AgentStatus.INCOMPLETE  # open steps: never "completed"


def test_a_failure_that_is_not_a_refusal_of_the_call_is_never_churn() -> None:
    guard = CallGuard()
    conflict = error_result("the plan was changed by another writer", "conflict")
    refusal = error_result("step 9 does not exist", "plan_error")
    seen = []
    for result in (conflict, conflict, refusal, refusal):
        item = Prepared(ToolCall("c", "planner", "{}"), {}, signature="s", request=ReadPlan())
        seen.append(guard.record(item, result)["error_type"])
    assert seen == ["conflict", "conflict", "plan_error", "repeated_call"]
