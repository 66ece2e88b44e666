"""A reply that repeats the loop's own plan recitation or reminder is not a final answer."""

from __future__ import annotations

from typing import Any

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.prompts import PLAN_HEADER, REMINDER_HEADER, is_echo
from taskforce.testing import ScriptedModel, call, reply

ECHO = f"{PLAN_HEADER}\n- [ ] 1. Multiply\n- [ ] 2. Note\nDo now: step 2. Note"


async def test_an_echoed_recitation_is_dropped_and_the_model_is_told_the_step(
    tools: Any,
) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Multiply", "Note"]),
            call("calculator", expression="6 * 7"),
            reply(ECHO),  # the plan copied back instead of marking step 1 done
            call("planner", action="mark_done", step_index=[1]),
            call("notes", text="42"),
            call("planner", action="mark_done", step_index=[2]),
            reply("The product is 42; noted."),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False)
    result = await agent.execute("Multiply 6 by 7, then note the product.")
    assert result.status is AgentStatus.COMPLETED
    assert result.final_message == "The product is 42; noted." and log["notes"] == ["42"]
    after_echo = model.requests[3].messages
    assert not any(m["role"] == "assistant" and m.get("content") == ECHO for m in after_echo)
    reminder = after_echo[-1]["content"]
    assert reminder.startswith(REMINDER_HEADER) and "The current step is 1. Multiply" in reminder
    assert "step_index=[1]" in reminder


async def test_a_model_that_only_echoes_never_completes(tools: Any) -> None:
    model = ScriptedModel(
        [call("planner", action="create_plan", tasks=["Multiply", "Note"])] + [reply(ECHO)] * 9
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, max_steps=6)
    result = await agent.execute("Multiply 6 by 7, then note the product.")
    assert result.status is AgentStatus.MAX_STEPS  # never "completed" with the plan as answer


async def test_without_a_plan_an_echoed_reminder_asks_for_a_call_or_an_answer(
    tools: Any,
) -> None:
    model = ScriptedModel(
        [reply(f"{REMINDER_HEADER} Your reply was empty."), reply("Oslo: 4°C, rain")]
    )
    result = await LeanAgent(model=model, tools=tools[0], planning=False).execute("Oslo?")
    assert result.final_message == "Oslo: 4°C, rain"
    reminder = model.requests[1].messages[-1]["content"]
    assert "tool call or the final answer" in reminder and "planner" not in reminder


def test_is_echo() -> None:
    assert is_echo(ECHO) and is_echo(f"ok {REMINDER_HEADER} x")
    assert not is_echo("The plan: 1. multiply 2. note") and not is_echo(None)
