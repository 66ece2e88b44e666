"""A model told to answer that only repeats its calls (written as text) ends the run."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.stuck import ANSWER_SYSTEM, STUCK, STUCK_DONE
from taskforce.errors import ProviderError
from taskforce.models.base import Message, ModelResponse, NoCalls, ToolSpec
from taskforce.testing import FunctionModel, call, reply
from tests.agent.helpers import Events


def written(name: str, **arguments: Any) -> ModelResponse:
    """A call written as fenced JSON text, as small models do when told to answer."""
    return reply(f"```json\n{json.dumps({'name': name, 'arguments': arguments})}\n```")


Reply = Callable[[list[Message], list[ToolSpec]], ModelResponse]


def callable_tools(specs: list[ToolSpec]) -> int:
    """How many tools a request let the model call (0: told to answer in words; with a plan
    of the run's own the tools are shown with no call allowed, without one none is shown)."""
    return 0 if isinstance(specs, NoCalls) else len(specs)


def looping(*first: ModelResponse, again: ModelResponse) -> FunctionModel:
    """Replies `first` in turn, then repeats `again`; written as text when told to answer."""
    return FunctionModel(loop_replies(*first, again=again))


def two_cities() -> list[ModelResponse]:
    """Five turns: plan "Weather in Oslo" and "Weather in Rome", do each, mark each done."""
    return [
        call("planner", action="create_plan", tasks=["Weather in Oslo", "Weather in Rome"]),
        call("weather", city="Oslo"),
        call("planner", action="mark_done", step_index=[1]),
        call("weather", city="Rome"),
        call("planner", action="mark_done", step_index=[2]),
    ]


def loop_replies(*first: ModelResponse, again: ModelResponse) -> Reply:
    """The replies of :func:`looping`, as a function."""
    script = list(first)

    def answer(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        if script:
            return script.pop(0)
        if not callable_tools(tools):
            (c,) = again.tool_calls
            return written(c.name, **json.loads(c.arguments))
        return again

    return answer


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


async def test_a_new_call_written_on_the_forced_turn_still_runs(tools: Any) -> None:
    tool_list, log = tools
    turns = iter([call("weather", city="Oslo")] * 7)

    def answer(messages: list[Message], specs: list[ToolSpec]) -> ModelResponse:
        if not callable_tools(specs):  # told to answer: it writes a new call, then answers
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
        offered.append(callable_tools(specs))
        if not callable_tools(specs):
            return reply("Oslo 4°C, Rome 20°C.")
        script = two_cities()
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


def browsing(offered: list[int], after: list[ModelResponse]) -> FunctionModel:
    """Plans and does two weather steps, then makes the calls `after` in turn (new ones,
    each once); answers in words when told to answer. `offered` records the tools of
    each request."""
    script = [*two_cities(), *after]

    def answer(messages: list[Message], specs: list[ToolSpec]) -> ModelResponse:
        offered.append(callable_tools(specs))
        if not callable_tools(specs):
            return reply("Oslo 4°C, Rome 20°C.")
        return script.pop(0) if script else reply("Oslo 4°C, Rome 20°C.")

    return FunctionModel(answer)


async def test_once_the_plan_is_finished_a_turn_of_new_reads_brings_the_forced_answer(
    tools: Any,
) -> None:
    offered: list[int] = []
    cities = ["Paris", "Berlin", "Madrid", "Lisbon", "Vienna", "Prague"]
    model = browsing(offered, [call("weather", city=c) for c in cities])
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False)
    result = await agent.execute("Weather in Oslo and in Rome")
    assert result.status is AgentStatus.COMPLETED and result.final_message == "Oslo 4°C, Rome 20°C."
    assert [c for n, c in tools[1]["calls"]][2:] == ["Paris"]  # one read ran, then the answer
    assert offered[-1] == 0 and len(offered) == 7


async def test_once_the_plan_is_finished_a_new_action_is_not_a_stall(tools: Any) -> None:
    offered: list[int] = []
    model = browsing(offered, [call("notes", text="Oslo"), call("notes", text="Rome")])
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False)
    result = await agent.execute("Weather in Oslo and in Rome")
    assert tools[1]["notes"] == ["Oslo", "Rome"]  # both actions ran: neither was cut short
    assert result.status is AgentStatus.COMPLETED and 0 not in offered


