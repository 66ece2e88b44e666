"""Sessions in a real SQLite database: saved after every tool result, resumed after a
crash, continued by id, isolated from each other."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.prompts import PLAN_HEADER
from taskforce.agent.session import wire_arguments
from taskforce.errors import ProviderError
from taskforce.store import StateManager
from taskforce.testing import ScriptedModel, call, calls, reply
from taskforce.tools.arguments import cut_arguments
from taskforce.tools.function import FunctionTool
from tests.agent.helpers import make_tools, tool_results

MISSION = "Get the weather in Oslo, then compute 2*21 and save a note with both."


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path}/agent.db"


@pytest.fixture
async def sm(db_url: str) -> AsyncIterator[StateManager]:
    async with StateManager(db_url) as manager:
        yield manager


async def test_state_and_messages_saved_after_every_tool_result(
    sm: StateManager, db_url: str
) -> None:
    seen: list[tuple[dict[str, Any] | None, list[Any]]] = []

    async def probe() -> str:
        """Looks at the database from another connection while the run is in flight."""
        async with StateManager(db_url) as other:
            seen.append((await other.load_state("s1"), await other.load_messages("s1")))
        return "probed"

    tool_list, _ = make_tools()
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather", "Probe"]),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1]),
            call("probe"),
            call("planner", action="mark_done", step_index=[2]),
            reply("all done"),
        ]
    )
    agent = LeanAgent(model=model, tools=[*tool_list, FunctionTool(probe)], state_manager=sm)
    result = await agent.execute(MISSION, "s1")
    assert result.status is AgentStatus.COMPLETED

    state, messages = seen[0]  # as stored before the probe call's own result
    assert state is not None and state["status"] == "running" and state["mission"] == MISSION
    assert [(t["description"], t["status"]) for t in state["plan"]["tasks"]] == [
        ("Weather", "DONE"),
        ("Probe", "PENDING"),
    ]
    stored = [m.get("content") for m in messages]
    assert stored[0] == MISSION
    assert json.loads(stored[-2] if messages[-1]["role"] != "tool" else stored[-1]) == {
        "success": True,
        "message": "Step 1 marked DONE.",  # one line: the recitation carries the checklist
    }
    assert any(m.get("tool_calls") for m in messages)  # assistant calls saved with results

    final = await sm.load_state("s1")
    assert final is not None and final["status"] == "completed"
    assert all(t["status"] == "DONE" for t in final["plan"]["tasks"])
    all_messages = await sm.load_messages("s1")
    assert all_messages[-1] == {"role": "assistant", "content": "all done"}
    assert not any(m["role"] == "system" for m in all_messages)


async def test_resume_after_a_crash_mid_run(db_url: str) -> None:
    started = asyncio.Event()

    async def slow_report(topic: str) -> str:
        """Hangs until the run is cancelled (simulated crash), once the note is saved."""
        async with StateManager(db_url) as probe:
            for _ in range(1000):  # the parallel `notes` call finishes and is saved first
                saved = await probe.load_messages("crash")
                if any("saved note" in str(m.get("content")) for m in saved):
                    break
                await asyncio.sleep(0.005)
        started.set()
        await asyncio.Event().wait()
        return "never"

    tool_list, log = make_tools()
    tools = [*tool_list, FunctionTool(slow_report)]
    first_model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather", "Report", "Note"]),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1]),
            calls(call("notes", text="Oslo 4°C"), call("slow_report", topic="weather")),
        ]
    )
    async with StateManager(db_url) as sm:
        agent = LeanAgent(model=first_model, tools=tools, state_manager=sm)
        task = asyncio.create_task(agent.execute(MISSION, "crash"))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    # a fresh process: new store, new agent, same database and session id
    second_model = ScriptedModel(
        [
            call("planner", action="mark_done", step_index=[2, 3]),  # no tool ran in this run
            call("planner", action="mark_done", step_index=[2, 3]),  # insisting: 3 skipped
            call("planner", action="mark_done", step_index=[2]),  # "Report" needs no tool
            reply("resumed and finished"),
        ]
    )
    async with StateManager(db_url) as sm:
        agent = LeanAgent(model=second_model, tools=make_tools()[0], state_manager=sm)
        result = await agent.execute(MISSION, "crash")
        assert result.status is AgentStatus.COMPLETED
        assert result.final_message == "resumed and finished"
        assert result.open_steps == ()
        assert result.plan_markdown.splitlines()[1:] == [
            "- [x] 2. Report",
            "- [x] 3. ~~Note~~ (skipped: no tool ran for it)",
        ]
        messages = second_model.requests[0].messages
        # the history came back: the mission once, the weather result, the plan so far
        assert [m["content"] for m in messages if m["role"] == "user"].count(MISSION) == 1
        assert tool_results(messages)["call_2"]["output"] == "4°C, rain"
        # the note finished before the crash (saved); the report did not (marked interrupted)
        assert tool_results(messages)["call_4"]["output"] == "saved note 1"
        assert tool_results(messages)["call_5"]["error_type"] == "interrupted"
        assert messages[-1]["content"].startswith(PLAN_HEADER)
        assert "Do now: step 2.\n" in messages[-1]["content"]
        assert "interrupted and has resumed" in messages[-2]["content"]
        assert second_model.requests[0].tool_names[0] == "planner"
        assert log["calls"] == [("weather", "Oslo"), ("notes", "Oslo 4°C")]  # not redone
        state = await sm.load_state("crash")
        assert state is not None and state["status"] == "completed"


def test_resume_after_system_exit_in_a_tool(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/exit.db"

    def die() -> str:
        """Kills the process (simulated)."""
        raise SystemExit(3)

    async def first() -> None:
        model = ScriptedModel(
            [
                call("planner", action="create_plan", tasks=["Weather", "Die"]),
                call("weather", city="Rome"),
                call("die"),
            ]
        )
        async with StateManager(url) as sm:
            agent = LeanAgent(
                model=model, tools=[*make_tools()[0], FunctionTool(die)], state_manager=sm
            )
            await agent.execute(MISSION, "exit")

    with pytest.raises(SystemExit):
        asyncio.run(first())

    async def second() -> tuple[Any, ScriptedModel, Any]:
        model = ScriptedModel([reply("done after restart")])
        async with StateManager(url) as sm:
            agent = LeanAgent(
                model=model, tools=make_tools()[0], state_manager=sm, max_finish_reminders=0
            )
            result = await agent.execute(MISSION, "exit")
            return result, model, await sm.load_state("exit")

    result, model, state = asyncio.run(second())
    assert result.status is AgentStatus.INCOMPLETE  # answered with both steps open
    assert result.open_steps == ("s1: Weather", "s2: Die")
    results = tool_results(model.requests[0].messages)
    assert results["call_2"]["output"] == "19°C, sunny"
    assert "call_3" not in results  # the step in flight is the only thing lost
    assert state["status"] == "incomplete"


async def test_two_sessions_are_isolated_with_one_agent(sm: StateManager) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Secret step of A"]),
            reply("A stops early"),
            reply("A stops early"),
            reply("A stops early"),
            reply("B answers"),
        ]
    )
    agent = LeanAgent(model=model, tools=make_tools()[0], state_manager=sm, plan_first=False)
    a = await agent.execute("Mission A", "session-a")
    assert a.open_steps == ("s1: Secret step of A",)
    b = await agent.execute("Mission B", "session-b")
    assert b.plan_markdown == "No active plan." and b.open_steps == ()
    first_b = model.requests[4].messages
    assert "Secret step" not in json.dumps(first_b)
    assert [m["role"] for m in first_b] == ["system", "user"]
    state_b = await sm.load_state("session-b")
    assert state_b is not None and not state_b["plan"]["tasks"]
    state_a = await sm.load_state("session-a")
    assert state_a is not None and state_a["plan"]["tasks"][0]["description"] == "Secret step of A"


async def test_continuing_a_session_with_a_new_mission(sm: StateManager) -> None:
    model = ScriptedModel([call("weather", city="Oslo"), reply("4°C"), reply("Rome is warmer")])
    agent = LeanAgent(model=model, tools=make_tools()[0], state_manager=sm)
    await agent.execute("Weather in Oslo?", "chat")
    fresh = LeanAgent(model=model, tools=make_tools()[0], state_manager=sm)
    result = await fresh.execute("Is Rome warmer?", "chat")
    assert result.final_message == "Rome is warmer"
    roles = [(m["role"], m.get("content")) for m in model.requests[2].messages]
    assert roles[1] == ("user", "Weather in Oslo?")
    assert roles[-1] == ("user", "Is Rome warmer?")
    assert ("assistant", "4°C") in roles


async def test_resume_loads_only_recent_messages(sm: StateManager) -> None:
    script: list[Any] = [call("calculator", expression=f"{i}+{i}") for i in range(20)]
    model = ScriptedModel([*script, reply("sum done"), reply("again")])
    agent = LeanAgent(model=model, tools=make_tools()[0], state_manager=sm, history_limit=10)
    await agent.execute("Add numbers", "long")
    assert len(await sm.load_messages("long")) > 40
    await agent.execute("Add more numbers", "long")
    sent = model.requests[-1].messages
    assert len(sent) <= 1 + 10 + 1
    assert sent[1]["role"] == "user"  # never starts on an orphaned tool result
    called = {c["id"] for m in sent for c in m.get("tool_calls") or []}
    assert all(m["tool_call_id"] in called for m in sent if m["role"] == "tool")


async def test_in_memory_sessions_continue_without_a_store() -> None:
    model = ScriptedModel([reply("first"), reply("second")])
    agent = LeanAgent(model=model)
    r1 = await agent.execute("one", "mem")
    await agent.execute("two", "mem")
    assert r1.session_id == "mem"
    assert [m.get("content") for m in model.requests[1].messages[1:]] == ["one", "first", "two"]
    other = await LeanAgent(model=ScriptedModel([reply("x")])).execute("one")
    assert other.session_id != "mem" and len(other.session_id) >= 16


async def test_new_mission_after_a_finished_plan_is_not_told_to_finish(sm: StateManager) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Only"]),
            call("planner", action="mark_done", step_index=[1]),
            reply("first done"),
            reply("second answer"),
        ]
    )
    agent = LeanAgent(
        model=model, state_manager=sm, plan_first=False, require_work_before_done=False
    )
    await agent.execute("First mission", "again")
    await agent.execute("Second mission", "again")
    last = model.requests[-1].messages[-1]
    assert last == {"role": "user", "content": "Second mission"}


async def test_resumed_open_plan_is_recited(sm: StateManager) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["One", "Two"]),
            ProviderError("down", retryable=True),
            reply("finished"),
        ]
    )
    agent = LeanAgent(model=model, state_manager=sm, plan_first=False, max_finish_reminders=0)
    first = await agent.execute("Mission", "resume-open")
    assert first.status is AgentStatus.FAILED
    second = await agent.execute("Mission", "resume-open")
    assert second.status is AgentStatus.INCOMPLETE  # answered with both steps open
    sent = model.requests[-1].messages
    assert (
        sent[-1]["content"].startswith(PLAN_HEADER) and "Do now: step 1.\n" in sent[-1]["content"]
    )
    assert "resumed" in sent[-2]["content"]
    assert [m["content"] for m in sent if m["role"] == "user"].count("Mission") == 1


async def test_a_stored_call_whose_arguments_are_not_json_goes_back_as_an_empty_object(
    sm: StateManager,
) -> None:
    """A session saved with a malformed call (as older versions stored them) resumes:
    llama.cpp's server refuses any conversation holding arguments it cannot parse."""
    broken = '{"city": "Oslo", "note": "mis'
    await sm.save_state(
        "legacy",
        {"mission": "Weather in Oslo?"},
        0,
        messages=[
            {"role": "user", "content": "Weather in Oslo?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function",
                     "function": {"name": "weather", "arguments": broken}},
                    {"id": "c2", "type": "function",
                     "function": {"name": "weather", "arguments": '{"city": "Rome"}'}},
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": '{"success": false}'},
            {"role": "tool", "tool_call_id": "c2", "content": '{"success": true}'},
        ],
    )  # fmt: skip
    model = ScriptedModel([reply("Oslo: 4°C")])
    await LeanAgent(model=model, tools=make_tools()[0], state_manager=sm).execute(
        "And now?", "legacy"
    )
    sent = [c for m in model.requests[0].messages for c in m.get("tool_calls") or []]
    assert [c["function"]["arguments"] for c in sent] == ["{}", '{"city": "Rome"}']
    assert [c["id"] for c in sent] == ["c1", "c2"]  # the results still answer their calls
    stored = await sm.load_messages("legacy")
    assert stored[1]["tool_calls"][0]["function"]["arguments"] == broken  # the record is kept


def test_arguments_go_back_to_the_model_as_json_a_provider_parses() -> None:
    for text in ('{"city": "Oslo"}', '{ "a" : [1, 2] }', '"{\\"a\\": 1}"', "[]"):
        assert wire_arguments(text) == text  # JSON: as the model wrote it
    for text in ('{"city": "Osl', "", "city=Oslo", cut_arguments("x" * 2_000_000), "[" * 100_000):
        assert wire_arguments(text) == "{}"
