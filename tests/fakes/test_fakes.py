"""The shared test infrastructure itself: the network guard and the fake OpenAI server."""

from __future__ import annotations

import json
import socket
import urllib.request

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, error, reply, tool_call


def test_network_guard_blocks_non_loopback(_network_guard: list[str]) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        with pytest.raises(OSError, match="only loopback"):
            sock.connect(("10.1.2.3", 443))
        with pytest.raises(OSError, match="only loopback"):
            sock.connect_ex(("10.1.2.3", 443))
    with pytest.raises(OSError, match="only loopback"):
        socket.create_connection(("example.com", 443), timeout=0.1)
    assert _network_guard == ["('10.1.2.3', 443)"] * 2 + ["('example.com', 443)"]
    _network_guard.clear()  # otherwise the guard fails this test at teardown, as designed


def test_network_guard_allows_loopback(openai_server: FakeOpenAIServer) -> None:
    with socket.create_connection(("127.0.0.1", openai_server.port), timeout=5):
        pass
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        assert sock.connect_ex(("127.0.0.1", openai_server.port)) == 0


def _post(server: FakeOpenAIServer, body: dict[str, object]) -> tuple[int, bytes]:
    req = urllib.request.Request(
        f"{server.url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer k"},
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_fake_server_script_errors_callables_and_exhaustion(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.script(
        error(429, "slow", headers={"retry-after": "1"}),
        lambda body: reply(f"got {len(body['messages'])}"),
    )
    status, data = _post(openai_server, {"messages": [{"role": "user", "content": "a"}]})
    assert status == 429 and json.loads(data)["error"]["message"] == "slow"
    status, data = _post(openai_server, {"messages": [{"role": "user", "content": "a"}]})
    assert json.loads(data)["choices"][0]["message"]["content"] == "got 1"
    status, data = _post(openai_server, {"messages": []})
    assert status == 400 and b"script exhausted" in data
    assert len(openai_server.requests) == 3
    assert openai_server.requests[0].headers["authorization"] == "Bearer k"


def test_fake_server_streams_sse(openai_server: FakeOpenAIServer) -> None:
    openai_server.script(reply("Hello!", tool_calls=[tool_call("t", {"a": 1}, id="c1")]))
    _, data = _post(
        openai_server,
        {"messages": [], "stream": True, "stream_options": {"include_usage": True}},
    )
    events = [line[6:] for line in data.decode().splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == "Hello!"
    assert chunks[-1]["usage"]["total_tokens"] == 15
    calls = [c["choices"][0]["delta"].get("tool_calls") for c in chunks if c["choices"]]
    assert [tc for tc in calls if tc] == [
        [
            {
                "index": 0,
                "type": "function",
                "function": {"name": "t", "arguments": '{"a": 1}'},
                "id": "c1",
            }
        ]
    ]
