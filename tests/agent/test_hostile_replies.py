"""What a misbehaving model sends never breaks a run or leaves its session "running".

Absurd arguments and oversized replies become error results or cut text; an answer with
plan steps still open ends ``incomplete``; a session records its model (never a key).
Each on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.limits import MAX_REPLY_CHARS
from taskforce.agent.setup import model_record
from taskforce.models.base import ModelResponse, ToolCall
from taskforce.store import StateManager
from taskforce.testing import ScriptedModel, call, raw_call, reply
from tests.agent.helpers import tool_results
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.openai_server import reply as fake_reply

NESTED = "[" * 100_000 + "]" * 100_000


async def _stored(url: str, sid: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    async with StateManager(url) as store:
        state = await store.load_state(sid)
        assert state is not None
        return state, await store.load_messages(sid)


async def test_deeply_nested_arguments_become_an_error_result(store_url: str) -> None:
    model = ScriptedModel([raw_call("planner", NESTED), raw_call("planner", '{"a": ' * 40
                           + "1" + "}" * 40), reply("fixed it")])  # fmt: skip
    async with StateManager(store_url) as store:
        result = await LeanAgent(model=model, state_manager=store).execute("Go", "nested")
    assert result.status is AgentStatus.COMPLETED and result.final_message == "fixed it"
    errors = [r["error"] for r in tool_results(model.requests[-1].messages).values()]
    assert len(errors) == 2 and all("levels deep" in e for e in errors)
    state, messages = await _stored(store_url, "nested")
    assert state["status"] == "completed"
    assert any(NESTED in json.dumps(m) for m in messages)  # what the model sent is kept


async def test_an_unexpected_error_leaves_the_session_failed_not_running(store_url: str) -> None:
    model = ScriptedModel([call("planner", action="create_plan", tasks=["One"]),
                           RuntimeError("a bug somewhere")])  # fmt: skip
    async with StateManager(store_url) as store:
        with pytest.raises(RuntimeError, match="a bug somewhere"):
            await LeanAgent(model=model, state_manager=store).execute("Go", "bug")
    state, _ = await _stored(store_url, "bug")
    assert state["status"] == "failed" and "a bug somewhere" in state["error"]
    assert [t["description"] for t in state["plan"]["tasks"]] == ["One"]  # work kept


async def test_a_huge_reply_is_cut_and_the_run_ends_defined(store_url: str) -> None:
    huge = "x" * (20 * 1024 * 1024)
    model = ScriptedModel([
        ModelResponse(tool_calls=(ToolCall("c1", "planner", json.dumps(
            {"action": "create_plan", "tasks": [huge]})),)),
        ModelResponse(content=huge),
    ])  # fmt: skip
    async with StateManager(store_url) as store:
        result = await LeanAgent(model=model, state_manager=store).execute("Go", "huge")
    assert result.status is AgentStatus.COMPLETED
    assert len(result.final_message) < MAX_REPLY_CHARS + 200
    assert "cut: " in result.final_message and "more characters" in result.final_message
    (error,) = [r["error"] for r in tool_results(model.requests[-1].messages).values()]
    sent = len(json.dumps({"action": "create_plan", "tasks": [huge]}))
    assert "too large" in error and f"{sent:,} characters" in error
    state, _ = await _stored(store_url, "huge")
    assert state["status"] == "completed"


async def test_an_answer_with_open_steps_is_incomplete_and_resumes(store_url: str) -> None:
    model = ScriptedModel([
        call("planner", action="create_plan", tasks=["One", "Two", "Three"]),
        call("planner", action="mark_done", step_index=1),
        reply("I am done"),
        call("planner", action="mark_done", step_index=[2, 3]),
        reply("Now really done"),
    ])  # fmt: skip
    async with StateManager(store_url) as store:
        agent = LeanAgent(
            model=model, state_manager=store, max_finish_reminders=0,
            require_work_before_done=False,  # ticks without tools: evidence is tested elsewhere
        )  # fmt: skip
        first = await agent.execute("Three things", "open")
        assert first.status is AgentStatus.INCOMPLETE
        assert first.open_steps == ("s2: Two", "s3: Three")
        assert (await store.load_state("open") or {})["status"] == "incomplete"
        second = await agent.execute("Three things", "open")
    assert second.status is AgentStatus.COMPLETED and second.open_steps == ()


async def test_a_session_records_its_model_but_never_a_key(
    store_url: str, openai_server: FakeOpenAIServer
) -> None:
    from taskforce.models.litellm_model import LiteLLMModel

    openai_server.script(fake_reply("hello"))
    llm = LiteLLMModel("openai/some-model", api_base=openai_server.url, api_key="sk-secret-key")
    async with StateManager(store_url) as store:
        scripted = ScriptedModel([reply("hi")], name="my-model")
        await LeanAgent(model=scripted, state_manager=store).execute("Hi", "m")
        assert (await store.load_state("m") or {})["model"] == {"name": "my-model"}
        await LeanAgent(model=llm, state_manager=store).execute("Hi", "m")
        state = await store.load_state("m")
    assert state is not None
    assert state["model"] == {"name": "openai/some-model", "api_base": openai_server.url}
    assert "sk-secret-key" not in json.dumps(state)


def test_a_password_in_the_api_base_is_not_recorded() -> None:
    model = ScriptedModel(name="m")
    model.api_base = "http://user:pw@host:9/v1"  # type: ignore[attr-defined]
    assert model_record(model) == {"name": "m", "api_base": "http://user@host:9/v1"}
