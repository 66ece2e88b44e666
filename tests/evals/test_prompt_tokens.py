"""ServerTokenCounter: a request sized by the server's own template and tokenizer."""

from __future__ import annotations

import socket

import pytest

from taskforce.errors import ConfigurationError, ProviderError
from taskforce.evals.prompt_tokens import ServerTokenCounter, server_root
from tests.fakes.openai_server import FakeOpenAIServer, template_of, token_ids, tokens_of

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi there"}]
TOOLS = [{"type": "function", "function": {"name": "weather", "parameters": {}}}]


def test_the_root_is_the_base_without_its_v1() -> None:
    assert server_root("http://127.0.0.1:8080/v1/") == "http://127.0.0.1:8080"
    assert server_root(" http://h:1 ") == "http://h:1"
    with pytest.raises(ConfigurationError, match="--api-base"):
        ServerTokenCounter("  ")


async def test_it_counts_the_templated_prompt_with_the_servers_tokenizer() -> None:
    with FakeOpenAIServer(tokenizer=True) as server:
        counter = ServerTokenCounter(server.url)
        with_tools = await counter.count(MESSAGES, TOOLS)
        without = await counter.count(MESSAGES, [])
    assert with_tools == tokens_of(template_of({"messages": MESSAGES, "tools": TOOLS}))
    assert without == tokens_of(template_of({"messages": MESSAGES}))
    assert with_tools > without
    assert server.requests == []  # no chat completion asked


async def test_a_server_without_the_endpoints_is_named_as_not_llama_cpp() -> None:
    refused = pytest.raises(ConfigurationError, match=r"llama\.cpp.*apply-template.*HTTP 404")
    with FakeOpenAIServer() as server, refused:  # an OpenAI-style server only: 404
        await ServerTokenCounter(server.url).count(MESSAGES, [])


async def test_an_unreachable_server_is_a_provider_failure() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: nobody listens there
    with pytest.raises(ProviderError, match=f"127.0.0.1:{port}/apply-template failed") as info:
        await ServerTokenCounter(f"http://127.0.0.1:{port}/v1", timeout=5).count(MESSAGES, [])
    assert info.value.retryable


async def test_it_gives_the_templated_prompt_as_the_servers_token_ids() -> None:
    with FakeOpenAIServer(tokenizer=True) as server:
        ids = await ServerTokenCounter(server.url).tokens(MESSAGES, TOOLS)
    assert ids == token_ids(template_of({"messages": MESSAGES, "tools": TOOLS}))
    assert len(set(ids)) > 1  # ids, not positions
