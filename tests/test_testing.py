"""taskforce.testing: the scripted and function models users write their tests with."""

from __future__ import annotations

import json
from typing import Any

import pytest

from taskforce.errors import ProviderError
from taskforce.models.base import Model, ModelResponse, NoCalls, ToolCall, Usage
from taskforce.testing import (
    FunctionModel,
    ScriptedModel,
    ScriptExhaustedError,
    call,
    calls,
    estimate_tokens,
    raw_call,
    reply,
)

USER = [{"role": "user", "content": "hi"}]
TOOL = {"type": "function", "function": {"name": "t", "description": "", "parameters": {}}}


def test_builders() -> None:
    assert reply("hello") == ModelResponse(content="hello")
    assert reply("x", prompt_tokens=3, completion_tokens=1).usage == Usage(3, 1)
    one = call("planner", action="create_plan", tasks=["a", "b"])
    assert one.content is None
    (tc,) = one.tool_calls
    assert tc.name == "planner" and tc.id == ""
    assert json.loads(tc.arguments) == {"action": "create_plan", "tasks": ["a", "b"]}
    assert call("w", id="c9", content="thinking", city="Oslo").tool_calls[0].id == "c9"
    assert call("w", content="thinking").content == "thinking"
    several = calls(call("a", x=1), call("b", y=2), content="both")
    assert [c.name for c in several.tool_calls] == ["a", "b"] and several.content == "both"
    assert raw_call("w", "{broken").tool_calls[0].arguments == "{broken"


def test_models_satisfy_the_protocol() -> None:
    assert isinstance(ScriptedModel([]), Model)
    assert isinstance(FunctionModel(lambda m, t: reply("x")), Model)
    assert ScriptedModel([], context_window=4096).context_window == 4096
    assert ScriptedModel([]).context_window is None
    assert ScriptedModel([], name="mine").name == "mine"
    assert estimate_tokens(USER, [TOOL]) == ScriptedModel([]).count_tokens(USER, [TOOL]) > 0


async def test_scripted_model_replays_and_records() -> None:
    model = ScriptedModel([call("t", q=1), calls(call("t", q=2), call("t", q=3)), reply("done")])
    first = await model.complete(USER, [TOOL])
    second = await model.complete([*USER, {"role": "assistant", "content": "x"}], [])
    third = await model.complete(USER, [TOOL])
    assert [c.id for c in first.tool_calls] == ["call_1"]
    assert [c.id for c in second.tool_calls] == ["call_2", "call_3"]  # unique ids per model
    assert third.content == "done"
    assert len(model.requests) == 3 and model.remaining == 0
    assert model.requests[1].messages[-1] == {"role": "assistant", "content": "x"}
    assert model.requests[0].tool_names == ["t"] and model.requests[1].tools == []


async def test_recorded_requests_are_copies() -> None:
    messages = [{"role": "user", "content": "before"}]
    model = ScriptedModel([reply("a")])
    await model.complete(messages, [])
    messages[0]["content"] = "after"
    assert model.requests[0].messages[0]["content"] == "before"


async def test_explicit_ids_are_kept() -> None:
    model = ScriptedModel([call("t", id="mine")])
    assert (await model.complete(USER, [])).tool_calls[0] == ToolCall("mine", "t", "{}")


async def test_script_exhausted_is_a_clear_error() -> None:
    model = ScriptedModel([reply("only one")])
    await model.complete(USER, [])
    with pytest.raises(ScriptExhaustedError, match="script has only 1"):
        await model.complete(USER, [])
    assert isinstance(ScriptExhaustedError("x"), AssertionError)


async def test_script_can_raise_and_compute() -> None:
    def computed(messages: list[dict[str, Any]], tools: list[Any]) -> ModelResponse:
        return reply(f"{len(messages)} messages, {len(tools)} tools")

    async def computed_async(messages: list[dict[str, Any]], tools: list[Any]) -> ModelResponse:
        return reply("async")

    model = ScriptedModel([ProviderError("429", retryable=True), computed]).extend(computed_async)
    with pytest.raises(ProviderError):
        await model.complete(USER, [])
    assert (await model.complete(USER, [TOOL])).content == "1 messages, 1 tools"
    assert (await model.complete(USER, [])).content == "async"


async def test_function_model_sync_and_async() -> None:
    seen: list[int] = []

    def fn(messages: list[dict[str, Any]], tools: list[Any]) -> ModelResponse:
        seen.append(len(messages))
        return call("t", n=len(messages)) if len(messages) < 2 else reply("enough")

    model = FunctionModel(fn)
    r1 = await model.complete(USER, [TOOL])
    r2 = await model.complete([*USER, *USER], [TOOL])
    assert r1.tool_calls[0].id == "call_1" and json.loads(r1.tool_calls[0].arguments) == {"n": 1}
    assert r2.content == "enough" and seen == [1, 2] and len(model.requests) == 2

    async def afn(messages: list[dict[str, Any]], tools: list[Any]) -> ModelResponse:
        return reply("from async")

    assert (await FunctionModel(afn).complete(USER, [])).content == "from async"


async def test_function_model_rejects_wrong_return_type() -> None:
    model = FunctionModel(lambda m, t: "just text")  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="ModelResponse"):
        await model.complete(USER, [])


async def test_function_model_drives_a_whole_agent_run() -> None:
    from taskforce.agent import AgentStatus, LeanAgent

    def fn(messages: list[dict[str, Any]], tools: list[Any]) -> ModelResponse:
        if messages[-1]["role"] == "user" and "Plan" not in str(messages[-1]["content"]):
            return call("planner", action="create_plan", tasks=["Only step"])
        if "[ ] 1." in str(messages[-1]["content"]):
            return call("planner", action="mark_done", step_index=[1], note="done by hand")
        return reply("finished")

    result = await LeanAgent(model=FunctionModel(fn), plan_first=False).execute("Do it")
    assert result.status is AgentStatus.COMPLETED and result.final_message == "finished"
    assert result.plan_markdown == "- [x] 1. Only step — done by hand"


async def test_a_request_that_allows_no_call_is_recorded_and_shown_so() -> None:
    shown: list[list[dict[str, Any]]] = []

    def answer(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelResponse:
        shown.append(tools)
        return reply("ok")

    model = FunctionModel(answer)
    await model.complete(USER, [TOOL])
    await model.complete(USER, NoCalls([TOOL]))
    assert [r.no_calls for r in model.requests] == [False, True]
    assert model.requests[1].tool_names == ["t"]  # shown all the same
    assert not isinstance(shown[0], NoCalls) and isinstance(shown[1], NoCalls)
    assert shown[1] == [TOOL] and shown[1] is not model.requests[1].tools  # a copy
