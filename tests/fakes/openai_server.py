"""A scriptable OpenAI-compatible chat-completions server on 127.0.0.1, for tests.

It lets tests drive litellm's *real* HTTP path while deciding what the "model" answers::

    with FakeOpenAIServer() as server:
        server.script(
            reply(tool_calls=[tool_call("planner", {"action": "read_plan"}, id="call_1")]),
            error(429, headers={"retry-after": "0"}),
            reply("done", prompt_tokens=12, completion_tokens=3),
            lambda body: reply(f"you sent {len(body['messages'])} messages"),
        )
        ...  # point a client at server.url ("http://127.0.0.1:PORT/v1")
        server.requests[0].body["tools"]  # every request is recorded

Each POST to ``/v1/chat/completions`` (or ``/chat/completions``) consumes the next scripted
item: a :class:`Reply`, an :class:`ErrorReply`, or a callable ``(request_body) -> item``.
When the script is exhausted the server answers HTTP 400 with a message saying so (400 is
not retried by clients, so a test that under-scripts fails fast and clearly).

``FakeOpenAIServer(tokenizer=True)`` also answers llama.cpp's ``POST /apply-template``
(the prompt: :func:`template_of` the request) and ``POST /tokenize`` (one token per
whitespace-separated word: :func:`tokens_of`), so a test knows every count exactly.
``FakeOpenAIServer(n_ctx=8192)`` answers llama.cpp's ``GET /props`` with that context size.
``stream=true`` requests get the same reply as server-sent events.
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "ErrorReply",
    "FakeOpenAIServer",
    "RecordedRequest",
    "Reply",
    "ScriptItem",
    "error",
    "reply",
    "template_of",
    "tokens_of",
    "tool_call",
]

_ids = itertools.count(1)


@dataclass(frozen=True)
class Reply:
    """A successful chat completion. ``tool_calls`` are OpenAI wire dicts (see tool_call)."""

    content: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = ()
    prompt_tokens: int = 10
    completion_tokens: int = 5
    finish_reason: str | None = None  # default: "tool_calls" if tool calls else "stop"
    model: str = "test-model"
    delay: float = 0.0  # seconds to wait before answering (for timeout tests)


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error answer: status code, JSON (or raw text) body and extra headers."""

    status: int
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0


ScriptItem = Reply | ErrorReply | Callable[[dict[str, Any]], "Reply | ErrorReply"]


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received: its path, headers (lower-cased names) and body."""

    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes


def tool_call(
    name: str, arguments: Any = None, *, id: str | None = None, raw: bool = False
) -> dict[str, Any]:
    """An OpenAI tool call; ``arguments`` is JSON-encoded unless ``raw`` (sent verbatim).

    Pass ``id=""`` to send a call without an ``id`` key at all.
    """
    args = arguments if raw else json.dumps({} if arguments is None else arguments)
    call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": args}}
    if id != "":
        call["id"] = id or f"call_{next(_ids)}"
    return call


def reply(
    content: str | None = None,
    *,
    tool_calls: Sequence[dict[str, Any]] = (),
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
    finish_reason: str | None = None,
    delay: float = 0.0,
) -> Reply:
    """A successful answer with text and/or tool calls."""
    return Reply(
        content, tuple(tool_calls), prompt_tokens, completion_tokens, finish_reason, delay=delay
    )


def error(
    status: int,
    message: str | None = None,
    *,
    type: str | None = None,
    code: str | None = None,
    headers: Mapping[str, str] | None = None,
    body: Any = None,
    delay: float = 0.0,
) -> ErrorReply:
    """An error answer shaped like OpenAI's ``{"error": {...}}`` unless ``body`` is given."""
    if body is None:
        body = {
            "error": {
                "message": message or f"fake server error {status}",
                "type": type or ("rate_limit_error" if status == 429 else "server_error"),
                "param": None,
                "code": code,
            }
        }
    return ErrorReply(status, body, dict(headers or {}), delay)


class FakeOpenAIServer:
    """A threaded HTTP server answering chat completions from a script; records requests."""

    def __init__(self, *, tokenizer: bool = False, n_ctx: int | None = None) -> None:
        self.tokenizer = tokenizer
        self.n_ctx = n_ctx  # llama.cpp's GET /props tells it when set
        self._items: deque[ScriptItem] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.requests: list[RecordedRequest] = []
        self._httpd = _QuietServer(("127.0.0.1", 0), _make_handler(self))
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The TCP port the server listens on."""
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The OpenAI-style base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *items: ScriptItem) -> FakeOpenAIServer:
        """Append items to the answer queue (consumed one per request, in order)."""
        with self._lock:
            self._items.extend(items)
        return self

    def clear(self) -> None:
        """Drop the scripted items not consumed yet."""
        with self._lock:
            self._items.clear()

    @property
    def pending(self) -> int:
        """How many scripted items have not been consumed yet."""
        with self._lock:
            return len(self._items)

    @property
    def bodies(self) -> list[Any]:
        """The JSON bodies of all recorded chat-completion requests, in order."""
        return [r.body for r in self.requests]

    def start(self) -> FakeOpenAIServer:
        """Serve in a daemon thread."""
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving; handlers still sleeping on a ``delay`` are woken up."""
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- called from handler threads -------------------------------------------------------

    def _next(self, body: Any) -> Reply | ErrorReply:
        with self._lock:
            item = self._items.popleft() if self._items else None
        if item is None:
            return error(400, "fake OpenAI server: script exhausted (no reply scripted)")
        if callable(item):
            return item(body)
        return item

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._stop.wait(seconds)


