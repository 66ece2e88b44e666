"""A model told to answer that only repeats its calls (written as text) ends the run."""

from __future__ import annotations

import json
from typing import Any

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.prompts import STUCK, STUCK_DONE
from taskforce.models.base import Message, ModelResponse, ToolSpec
from taskforce.testing import FunctionModel, call, reply


def written(name: str, **arguments: Any) -> ModelResponse:
    """A call written as fenced JSON text, as small models do when offered no tools."""
    return reply(f"```json\n{json.dumps({'name': name, 'arguments': arguments})}\n```")


def looping(*first: ModelResponse, again: ModelResponse) -> FunctionModel:
    """Replies `first` in turn, then repeats `again`; written as text when no tools."""
    script = list(first)

    def answer(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        if script:
            return script.pop(0)
        if not tools:
            (c,) = again.tool_calls
            return written(c.name, **json.loads(c.arguments))
        return again

    return FunctionModel(answer)


async def test_repeats_after_the_forced_answer_end_the_run_early(tools: Any) -> None:
    tool_list, log = tools
    model = looping(again=call("weather", city="Oslo"))
    agent = LeanAgent(model=model, tools=tool_list, planning=False, max_steps=30)
    result = await agent.execute("What is the weather in Oslo?")
    assert result.status is AgentStatus.MAX_STEPS and result.final_message == STUCK
    assert log["calls"] == [("weather", "Oslo")]  # the written repeat did not run
    assert result.steps < 10  # stopped at the forced answer, not at max_steps


async def test_a_finished_plan_then_repeats_is_completed_with_the_last_words(tools: Any) -> None:
    tool_list, log = tools
    model = looping(
        call("planner", action="create_plan", tasks=["Weather in Oslo", "Save a note"]),
        call("weather", city="Oslo"),
        call("planner", action="mark_done", step_index=[1]),
        reply("Oslo has 4°C and rain."),  # sent back: step 2 is open
        call("notes", text="Oslo: 4°C, rain"),
        call("planner", action="mark_done", step_index=[2]),
        again=call("notes", text="Oslo: 4°C, rain"),
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False, max_steps=30)
    result = await agent.execute("Weather in Oslo, then save it in a note")
    assert result.status is AgentStatus.COMPLETED and result.open_steps == ()
    assert result.final_message == "Oslo has 4°C and rain."
    assert log["notes"] == ["Oslo: 4°C, rain"] and result.steps < 15


async def test_without_words_a_finished_plan_says_so(tools: Any) -> None:
    model = looping(
        call("planner", action="create_plan", tasks=["Weather in Oslo", "Weather in Rome"]),
        call("weather", city="Oslo"),
        call("planner", action="mark_done", step_index=[1]),
        call("weather", city="Rome"),
        call("planner", action="mark_done", step_index=[2]),
        again=call("weather", city="Rome"),
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, max_steps=30)
    result = await agent.execute("Weather in Oslo and in Rome")
    assert result.status is AgentStatus.COMPLETED and result.final_message == STUCK_DONE


async def test_a_new_call_written_on_the_forced_turn_still_runs(tools: Any) -> None:
    tool_list, log = tools
    turns = iter([call("weather", city="Oslo")] * 7)

    def answer(messages: list[Message], specs: list[ToolSpec]) -> ModelResponse:
        if not specs:  # told to answer: it writes a new call (progress), then answers
            return written("notes", text="Oslo") if not log["notes"] else reply("Saved.")
        return next(turns, reply("Saved."))

    agent = LeanAgent(model=FunctionModel(answer), tools=tool_list, planning=False)
    result = await agent.execute("Weather in Oslo, then save it in a note")
    assert log["notes"] == ["Oslo"]
    assert result.status is AgentStatus.COMPLETED and result.final_message == "Saved."


async def test_once_the_plan_is_finished_one_turn_of_repeats_brings_the_forced_answer(
    tools: Any,
) -> None:
    offered: list[int] = []  # how many tools each request offered

    def answer(messages: list[Message], specs: list[ToolSpec]) -> ModelResponse:
        offered.append(len(specs))
        if not specs:
            return reply("Oslo 4°C, Rome 20°C.")
        script = [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Weather in Rome"]),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1]),
            call("weather", city="Rome"),
            call("planner", action="mark_done", step_index=[2]),
        ]
        return script[len(offered) - 1] if len(offered) <= len(script) else script[3]

    agent = LeanAgent(model=FunctionModel(answer), tools=tools[0], plan_first=False)
    result = await agent.execute("Weather in Oslo and in Rome")
    assert result.status is AgentStatus.COMPLETED and result.final_message == "Oslo 4°C, Rome 20°C."
    assert offered[-1] == 0 and len(offered) == 7  # 5 turns of work, 1 of repeats, the answer
    # without a plan, the same repeats are nudged twice before the forced answer
    offered.clear()
    plain = LeanAgent(model=FunctionModel(answer), tools=tools[0], planning=False)
    result = await plain.execute("Weather in Oslo and in Rome")
    assert result.final_message == "Oslo 4°C, Rome 20°C." and len(offered) > 7
