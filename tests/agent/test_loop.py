"""The ReAct loop with scripted decisions: plans, turns, budget, finish guard, events."""

from __future__ import annotations

import json
from typing import Any

from taskforce.agent import AgentResult, AgentStatus, LeanAgent
from taskforce.agent.prompts import PLAN_HEADER, REMINDER_HEADER
from taskforce.models.base import Usage
from taskforce.testing import ScriptedModel, call, calls, reply
from tests.agent.helpers import Events, tool_results

MISSION = "Get the weather in Oslo, then compute 2*21 and save a note with both."


def happy_script() -> list[Any]:
    return [
        call("planner", action="create_plan", tasks=["Weather in Oslo", "Compute", "Note"]),
        calls(call("weather", city="Oslo"), call("calculator", expression="2*21")),
        call("planner", action="mark_done", step_index=[1, 2]),
        call("notes", text="Oslo 4C; 42"),
        call("planner", action="mark_done", step_index=[3]),
        reply("Oslo: 4°C, rain. 2*21 = 42. Note saved.", prompt_tokens=7, completion_tokens=3),
    ]


async def test_multi_step_plan_completes(tools: Any, events: Events) -> None:
    tool_list, log = tools
    model = ScriptedModel(happy_script())
    result = await LeanAgent(model=model, tools=tool_list, on_event=events).execute(MISSION)

    assert isinstance(result, AgentResult)
    assert result.status is AgentStatus.COMPLETED
    assert result.final_message.startswith("Oslo: 4°C")
    assert result.plan_markdown.splitlines() == [
        "- [x] 1. Weather in Oslo",
        "- [x] 2. Compute",
        "- [x] 3. Note",
    ]
    assert result.open_steps == ()
    assert result.steps == 6
    assert result.usage == Usage(7, 3)
    assert sorted(log["calls"]) == [
        ("calculator", "2*21"),
        ("notes", "Oslo 4C; 42"),
        ("weather", "Oslo"),
    ]
    # tool results went back as JSON strings in tool messages answering each call id
    results = tool_results(model.requests[2].messages)
    assert {r.get("output") for r in results.values()} >= {"4°C, rain", 42.0}
    assert model.remaining == 0
    assert events.kinds()[-1] == "final_answer"


async def test_tool_specs_are_openai_functions(tools: Any) -> None:
    model = ScriptedModel([reply("hi")])
    await LeanAgent(model=model, tools=tools[0], plan_first=False).execute("Say hi")
    specs = model.requests[0].tools
    assert [s["function"]["name"] for s in specs] == ["planner", "calculator", "weather", "notes"]
    weather = specs[2]
    assert weather["type"] == "function"
    assert weather["function"]["parameters"]["properties"]["city"]["type"] == "string"


async def test_system_message_byte_identical_and_plan_in_trailing_message(tools: Any) -> None:
    model = ScriptedModel(happy_script())
    await LeanAgent(model=model, tools=tools[0]).execute(MISSION)
    systems = [json.dumps(r.messages[0]) for r in model.requests]
    assert len(set(systems)) == 1 and model.requests[0].messages[0]["role"] == "system"
    assert "Weather in Oslo" not in systems[0]
    # after the plan was created, the request ends with the recited plan and current step
    last = model.requests[1].messages[-1]
    assert last["role"] == "user" and last["content"].startswith(PLAN_HEADER)
    assert "- [ ] 1. Weather in Oslo" in last["content"]
    assert "Do now: step 1.\n" in last["content"]
    assert "Current step" not in last["content"]  # a small model read it as "mark it done"
    after_done = model.requests[3].messages[-1]["content"]
    assert "Do now: step 3.\n" in after_done
    assert "weather" not in after_done  # the results are in the view right above it
    # every request is the previous one, up to its recitation, plus new messages: only the
    # latest recitation is sent, so prefix caches survive up to there
    for before, after in zip(model.requests, model.requests[1:], strict=False):
        recited = [i for i, m in enumerate(before.messages) if _recitation(m)]
        keep = recited[-1] if recited else len(before.messages) - 1
        assert after.messages[:keep] == before.messages[:keep]


def _recitation(message: dict[str, Any]) -> bool:
    return str(message.get("content")).startswith(PLAN_HEADER)


async def test_plan_recited_only_when_it_changed(tools: Any) -> None:
    model = ScriptedModel(happy_script())
    await LeanAgent(model=model, tools=tools[0]).execute(MISSION)
    final_messages = model.requests[-1].messages
    assert [m for m in final_messages if _recitation(m)] == [final_messages[-1]]  # the latest
    recited = [
        i for i, r in enumerate(model.requests) if _recitation(r.messages[-1])
    ]  # create, mark 1-2, mark 3; not after the weather/notes turns
    assert recited == [1, 3, 5]


async def test_answer_in_same_turn_as_tool_calls_waits_for_results(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("weather", city="Rome", content="It is 30°C in Rome."),
            reply("Rome: 19°C, sunny."),
        ]
    )
    result = await LeanAgent(model=model, tools=tools[0]).execute("Weather in Rome?")
    assert result.final_message == "Rome: 19°C, sunny."
    assert result.steps == 2
    assert tool_results(model.requests[1].messages)["call_1"]["output"] == "19°C, sunny"