class _QuietServer(ThreadingHTTPServer):
    """Daemon handler threads; a client hanging up (e.g. after its timeout) is not an error."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def template_of(body: Mapping[str, Any]) -> str:
    """The fake chat template: each tool's JSON, then each message's role and JSON.

    The tools come first, as in Qwen's template (it puts them in the system prompt): a
    change to the tools offered changes the prompt from its start.
    """
    lines = [f"<tool> {json.dumps(t, sort_keys=True)}" for t in body.get("tools") or []]
    lines += [f"<{m.get('role')}> {json.dumps(m, sort_keys=True)}" for m in body["messages"]]
    return "\n".join(lines)


def tokens_of(prompt: str) -> int:
    """The fake tokenizer's count: whitespace-separated words."""
    return len(token_ids(prompt))


def token_ids(prompt: str) -> list[int]:
    """The fake tokenizer: a whitespace-separated word is a token, its id a hash of it."""
    return [zlib.crc32(word.encode()) for word in prompt.split()]


def _unparsable_arguments(body: Any) -> str | None:
    """llama.cpp's refusal of a conversation holding a tool call whose arguments are not JSON.

    Its server parses every earlier call's arguments to render the chat template, and
    answers HTTP 500 when one does not parse (the fake does the same, so a loop that sends
    such a call back is caught here as it would be there).
    """
    messages = body.get("messages") if isinstance(body, dict) else None
    for message in messages if isinstance(messages, list) else []:
        for call in (message.get("tool_calls") or []) if isinstance(message, dict) else []:
            arguments = (call.get("function") or {}).get("arguments")
            if not isinstance(arguments, str):
                continue
            try:
                json.loads(arguments)
            except ValueError as exc:
                return f"Failed to parse tool call arguments as JSON: {exc}"
    return None


def _completion(r: Reply, stream: bool) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": r.content}
    if r.tool_calls:
        message["tool_calls"] = list(r.tool_calls)
    finish = r.finish_reason or ("tool_calls" if r.tool_calls else "stop")
    return {
        "id": f"chatcmpl-fake{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": r.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {
            "prompt_tokens": r.prompt_tokens,
            "completion_tokens": r.completion_tokens,
            "total_tokens": r.prompt_tokens + r.completion_tokens,
        },
    }


def _sse_chunks(r: Reply, include_usage: bool) -> Iterator[dict[str, Any]]:
    base: dict[str, Any] = {"id": f"chatcmpl-fake{next(_ids)}", "object": "chat.completion.chunk"}
    base |= {"created": int(time.time()), "model": r.model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return base | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    if r.content:
        mid = len(r.content) // 2
        for part in (r.content[:mid], r.content[mid:]):
            if part:
                yield chunk({"content": part})
    for i, call in enumerate(r.tool_calls):
        yield chunk({"tool_calls": [{"index": i, **call}]})
    yield chunk({}, r.finish_reason or ("tool_calls" if r.tool_calls else "stop"))
    if include_usage:
        usage = _completion(r, False)["usage"]
        yield base | {"choices": [], "usage": usage}


def _make_handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _send(
            self, status: int, payload: Any, headers: Mapping[str, str] | None = None
        ) -> None:
            if isinstance(payload, bytes):
                data = payload
            elif isinstance(payload, str):
                data = payload.encode()
            else:
                data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": "test-model"}]})
            elif self.path == "/props" and server.n_ctx is not None:
                self._send(200, {"default_generation_settings": {"n_ctx": server.n_ctx}})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body: Any = json.loads(raw or b"null")
            except ValueError:
                body = None
            headers = {k.lower(): v for k, v in self.headers.items()}
            path = self.path.split("?")[0].rstrip("/")
            refused = _unparsable_arguments(body)
            if refused is not None and path.endswith(("/apply-template", "/chat/completions")):
                server.requests.append(RecordedRequest(self.path, headers, body, raw))
                self._send(500, {"error": {"code": 500, "message": refused}})
                return
            if server.tokenizer and path == "/apply-template" and isinstance(body, dict):
                self._send(200, {"prompt": template_of(body)})
                return
            if server.tokenizer and path == "/tokenize" and isinstance(body, dict):
                self._send(200, {"tokens": token_ids(str(body.get("content")))})
                return
            if not path.endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            server.requests.append(RecordedRequest(self.path, headers, body, raw))
            item = server._next(body if isinstance(body, dict) else {})
            server._sleep(item.delay)
            if isinstance(item, ErrorReply):
                self._send(item.status, item.body, item.headers)
            elif isinstance(body, dict) and body.get("stream"):
                self._stream(item, bool((body.get("stream_options") or {}).get("include_usage")))
            else:
                self._send(200, _completion(item, False))

        def _stream(self, r: Reply, include_usage: bool) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for c in _sse_chunks(r, include_usage):
                self.wfile.write(f"data: {json.dumps(c)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    return Handler