async def test_reads_while_steps_are_open_are_work_not_a_stall(tools: Any) -> None:
    offered: list[int] = []
    reads = [call("weather", city=c) for c in ["Paris", "Berlin", "Madrid"]]
    script = [
        call("planner", action="create_plan", tasks=["Weather in four cities", "Save a note"]),
        *reads,
        call("planner", action="mark_done", step_index=[1]),
        call("notes", text="done"),
        call("planner", action="mark_done", step_index=[2]),
    ]

    def answer(messages: list[Message], specs: list[ToolSpec]) -> ModelResponse:
        offered.append(callable_tools(specs))
        return script.pop(0) if script else reply("Saved.")

    agent = LeanAgent(model=FunctionModel(answer), tools=tools[0], plan_first=False)
    result = await agent.execute("Weather in Paris, Berlin and Madrid, then save a note")
    assert tools[1]["notes"] == ["done"] and result.final_message == "Saved."
    assert 0 not in offered  # never told to answer


async def test_a_plan_finished_by_skipping_unworked_steps_leaves_their_work_to_do(
    tools: Any,
) -> None:
    offered: list[int] = []
    mark = call("planner", action="mark_done", step_index=[1])
    script = [
        call("planner", action="create_plan", tasks=["Save a note with the weather in Oslo"]),
        mark,  # refused: no tool ran for it
        mark,  # skipped for want of work: the plan is finished, the work not done
        call("weather", city="Oslo"),  # the recitation asked for that work: not looking around
        call("notes", text="Oslo 4°C"),  # runs: not refused as a call after the work is over
    ]

    def answer(messages: list[Message], specs: list[ToolSpec]) -> ModelResponse:
        offered.append(callable_tools(specs))
        return script.pop(0) if script else reply("Saved.")

    agent = LeanAgent(model=FunctionModel(answer), tools=tools[0], plan_first=False)
    result = await agent.execute("Look up the weather in Oslo and save it in a note")
    assert result.plan.steps[0].status.value == "SKIPPED"  # the loop skipped it
    assert tools[1]["notes"] == ["Oslo 4°C"] and result.final_message == "Saved."
    assert 0 not in offered  # never told to answer


async def test_an_answer_after_skipping_a_step_whose_tool_never_ran_is_held_once(
    tools: Any,
) -> None:
    mark = call("planner", action="mark_done", step_index=[1])
    script = [
        call("planner", action="create_plan", tasks=["Save a note that Oslo is sunny"]),
        mark,  # refused: no tool ran for it
        mark,  # skipped for want of work: the plan is finished, the work not done
        reply("Saved."),  # held: no notes call ever succeeded
        call("notes", text="Oslo is sunny"),
        reply("Saved."),
    ]
    seen: list[list[Message]] = []

    def answer(messages: list[Message], specs: list[ToolSpec]) -> ModelResponse:
        seen.append(messages)
        return script.pop(0)

    agent = LeanAgent(model=FunctionModel(answer), tools=tools[0], plan_first=False)
    result = await agent.execute("Save a note that Oslo is sunny")
    assert result.status is AgentStatus.COMPLETED and result.final_message == "Saved."
    assert tools[1]["notes"] == ["Oslo is sunny"]
    held = [m["content"] for m in seen[-1] if "were skipped because no tool ran" in str(m)]
    assert held == [
        "[Reminder] Not finished yet: these steps were skipped because no tool ran for them, "
        "and their tools have not succeeded since:\n- step 1: Save a note that Oslo is sunny "
        "(notes)\nDo that work now with its tool. If it turned out not to be needed, say so "
        "in your final answer."
    ]


def finishing(answer: Callable[[list[Message]], ModelResponse]) -> Reply:
    """Plans and does two steps, then only repeats (written as text when told to answer);
    `answer(messages)` replies to the short request for the answer (system ANSWER_SYSTEM)."""
    looper = loop_replies(*two_cities(), again=call("weather", city="Rome"))

    def reply_to(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        if messages[0]["content"] == ANSWER_SYSTEM:
            return answer(messages)
        return looper(messages, tools)

    return reply_to


async def test_a_finished_plan_without_words_is_answered_in_a_short_view_of_its_own(
    tools: Any,
) -> None:
    asked: list[list[Message]] = []

    def answer(messages: list[Message]) -> ModelResponse:
        asked.append(messages)
        return reply('The final answer is: "Oslo has 4°C and rain; Rome 20°C."')

    events = Events()
    model = FunctionModel(finishing(answer))
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, on_event=events)
    result = await agent.execute("Weather in Oslo and in Rome")
    assert result.status is AgentStatus.COMPLETED
    assert result.final_message == "Oslo has 4°C and rain; Rome 20°C."
    (view,) = asked  # asked once: the mission, the plan done and the results; no history
    assert len(view) == 2 and "Task: Weather in Oslo and in Rome" in view[1]["content"]
    assert "- [x] 2. Weather in Rome" in view[1]["content"]
    assert "weather → " in view[1]["content"] and "tool_calls" not in view[1]
    assert len(events.of("llm_call")) == result.steps  # the short request is counted
    # the answer is in the conversation the next request of the session follows
    messages = await agent.store.load_messages(result.session_id)
    said = [m["content"] for m in messages if m["role"] == "assistant"]
    assert said[-1] == "Oslo has 4°C and rain; Rome 20°C."


