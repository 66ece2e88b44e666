"""LeanAgent over litellm's real HTTP path, against the scripted OpenAI server on 127.0.0.1,
with a real SQLite store. Also: secrets never reach the database, events or logs."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from taskforce.agent import AgentEvent, AgentStatus, LeanAgent
from taskforce.models.base import Usage
from taskforce.store import StateManager
from tests.agent.helpers import make_tools
from tests.fakes.openai_server import FakeOpenAIServer, error, reply, tool_call

KEY = "sk-planted-4f1c9e7a2b6d8035-do-not-leak"
MISSION = "Get the weather in Oslo, then compute 2*21 and save a note with both."


def agent_for(server: FakeOpenAIServer, sm: StateManager | None = None, **kw: Any) -> LeanAgent:
    options: dict[str, Any] = {"api_key": KEY, "retry_wait": (0.0, 0.0), "max_retries": 2}
    options.update(kw)
    return LeanAgent(
        model="openai/test-model",
        api_base=server.url,
        tools=make_tools()[0],
        state_manager=sm,
        **options,
    )


async def test_full_run_over_http(openai_server: FakeOpenAIServer, tmp_path: Path) -> None:
    openai_server.script(
        reply(
            tool_calls=[
                tool_call("planner", {"action": "create_plan", "tasks": ["W", "C"]}, id="call_a")
            ],
            prompt_tokens=100,
            completion_tokens=10,
        ),
        error(429, headers={"retry-after": "0"}),
        reply(
            tool_calls=[
                tool_call("weather", {"city": "Oslo"}, id="call_b"),
                tool_call("calculator", {"expression": "2*21"}, id="call_c"),
            ],
            prompt_tokens=200,
            completion_tokens=20,
        ),
        reply(
            tool_calls=[
                tool_call("planner", {"action": "mark_done", "step_index": [1, 2]}, id="call_d")
            ],
            prompt_tokens=300,
            completion_tokens=30,
        ),
        reply("Oslo 4°C; 42", prompt_tokens=400, completion_tokens=40),
    )
    async with StateManager(f"sqlite+aiosqlite:///{tmp_path}/wire.db") as sm:
        result = await agent_for(openai_server, sm).execute(MISSION, "wire")
        stored = await sm.load_messages("wire")
    assert result.status is AgentStatus.COMPLETED, result
    assert result.final_message == "Oslo 4°C; 42"
    assert result.usage == Usage(1000, 100)
    assert result.open_steps == () and result.steps == 4

    bodies = openai_server.bodies
    assert len(bodies) == 5  # one 429 retried by LiteLLMModel
    assert bodies[1] == bodies[2]  # the retry resent the same request
    assert [t["function"]["name"] for t in bodies[0]["tools"]] == ["planner"]  # plan first
    assert {t["function"]["name"] for t in bodies[2]["tools"]} == {
        "planner",
        "calculator",
        "weather",
        "notes",
    }
    assert len({json.dumps(b["messages"][0]) for b in bodies}) == 1  # system byte-identical
    sent = bodies[3]["messages"]
    calls = [c for m in sent if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    # create_plan (call_a) is shown by the recitation, not repeated as an exchange
    assert [c["id"] for c in calls] == ["call_b", "call_c"]
    recited = [m for m in sent if m["role"] == "user" and m["content"].startswith("[Plan update]")]
    assert len(recited) == 1 and "- [ ] 1. W" in recited[0]["content"]
    tool_msgs = {m["tool_call_id"]: json.loads(m["content"]) for m in sent if m["role"] == "tool"}
    assert tool_msgs["call_b"] == {"success": True, "output": "4°C, rain"}
    assert tool_msgs["call_c"] == {"success": True, "output": 42.0}
    assert openai_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert stored[-1]["content"] == "Oslo 4°C; 42"


async def test_malformed_arguments_over_http(openai_server: FakeOpenAIServer) -> None:
    openai_server.script(
        reply(tool_calls=[tool_call("weather", '{"city": "Oslo",', raw=True, id="bad")]),
        reply("sorry"),
    )
    result = await agent_for(openai_server).execute("Weather in Oslo?")
    assert result.status is AgentStatus.COMPLETED
    sent = openai_server.bodies[1]["messages"]
    answer = json.loads(sent[-1]["content"])
    assert sent[-1]["tool_call_id"] == "bad"
    assert answer["success"] is False and answer["error_type"] == "malformed_arguments"
    # sent back as {} (the fake, like llama.cpp's server, refuses arguments it cannot parse)
    assert sent[-2]["tool_calls"][0]["function"]["arguments"] == "{}"


async def test_a_call_cut_off_at_the_output_limit_is_named_so_over_http(
    openai_server: FakeOpenAIServer,
) -> None:
    """finish_reason "length": the model's plan ran past its output limit mid-list."""
    cut = '{"action": "create_plan", "tasks": ["Look up Oslo", "Look up Oslo", "Look'
    openai_server.script(
        reply(tool_calls=[tool_call("planner", cut, raw=True, id="long")], finish_reason="length"),
        reply(tool_calls=[tool_call("weather", '{"city": "Oslo",', raw=True, id="bad")]),
        reply("Oslo: 4°C"),
    )
    result = await agent_for(openai_server, plan_first=False).execute("Weather in Oslo?")
    assert result.status is AgentStatus.COMPLETED and result.plan.steps == ()  # not made
    cut_off = json.loads(openai_server.bodies[1]["messages"][-1]["content"])
    assert cut_off["success"] is False and cut_off["error_type"] == "malformed_arguments"
    assert f"output limit after {len(cut)} characters" in cut_off["error"]
    assert "a plan needs only a few short steps" in cut_off["error"]
    # a reply that ended on its own ("tool_calls") with bad JSON is no cut-off
    plain = json.loads(openai_server.bodies[2]["messages"][-1]["content"])
    assert "not valid JSON" in plain["error"] and "output limit" not in plain["error"]


