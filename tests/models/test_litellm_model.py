"""LiteLLMModel through litellm's real HTTP path against the fake OpenAI server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
import threading
from typing import Any

import pytest

from taskforce.errors import (
    ConfigurationError,
    ContextWindowExceededError,
    MalformedReplyError,
    ProviderError,
)
from taskforce.models.base import Model, ModelResponse, NoCalls, ToolCall
from taskforce.models.litellm_model import LiteLLMModel, _import_litellm
from tests.fakes.openai_server import FakeOpenAIServer, Reply, error, reply, tool_call

KEY = "sk-test-0123456789abcdef-secret"
USER = [{"role": "user", "content": "hello"}]
PLANNER = {
    "type": "function",
    "function": {
        "name": "planner",
        "description": "Manage the plan.",
        "parameters": {
            "type": "object",
            "properties": {"action": {"type": "string", "enum": ["create_plan", "read_plan"]}},
            "required": ["action"],
        },
    },
}


def make(server: FakeOpenAIServer, **kw: Any) -> LiteLLMModel:
    options: dict[str, Any] = {"api_key": KEY, "retry_wait": (0.0, 0.0), "max_retries": 2}
    options.update(kw)
    return LiteLLMModel("openai/test-model", api_base=server.url, **options)


async def test_plain_text_reply_and_usage(openai_server: FakeOpenAIServer) -> None:
    openai_server.script(reply("Hello there.", prompt_tokens=17, completion_tokens=4))
    model = make(openai_server)
    assert isinstance(model, Model)
    out = await model.complete(USER, [])
    assert out == ModelResponse("Hello there.", (), out.usage)
    assert (out.usage.prompt_tokens, out.usage.completion_tokens) == (17, 4)
    body = openai_server.requests[0].body
    assert body["model"] == "test-model"
    assert body["messages"] == USER
    assert "tools" not in body  # no tools -> parameter omitted, not `tools: []`
    assert openai_server.requests[0].headers["authorization"] == f"Bearer {KEY}"


async def test_tool_calls_parsed_and_tools_reach_the_wire(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.script(
        reply(
            tool_calls=[
                tool_call("planner", {"action": "create_plan"}, id="call_a"),
                tool_call("planner", {"action": "read_plan"}, id="call_b"),
            ]
        )
    )
    out = await make(openai_server).complete(USER, [PLANNER])
    assert out.content is None
    assert out.tool_calls == (
        ToolCall("call_a", "planner", '{"action": "create_plan"}'),
        ToolCall("call_b", "planner", '{"action": "read_plan"}'),
    )
    assert openai_server.requests[0].body["tools"] == [PLANNER]


async def test_tools_shown_with_no_call_allowed_go_with_tool_choice_none(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.script(reply("In words."), reply("Free."))
    model = make(openai_server)
    told = await model.complete(USER, NoCalls([PLANNER]))
    await model.complete(USER, [PLANNER])
    assert told.content == "In words."
    first, second = (r.body for r in openai_server.requests)
    assert first["tools"] == [PLANNER] and first["tool_choice"] == "none"
    assert second["tools"] == [PLANNER] and "tool_choice" not in second


def test_a_provider_that_takes_no_tool_choice_is_asked_with_no_tools_shown() -> None:
    litellm = _import_litellm()
    assert LiteLLMModel("openai/x")._takes_tool_choice(litellm)
    assert LiteLLMModel("anthropic/claude-3-5-haiku-latest")._takes_tool_choice(litellm)
    assert not LiteLLMModel("ollama/llama3")._takes_tool_choice(litellm)  # its /api/generate


async def test_multi_turn_tool_messages_reach_the_wire_intact(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.script(
        reply(tool_calls=[tool_call("planner", {"action": "read_plan"}, id="call_1")]),
        reply("All done."),
    )
    model = make(openai_server)
    messages: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}, *USER]
    first = await model.complete(messages, [PLANNER])
    messages.append(first.to_message())
    messages.append({"role": "tool", "tool_call_id": "call_1", "content": "- [ ] s1 Research"})
    second = await model.complete(messages, [PLANNER])
    assert second.content == "All done."
    sent = openai_server.requests[1].body["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    assert sent[2]["tool_calls"] == [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "planner", "arguments": '{"action": "read_plan"}'},
        }
    ]
    assert sent[3] == {"role": "tool", "tool_call_id": "call_1", "content": "- [ ] s1 Research"}
    assert messages[2]["tool_calls"][0]["id"] == "call_1"  # caller's list not mutated


async def test_malformed_arguments_are_returned_raw(openai_server: FakeOpenAIServer) -> None:
    openai_server.script(reply(tool_calls=[tool_call("planner", "{not json", raw=True, id="c1")]))
    out = await make(openai_server).complete(USER, [PLANNER])
    assert out.tool_calls == (ToolCall("c1", "planner", "{not json"),)


async def test_missing_and_duplicate_ids_are_generated(openai_server: FakeOpenAIServer) -> None:
    openai_server.script(
        reply(
            tool_calls=[
                tool_call("planner", {"action": "read_plan"}, id=""),
                tool_call("planner", {"action": "create_plan"}, id="dup"),
                tool_call("planner", {"action": "read_plan"}, id="dup"),
            ]
        )
    )
    out = await make(openai_server).complete(USER, [PLANNER])
    ids = [c.id for c in out.tool_calls]
    assert all(ids) and len(set(ids)) == 3
    assert ids[1] == "dup"
    assert out.tool_calls[0].arguments == '{"action": "read_plan"}'


async def test_rate_limit_then_success_is_retried(
    openai_server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    openai_server.script(
        error(429, "slow down", headers={"retry-after": "0.05"}),
        error(503, "overloaded"),
        reply("ok"),
    )
    with caplog.at_level(logging.WARNING, logger="taskforce.models.litellm_model"):
        out = await make(openai_server).complete(USER, [])
    assert out.content == "ok"
    assert len(openai_server.requests) == 3
    # Retry-After is honoured over the (zero) backoff; the plain 503 uses the backoff
    assert "RateLimitError on attempt 1/3; retrying in 0.05s" in caplog.text
    assert "ServiceUnavailableError on attempt 2/3; retrying in 0.00s" in caplog.text
    assert KEY not in caplog.text


async def test_server_errors_give_up_after_max_retries(openai_server: FakeOpenAIServer) -> None:
    openai_server.script(*[error(500, "boom")] * 10)
    with pytest.raises(ProviderError) as info:
        await make(openai_server, max_retries=3).complete(USER, [])
    assert info.value.retryable is True
    assert len(openai_server.requests) == 4  # first try + 3 retries
    assert "boom" in str(info.value)
    assert "4 attempt" in str(info.value)


async def test_max_retries_zero_means_one_request(openai_server: FakeOpenAIServer) -> None:
    openai_server.script(error(429), reply("never"))
    with pytest.raises(ProviderError):
        await make(openai_server, max_retries=0).complete(USER, [])
    assert len(openai_server.requests) == 1


async def test_timeout_is_retried_then_raised(openai_server: FakeOpenAIServer) -> None:
    openai_server.script(reply("late", delay=3), reply("late", delay=3))
    with pytest.raises(ProviderError) as info:
        await make(openai_server, max_retries=1, timeout=0.2, total_timeout=30).complete(USER, [])
    assert info.value.retryable is True
    assert "timed out" in str(info.value).lower()
    assert len(openai_server.requests) == 2


async def test_connection_refused_is_retryable_provider_error() -> None:
    model = LiteLLMModel(
        "openai/test-model",
        api_base="http://127.0.0.1:9/v1",
        api_key=KEY,
        max_retries=1,
        retry_wait=(0, 0),
    )
    with pytest.raises(ProviderError) as info:
        await model.complete(USER, [])
    assert info.value.retryable is True
    assert "127.0.0.1:9" in str(info.value)


async def test_auth_error_names_the_key_variable(openai_server: FakeOpenAIServer) -> None:
    openai_server.script(error(401, f"Incorrect API key provided: {KEY}", type="invalid_key"))
    with pytest.raises(ProviderError) as info:
        await make(openai_server).complete(USER, [])
    text = str(info.value)
    assert "OPENAI_API_KEY" in text
    assert info.value.retryable is False
    assert len(openai_server.requests) == 1  # not retried
    assert KEY not in text and KEY not in repr(info.value)
    assert info.value.__cause__ is None  # the original (which echoes the key) is dropped


async def test_missing_key_names_the_variable_without_a_request(
    openai_server: FakeOpenAIServer,
) -> None:
    model = LiteLLMModel("openai/test-model", api_base=openai_server.url, retry_wait=(0, 0))
    with pytest.raises(ProviderError) as info:
        await model.complete(USER, [])
    assert "set OPENAI_API_KEY" in str(info.value)
    assert openai_server.requests == []


def test_key_hint_names_other_providers() -> None:
    hint = LiteLLMModel("anthropic/claude-3-5-sonnet-20240620")._key_hint()
    assert "ANTHROPIC_API_KEY" in hint


async def test_context_window_exceeded_is_distinguishable(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.script(
        error(
            400,
            "This model's maximum context length is 8192 tokens. However, your messages "
            "resulted in 9001 tokens.",
            type="invalid_request_error",
            code="context_length_exceeded",
        ),
        # llama.cpp's wording, which litellm does not classify itself
        error(400, "the request exceeds the available context size, try increasing it"),
    )
    model = make(openai_server)
    for _ in range(2):
        with pytest.raises(ContextWindowExceededError) as info:
            await model.complete(USER, [])
        assert info.value.retryable is False
        assert "context window" in str(info.value)
    assert len(openai_server.requests) == 2


async def test_bad_request_is_not_retried(openai_server: FakeOpenAIServer) -> None:
    openai_server.script(error(400, "tools[0].function.name: invalid"), reply("never"))
    with pytest.raises(ProviderError) as info:
        await make(openai_server).complete(USER, [PLANNER])
    assert not isinstance(info.value, ContextWindowExceededError)
    assert "rejected the request" in str(info.value)
    assert "tools[0].function.name: invalid" in str(info.value)
    assert len(openai_server.requests) == 1


async def test_extra_kwargs_pass_through(openai_server: FakeOpenAIServer) -> None:
    openai_server.script(reply("ok"))
    model = make(openai_server, temperature=0.25, extra_headers={"X-Trace": "t1"})
    await model.complete(USER, [])
    assert openai_server.requests[0].body["temperature"] == 0.25
    assert openai_server.requests[0].headers["x-trace"] == "t1"


def test_api_key_never_in_repr() -> None:
    model = LiteLLMModel("openai/test-model", api_key=KEY, api_base="http://127.0.0.1:1/v1")
    assert KEY not in repr(model) and KEY not in str(model)
    assert "api_key=<set>" in repr(model)


@pytest.mark.parametrize(
    ("args", "kwargs", "needle"),
    [
        (("",), {}, "model"),
        (("   ",), {}, "model"),
        (("openai/x",), {"max_retries": -1}, "max_retries"),
        (("openai/x",), {"timeout": 0}, "timeout"),
        (("openai/x",), {"retry_wait": (2, 1)}, "retry_wait"),
        (("openai/x",), {"context_window": 0}, "context_window"),
        (("openai/x",), {"api_key": ""}, "api_key"),
        (("openai/x",), {"stream": True}, "stream"),
        (("openai/x",), {"num_retries": 5}, "num_retries"),
    ],
)
def test_invalid_configuration(args: tuple[Any, ...], kwargs: dict[str, Any], needle: str) -> None:
    with pytest.raises(ConfigurationError, match=needle):
        LiteLLMModel(*args, **kwargs)


def test_context_window() -> None:
    assert LiteLLMModel("openai/test-model", context_window=8192).context_window == 8192
    assert LiteLLMModel("openai/no-such-model-xyz").context_window is None
    known = LiteLLMModel("openai/gpt-4o").context_window
    assert known is not None and known >= 100_000  # from litellm's bundled table, offline


def test_count_tokens_offline_for_any_model() -> None:
    messages = [{"role": "user", "content": "word " * 400}]
    for name in ("openai/test-model", "together_ai/meta-llama/Llama-3-70b-chat-hf"):
        model = LiteLLMModel(name)  # llama-3 would make litellm fetch a HF tokenizer
        n = model.count_tokens(messages, [PLANNER])
        assert 380 < n < 700
        assert model.count_tokens(messages, []) < n  # tools are counted


def test_count_tokens_never_downloads_images() -> None:
    image = {"type": "image_url", "image_url": {"url": "http://10.1.2.3/cat.png"}}
    messages = [{"role": "user", "content": [{"type": "text", "text": "what?"}, image]}]
    assert LiteLLMModel("openai/gpt-4o").count_tokens(messages, []) > 0  # guard would fail it


def test_count_tokens_falls_back_to_chars_over_four() -> None:
    odd = [{"role": "user", "content": [{"type": "bogus", "x": 1}]}]  # litellm raises
    n = LiteLLMModel("openai/test-model").count_tokens(odd, [])
    assert n == (len(json.dumps(odd)) + len("[]")) // 4 + 1  # messages + tools JSON


def test_import_does_not_import_litellm() -> None:
    code = (
        "import sys, taskforce.models.litellm_model as m\n"
        "assert 'litellm' not in sys.modules, 'litellm imported eagerly'\n"
        "m.LiteLLMModel('openai/x', api_key='k')\n"
        "assert 'litellm' not in sys.modules, 'constructor imported litellm'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


async def test_key_echoed_by_server_is_redacted_everywhere(
    openai_server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    openai_server.script(*[error(500, f"internal error for key {KEY}")] * 2)
    with caplog.at_level(logging.DEBUG), pytest.raises(ProviderError) as info:
        await make(openai_server, max_retries=1).complete(USER, [])
    assert "internal error for key ***" in str(info.value)
    assert KEY not in str(info.value) and KEY not in repr(info.value)
    assert info.value.__cause__ is None
    assert KEY not in caplog.text


async def test_garbage_reply_is_a_provider_error(openai_server: FakeOpenAIServer) -> None:
    openai_server.script(*[error(200, body="this is not json")] * 3)
    with pytest.raises(ProviderError):
        await make(openai_server).complete(USER, [])


async def test_cancellation_propagates_without_retry(openai_server: FakeOpenAIServer) -> None:
    arrived = threading.Event()

    def slow(body: dict[str, Any]) -> Reply:
        arrived.set()
        return reply("slow", delay=5)

    openai_server.script(slow, reply("never"))
    task = asyncio.ensure_future(make(openai_server).complete(USER, []))
    assert await asyncio.to_thread(arrived.wait, 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(openai_server.requests) == 1


def test_missing_mcp_package_is_a_clear_error_not_retried(tmp_path: Any) -> None:
    # Known litellm pitfall: with tools=, some versions import `mcp` and fail without it.
    code = (
        "import asyncio, sys\n"
        "sys.modules['mcp'] = None  # simulate: mcp not installed\n"
        "from tests.fakes.openai_server import FakeOpenAIServer, reply\n"
        "from taskforce.models.litellm_model import LiteLLMModel\n"
        "from taskforce.errors import ProviderError\n"
        "async def main():\n"
        "    with FakeOpenAIServer() as s:\n"
        "        s.script(reply('ok'), reply('ok'))\n"
        "        m = LiteLLMModel('openai/t', api_base=s.url, api_key='x', retry_wait=(0, 0))\n"
        "        try:\n"
        "            print('REPLY', await m.complete([{'role': 'user', 'content': 'x'}], TOOLS))\n"
        "        except ProviderError as e:\n"
        "            print('ERROR', e.retryable, len(s.requests), e)\n"
        f"TOOLS = [{PLANNER!r}]\n"
        "asyncio.run(main())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    if out.startswith("REPLY"):
        pytest.skip("this litellm version does not need mcp for tools=")
    assert out.startswith("ERROR False 0 ")
    assert "pip install mcp" in out and "No module named" in out


async def test_a_hung_provider_gives_up_within_the_total_budget(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.script(*(reply("never in time", delay=60) for _ in range(4)))
    model = make(openai_server, max_retries=3, timeout=1, total_timeout=2)
    with pytest.raises(ProviderError) as info:
        await model.complete(USER, [])
    assert info.value.retryable is True
    assert "at most 2 s per call" in str(info.value)
    assert 1 <= len(openai_server.requests) <= 2  # the budget, not max_retries, ended it


def test_total_timeout_defaults_and_checks() -> None:
    with pytest.raises(ConfigurationError, match="total_timeout"):
        LiteLLMModel("openai/x", total_timeout=0)
    assert LiteLLMModel("openai/x", api_base="http://127.0.0.1:9/v1").api_base is not None


async def test_a_reply_the_server_cannot_parse_is_malformed_not_retried(
    openai_server: FakeOpenAIServer,
) -> None:
    """llama.cpp answers 500 when the model's tool call is not JSON; the same request repeats it."""
    said = (
        "Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse "
        "error at line 1, column 41: syntax error while parsing value - invalid string"
    )
    openai_server.script(error(500, said), reply("never"))
    with pytest.raises(MalformedReplyError) as info:
        await make(openai_server).complete(USER, [PLANNER])
    assert "could not be parsed" in str(info.value) and "parse_error.101" in str(info.value)
    assert len(openai_server.requests) == 1  # not retried as is


async def test_with_options_sends_them_and_leaves_the_original_alone(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.script(reply("one"), reply("two"))
    model = make(openai_server, temperature=0)
    sampled = model.with_options(temperature=0.7, seed=3)
    assert sampled.name == model.name and sampled.context_window == model.context_window
    await sampled.complete(USER, [])
    await model.complete(USER, [])
    first, second = (r.body for r in openai_server.requests)
    assert (first["temperature"], first["seed"]) == (0.7, 3)
    assert second["temperature"] == 0 and "seed" not in second
    assert openai_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    with pytest.raises(ConfigurationError, match="manages these itself: api_base"):
        model.with_options(api_base="http://elsewhere")
