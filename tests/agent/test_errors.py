"""Error policy: the model's mistakes go back to it; provider failures stop cleanly;
developer mistakes raise ConfigurationError before anything runs."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from taskforce.agent import AgentStatus, LeanAgent, MemoryStore
from taskforce.agent.prompts import CUT_OFF_REPLY, MALFORMED_REPLY
from taskforce.errors import (
    ConfigurationError,
    InvalidSessionIdError,
    MalformedReplyError,
    ProviderError,
    ToolInputError,
)
from taskforce.models.base import Message, ModelResponse, ToolSpec
from taskforce.testing import FunctionModel, ScriptedModel, call, calls, raw_call, reply
from taskforce.tools.base import ApprovalRiskLevel
from tests.agent.helpers import Events, last_tool_result, tool_results


class Exploding:
    """A tool whose execute raises."""

    name = "explode"
    description = "Always raises."
    parameters_schema: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    requires_approval = False
    approval_risk_level = ApprovalRiskLevel.LOW
    supports_parallelism = True

    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    async def execute(self, **params: Any) -> dict[str, Any]:
        raise self.exc

    def validate_params(self, **params: Any) -> tuple[bool, str | None]:
        return True, None

    def get_approval_preview(self, **params: Any) -> str:
        return "explode()"


async def run_one(turn: Any, tools: list[Any]) -> tuple[Any, ScriptedModel]:
    model = ScriptedModel([turn, reply("recovered")])
    result = await LeanAgent(model=model, tools=tools).execute("Do the thing")
    assert result.status is AgentStatus.COMPLETED and result.final_message == "recovered"
    return last_tool_result(model.requests[1].messages), model


async def test_invalid_arguments_go_back_to_the_model(tools: Any) -> None:
    result, _ = await run_one(call("weather", town="Oslo"), tools[0])
    assert result["success"] is False
    assert result["error_type"] == "invalid_arguments"
    assert "city" in result["error"]
    assert tools[1]["calls"] == []  # never ran


async def test_malformed_json_arguments(tools: Any) -> None:
    result, model = await run_one(raw_call("weather", '{"city": "Oslo"'), tools[0])
    assert result["error_type"] == "malformed_arguments"
    assert "not valid JSON" in result["error"]
    # the error quotes what the model sent; the call itself goes back as {}, which every
    # provider parses (llama.cpp's server refuses a conversation holding the raw text)
    assert 'you sent: {"city": "Oslo".' in result["error"]
    assistant = model.requests[1].messages[-2]
    assert assistant["tool_calls"][0]["function"]["arguments"] == "{}"


async def test_long_malformed_arguments_are_quoted_in_part(tools: Any) -> None:
    text = '{"city": "' + "O" * 500
    result, _ = await run_one(raw_call("weather", text), tools[0])
    assert f"you sent: {text[:200]}…" in result["error"] and text[:201] not in result["error"]


async def test_non_object_arguments(tools: Any) -> None:
    result, _ = await run_one(raw_call("weather", '["Oslo"]'), tools[0])
    assert result["error_type"] == "malformed_arguments" and "JSON object" in result["error"]


async def test_double_encoded_arguments_are_accepted(tools: Any) -> None:
    result, _ = await run_one(raw_call("weather", '"{\\"city\\": \\"Rome\\"}"'), tools[0])
    assert result == {"success": True, "output": "19°C, sunny"}


async def test_unknown_tool_lists_available_ones(tools: Any) -> None:
    result, _ = await run_one(call("web_search", q="x"), tools[0])
    assert result["error_type"] == "unknown_tool"
    assert "web_search" in result["error"] and "weather" in result["error"]
    assert "plain text" not in result["error"]  # only an answer's name gets that hint
    for name, hinted in (("final_answer", True), ("Respond", True), ("submit_order", False)):
        result, _ = await run_one(call(name, item="x", quantity=2), tools[0])
        assert ("reply with it in plain text" in result["error"]) is hinted, name


@pytest.mark.parametrize(
    ("exc", "error_type"),
    [(RuntimeError("disk on fire"), "tool_exception"), (ToolInputError("bad id", "x"), "x")],
)
async def test_tool_that_raises(exc: Exception, error_type: str) -> None:
    result, _ = await run_one(call("explode"), [Exploding(exc)])
    assert result["success"] is False and result["error_type"] == error_type
    assert str(exc) in result["error"]


async def test_several_errors_in_one_turn_all_answered(tools: Any) -> None:
    turn = calls(
        raw_call("weather", "{oops"),
        call("nope"),
        call("weather", city="Oslo"),
        call("explode"),
    )
    model = ScriptedModel([turn, reply("ok")])
    result = await LeanAgent(model=model, tools=[*tools[0], Exploding(ValueError("v"))]).execute(
        "x"
    )
    assert result.status is AgentStatus.COMPLETED
    results = tool_results(model.requests[1].messages)
    assert [results[f"call_{i}"]["success"] for i in range(1, 5)] == [False, False, True, False]


async def test_provider_error_stops_cleanly_with_state_saved(tools: Any, events: Events) -> None:
    store = MemoryStore()
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["A", "B"]),
            ProviderError("rate limited (gave up after 4 attempts)", retryable=True),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], state_manager=store, on_event=events)
    result = await agent.execute("Do A and B", "s-fail")
    assert result.status is AgentStatus.FAILED
    assert "rate limited" in (result.error or "") and "rate limited" in result.final_message
    assert result.open_steps == ("s1: A", "s2: B")
    state = await store.load_state("s-fail")
    assert state is not None
    assert state["status"] == "failed" and "rate limited" in state["error"]
    assert [t["description"] for t in state["plan"]["tasks"]] == ["A", "B"]
    assert events.of("error")[-1].data["recovered"] is False


async def test_unexpected_model_exception_propagates() -> None:
    model = ScriptedModel([KeyError("bug in a custom model")])
    with pytest.raises(KeyError):
        await LeanAgent(model=model).execute("hi")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_steps": 0},
        {"max_steps": True},
        {"max_tool_calls_per_turn": 0},
        {"history_limit": -1},
        {"max_finish_reminders": -1},
        {"context_window": 10},
        {"system_prompt": "   "},
        {"on_event": "print"},
        {"tools": "weather"},
        {"tools": [object()]},
        {"api_key": "sk-only-for-strings"},
        {"temperature": 0.2},
    ],
)
def test_configuration_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        LeanAgent(model=ScriptedModel([]), **kwargs)


def test_bad_model_and_duplicate_tool_names(tools: Any) -> None:
    with pytest.raises(ConfigurationError, match="model"):
        LeanAgent(model=42)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="two tools"):
        LeanAgent(model=ScriptedModel([]), tools=[tools[0][1], tools[0][1]])
    with pytest.raises(ConfigurationError, match="planner"):
        LeanAgent(model=ScriptedModel([]), tools=[_P(ValueError())])


class _P(Exploding):
    name = "planner"


async def test_empty_mission_is_refused() -> None:
    model = ScriptedModel([reply("x")])
    with pytest.raises(ConfigurationError):
        await LeanAgent(model=model).execute("  ")
    assert model.requests == []


def test_model_string_builds_litellm_model_lazily() -> None:
    agent = LeanAgent(
        model="openai/test-model", api_base="http://127.0.0.1:9/v1", api_key="sk-x", temperature=0
    )
    from taskforce.models.litellm_model import LiteLLMModel

    assert isinstance(agent.model, LiteLLMModel)
    assert agent.model.name == "openai/test-model"
    with pytest.raises(ConfigurationError):
        LeanAgent(model="openai/x", stream=True)  # LiteLLMModel manages `stream` itself


@pytest.mark.parametrize("bad", ["", "has space", "x" * 129, "semi;colon"])
async def test_invalid_session_id_is_refused_before_anything_runs(bad: str) -> None:
    model = ScriptedModel([reply("x")])
    with pytest.raises(InvalidSessionIdError):
        await LeanAgent(model=model).execute("hi", bad)
    assert model.requests == []


async def test_a_reply_the_provider_cannot_parse_is_asked_once_more_with_a_note(
    events: Events,
) -> None:
    seen: list[list[Message]] = []

    def answer(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        seen.append(messages)
        if len(seen) == 1:
            raise MalformedReplyError("Failed to parse tool call arguments as JSON")
        return reply("Oslo: 4°C.")

    agent = LeanAgent(model=FunctionModel(answer), tools=[], plan_first=False, on_event=events)
    result = await agent.execute("Weather in Oslo?")
    assert result.status is AgentStatus.COMPLETED and result.final_message == "Oslo: 4°C."
    assert seen[1][-1]["content"] == MALFORMED_REPLY and seen[1][:-1] == seen[0]
    assert [e.data["recovered"] for e in events.of("error")] == [True]

    # the provider's parser ran out of input: the reply was cut off, and the note says so
    seen.clear()
    said = "Failed to parse tool call arguments as JSON: unexpected end of input"

    def cut(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        seen.append(messages)
        if len(seen) == 1:
            raise MalformedReplyError(said)
        return reply("Oslo: 4°C.")

    result = await LeanAgent(model=FunctionModel(cut), tools=[], plan_first=False).execute("Oslo?")
    assert result.final_message == "Oslo: 4°C." and seen[1][-1]["content"] == CUT_OFF_REPLY

    # twice in a row: the run fails cleanly, the error named
    def broken(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        raise MalformedReplyError("not JSON")

    agent = LeanAgent(model=FunctionModel(broken), tools=[], plan_first=False)
    result = await agent.execute("Weather?")
    assert result.status is AgentStatus.FAILED and "not JSON" in (result.error or "")


async def test_plain_functions_are_wrapped_as_tools() -> None:
    seen: list[str] = []

    def weather(city: str) -> str:
        """Today's weather in a city."""
        seen.append(city)
        return "sun"

    async def clock() -> str:
        """The time now."""
        return "12:00"

    model = ScriptedModel([call("weather", city="Oslo"), call("clock"), reply("sun at noon")])
    agent = LeanAgent(model=model, tools=[weather, clock])
    assert list(agent.tools) == ["planner", "weather", "clock"]
    assert agent.tools["weather"].description == "Today's weather in a city."
    result = await agent.execute("Weather in Oslo, and the time?")
    assert seen == ["Oslo"] and result.final_message == "sun at noon"
    outputs = [r.get("output") for r in tool_results(model.requests[-1].messages).values()]
    assert outputs == ["sun", "12:00"]


def test_what_cannot_be_a_tool_is_named() -> None:
    def unresolved(x: NoSuchType) -> str:  # type: ignore[name-defined]  # noqa: F821
        """A hint that does not resolve."""
        return ""

    with pytest.raises(ConfigurationError, match=r"function .*unresolved.* cannot be a tool"):
        LeanAgent(model=ScriptedModel([]), tools=[unresolved])
    with pytest.raises(ConfigurationError, match="is not a tool: give a function"):
        LeanAgent(model=ScriptedModel([]), tools=[dict])  # a class is not a function
    with pytest.raises(ConfigurationError, match="must match"):
        LeanAgent(model=ScriptedModel([]), tools=[lambda: 1])  # named "<lambda>"