async def test_an_answer_cut_off_at_the_output_limit_is_asked_again_over_http(
    openai_server: FakeOpenAIServer,
) -> None:
    looping = "The first line is: " * 40
    openai_server.script(
        reply(looping, finish_reason="length"),
        reply("The first line is: Budget 2024.", finish_reason="stop"),
    )
    result = await agent_for(openai_server, plan_first=False).execute("First line of a.txt?")
    assert result.status is AgentStatus.COMPLETED
    assert result.final_message == "The first line is: Budget 2024."
    asked = openai_server.bodies[1]["messages"][-1]["content"]
    assert asked.startswith("[Reminder] Your reply was cut off at its output limit")

    # a second cut-off answer is taken: the reminders are bounded (max_finish_reminders)
    openai_server.script(*[reply(looping, finish_reason="length")] * 3)
    agent = agent_for(openai_server, plan_first=False, max_finish_reminders=1)
    result = await agent.execute("First line of a.txt?")
    assert result.status is AgentStatus.COMPLETED and result.final_message == looping
    assert len(openai_server.bodies) == 4


async def test_provider_down_fails_cleanly(openai_server: FakeOpenAIServer, tmp_path: Path) -> None:
    openai_server.script(*(error(503) for _ in range(3)))
    async with StateManager(f"sqlite+aiosqlite:///{tmp_path}/down.db") as sm:
        result = await agent_for(openai_server, sm).execute("Weather in Oslo?", "down")
        state = await sm.load_state("down")
    assert result.status is AgentStatus.FAILED
    assert "gave up after 3 attempt" in (result.error or "")
    assert state is not None and state["status"] == "failed"
    assert len(openai_server.requests) == 3


@pytest.mark.parametrize("via", ["argument", "environment"])
async def test_secrets_never_reach_db_events_or_logs(
    openai_server: FakeOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    via: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    seen: list[AgentEvent] = []
    # the provider echoes the key back in an error (as some do), and a tool echoes it too
    openai_server.script(
        reply(tool_calls=[tool_call("notes", {"text": f"my key is {KEY}"}, id="n1")]),
        error(401, f"Incorrect API key provided: {KEY}", type="invalid_request_error"),
    )
    kw: dict[str, Any] = {"retry_wait": (0.0, 0.0), "max_retries": 1}
    if via == "environment":
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
    else:
        kw["api_key"] = KEY
    db = tmp_path / "secrets.db"
    async with StateManager(f"sqlite+aiosqlite:///{db}") as sm:
        agent = LeanAgent(
            model="openai/test-model",
            api_base=openai_server.url,
            tools=make_tools()[0],
            state_manager=sm,
            on_event=seen.append,
            **kw,
        )
        result = await agent.execute(f"Save a note (key {KEY})", "secret-session")
    assert openai_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert result.status is AgentStatus.FAILED
    assert KEY not in repr(result)
    stored = _db_bytes(tmp_path)
    assert stored and all(KEY.encode() not in data for data in stored)
    assert b"REDACTED" in b"".join(stored)  # the planted values were there, and replaced
    assert KEY not in caplog.text, _leaks(caplog.text)
    assert seen and all(KEY not in repr(e) for e in seen)


def _db_bytes(directory: Path) -> list[bytes]:
    return [f.read_bytes() for f in directory.glob("secrets.db*")]


def _leaks(text: str) -> list[str]:
    return [line[:300] for line in text.splitlines() if KEY in line]


async def test_forced_answer_turn_sends_no_tools_over_http(openai_server: FakeOpenAIServer) -> None:
    same = tool_call("weather", {"city": "Oslo"})
    openai_server.script(
        *(reply(tool_calls=[{**same, "id": f"r{i}"}]) for i in range(5)), reply("Oslo: 4°C")
    )
    result = await agent_for(openai_server).execute("Weather in Oslo?")
    assert result.status is AgentStatus.COMPLETED and result.final_message == "Oslo: 4°C"
    bodies = openai_server.bodies
    assert "tools" not in bodies[5] and all(b.get("tools") for b in bodies[:5])
    assert not any("tool_choice" in b for b in bodies)  # no plan of its own: none shown
    assert any(m.get("tool_calls") for m in bodies[5]["messages"])  # history kept as is


async def test_with_a_plan_the_forced_answer_shows_the_tools_and_allows_no_call_over_http(
    openai_server: FakeOpenAIServer,
) -> None:
    plan = tool_call("planner", {"action": "create_plan", "tasks": ["Weather", "Save a note"]})
    same = tool_call("weather", {"city": "Oslo"})
    openai_server.script(
        reply(tool_calls=[{**plan, "id": "p0"}]),
        *(reply(tool_calls=[{**same, "id": f"r{i}"}]) for i in range(6)),
        *[reply("Oslo: 4°C")] * 4,
    )
    await agent_for(openai_server, plan_first=False).execute("Weather in Oslo, then a note")
    bodies = openai_server.bodies
    told = [i for i, b in enumerate(bodies) if "tool_choice" in b]
    assert told and all(bodies[i]["tool_choice"] == "none" for i in told)
    first = told[0]
    assert bodies[first]["tools"] == bodies[first - 1]["tools"]  # the prompt starts as before
    assert "plain text" in bodies[first]["messages"][-1]["content"]