async def test_max_steps_stops_the_run(tools: Any) -> None:
    model = ScriptedModel(
        [call("calculator", expression=f"{i}+1", content=f"try {i}") for i in range(5)]
    )
    result = await LeanAgent(model=model, tools=tools[0], max_steps=3).execute("Count up")
    assert result.status is AgentStatus.MAX_STEPS
    assert result.steps == 3
    assert len(model.requests) == 3
    assert result.final_message == "try 2"


async def test_finish_guard_reminds_then_model_continues(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather", "Answer"]),
            reply("Done already!"),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1, 2]),
            reply("Now really done."),
        ]
    )
    result = await LeanAgent(model=model, tools=tools[0], plan_first=False).execute("Go")
    assert result.status is AgentStatus.COMPLETED
    assert result.final_message == "Now really done."
    reminder = model.requests[2].messages[-1]
    assert reminder["role"] == "user" and reminder["content"].startswith(REMINDER_HEADER)
    # what is missing: the step that needs a tool ("Answer" is done by the answer itself)
    assert "step 1: Weather" in reminder["content"] and "Answer" not in reminder["content"]
    assert result.open_steps == ()


async def test_finish_guard_is_bounded_and_reports_open_steps(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather", "Note"]),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1]),
            reply("stop 1"),
            reply("stop 2"),
            reply("stop 3"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, max_finish_reminders=2)
    result = await agent.execute("Go")
    assert result.status is AgentStatus.INCOMPLETE  # answered, with a step still open
    assert result.final_message == "stop 3"
    assert result.open_steps == ("s2: Note",)
    assert model.remaining == 0


async def test_empty_reply_gets_a_nudge(tools: Any) -> None:
    model = ScriptedModel([reply(""), reply("answer")])
    result = await LeanAgent(model=model, tools=tools[0]).execute("Say something")
    assert result.final_message == "answer"
    assert "empty" in model.requests[1].messages[-1]["content"]


async def test_events_cover_a_run_and_render_nothing(
    tools: Any, events: Events, capsys: Any
) -> None:
    model = ScriptedModel(happy_script())
    await LeanAgent(model=model, tools=tools[0], on_event=events).execute(MISSION)
    assert capsys.readouterr() == ("", "")
    kinds = events.kinds()
    assert kinds.count("llm_call") == 6
    assert kinds.count("tool_call") == kinds.count("tool_result") == 6
    assert kinds.count("plan_updated") == 3
    plan_event = events.of("plan_updated")[0]
    assert plan_event.data["current_step"] == "1. Weather in Oslo"
    assert "- [ ] 1. Weather in Oslo" in plan_event.data["markdown"]
    call_event = events.of("tool_call")[1]
    assert call_event.data["name"] == "weather" and call_event.data["arguments"] == {"city": "Oslo"}
    assert all(e.session_id == events.events[0].session_id for e in events.events)
    assert events.of("final_answer")[0].data["status"] == "completed"


async def test_async_and_failing_event_handlers(tools: Any, caplog: Any) -> None:
    seen: list[str] = []

    async def handler(event: Any) -> None:
        seen.append(event.kind.value)

    await LeanAgent(model=ScriptedModel([reply("ok")]), on_event=handler).execute("hi")
    assert seen == ["llm_call", "final_answer"]

    def broken(event: Any) -> None:
        raise RuntimeError("ui bug")

    result = await LeanAgent(model=ScriptedModel([reply("ok")]), on_event=broken).execute("hi")
    assert result.status is AgentStatus.COMPLETED
    assert "ui bug" in caplog.text


async def test_planner_added_automatically_or_taken_from_tools(tools: Any) -> None:
    from taskforce.tools.planner import PlannerTool

    agent = LeanAgent(model=ScriptedModel([]), tools=tools[0])
    assert isinstance(agent.planner, PlannerTool)
    mine = PlannerTool()
    agent = LeanAgent(model=ScriptedModel([]), tools=[mine, *tools[0]])
    assert agent.planner is mine


async def test_stream_yields_events_as_they_happen(tools: Any) -> None:
    model = ScriptedModel([call("weather", city="Oslo"), reply("4°C")])
    agent = LeanAgent(model=model, tools=tools[0])
    kinds = [event.kind.value async for event in agent.stream("Weather in Oslo?", "st")]
    assert kinds == ["llm_call", "tool_call", "tool_result", "llm_call", "final_answer"]
    state = await agent.store.load_state("st")
    assert state is not None and state["status"] == "completed"


async def test_stream_left_early_cancels_the_run(tools: Any) -> None:
    model = ScriptedModel([call("weather", city="Oslo"), reply("never reached")])
    agent = LeanAgent(model=model, tools=tools[0])
    async for event in agent.stream("Weather in Oslo?", "early"):
        if event.kind.value == "tool_call":
            break
    assert len(model.requests) == 1
    # the agent is free again: its lock was released by the cancelled run
    result = await agent.execute("Weather in Oslo?", "early2", on_event=None)
    assert result.session_id == "early2"