async def test_a_short_view_answered_with_a_call_or_a_provider_error_says_no_words(
    tools: Any,
) -> None:
    def a_call(messages: list[Message]) -> ModelResponse:
        return written("weather", city="Rome")

    def failing(messages: list[Message]) -> ModelResponse:
        raise ProviderError("the server went away")

    for answer in (a_call, failing):
        events = Events()
        model = FunctionModel(finishing(answer))
        agent = LeanAgent(model=model, tools=tools[0], plan_first=False, on_event=events)
        result = await agent.execute("Weather in Oslo and in Rome")
        assert result.status is AgentStatus.COMPLETED and result.final_message == STUCK_DONE
        assert bool(events.of("error")) is (answer is failing)


async def test_words_from_an_earlier_request_of_the_session_are_not_this_runs_answer(
    tools: Any,
) -> None:
    def answer(messages: list[Message]) -> ModelResponse:
        return written("weather", city="Rome")

    model = finishing(answer)

    def greeting_first(messages: list[Message], specs: list[ToolSpec]) -> ModelResponse:
        if messages[-1]["content"] == "Hi":
            return reply("Hello, how can I help?")
        return model(messages, specs)

    agent = LeanAgent(model=FunctionModel(greeting_first), tools=tools[0], plan_first=False)
    greeted = await agent.execute("Hi")
    assert greeted.final_message == "Hello, how can I help?"
    result = await agent.execute("Weather in Oslo and in Rome", session_id=greeted.session_id)
    assert result.status is AgentStatus.COMPLETED and result.final_message == STUCK_DONE


async def test_the_short_view_of_a_later_request_leaves_the_earlier_plan_out(tools: Any) -> None:
    asked: list[str] = []

    def answer(messages: list[Message]) -> ModelResponse:
        asked.append(str(messages[-1]["content"]))
        return reply("Done.")

    first = finishing(answer)
    later = loop_replies(call("weather", city="Paris"), again=call("weather", city="Paris"))

    def replies(messages: list[Message], specs: list[ToolSpec]) -> ModelResponse:
        if messages[0]["content"] == ANSWER_SYSTEM or not asked:
            return first(messages, specs)
        return later(messages, specs)

    agent = LeanAgent(model=FunctionModel(replies), tools=tools[0], plan_first=False)
    done = await agent.execute("Weather in Oslo and in Rome")
    assert done.final_message == "Done." and "The plan, done:" in asked[0]
    result = await agent.execute("And in Paris?", session_id=done.session_id)
    assert result.status is AgentStatus.COMPLETED and result.final_message == "Done."
    assert "Task: And in Paris?" in asked[1] and "The plan, done:" not in asked[1]
    assert "Weather in Rome" not in asked[1] and "weather → " in asked[1]


async def test_once_the_plan_is_finished_a_call_written_on_the_forced_turn_does_not_run(
    tools: Any,
) -> None:
    asked: list[list[Message]] = []

    def answer(messages: list[Message]) -> ModelResponse:
        asked.append(messages)
        return reply("Oslo 4°C, Rome 20°C.")

    finished = finishing(answer)
    new_action = [  # told to answer, it writes a new action (undoing the work) and a repeat
        {"name": "notes", "arguments": {"text": "nothing to report"}},
        {"name": "weather", "arguments": {"city": "Rome"}},
    ]

    def replies(messages: list[Message], specs: list[ToolSpec]) -> ModelResponse:
        if not callable_tools(specs) and messages[0]["content"] != ANSWER_SYSTEM:
            return reply(f"```json\n{json.dumps(new_action)}\n```")
        return finished(messages, specs)

    events = Events()
    agent = LeanAgent(
        model=FunctionModel(replies), tools=tools[0], plan_first=False, on_event=events
    )
    result = await agent.execute("Weather in Oslo and in Rome")
    assert tools[1]["notes"] == []  # the written action did not run, nor the repeat
    assert [c for _, c in tools[1]["calls"]] == ["Oslo", "Rome"]
    assert result.status is AgentStatus.COMPLETED and result.final_message == "Oslo 4°C, Rome 20°C."
    assert len(asked) == 1  # the run ended there: its answer was asked in a short view
    (refused,) = [e for e in events.of("tool_result") if e.data["name"] == "notes"]
    assert refused.data["result"]["error_type"] == "answer_required"
    repeat = [e for e in events.of("tool_result") if e.data["name"] == "weather"][-1]
    assert repeat.data["result"]["error_type"] == "repeated_call"  # a repeat is still one
