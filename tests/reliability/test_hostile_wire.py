"""Generated hostile input on the wire: a misbehaving model server, and raw JSON-RPC.

Model replies come from the scripted OpenAI-compatible server through litellm's real HTTP
path: garbage bodies, non-UTF-8 bytes, wrong shapes, huge and nested arguments, control
characters, HTTP errors. Every run ends in a defined state (never "running"), nothing
unencodable is stored, and the CLI's rendering of its events shows nothing raw.
Raw JSON-RPC lines go to a real `taskforce mcp` process over stdio: every request gets
exactly one answer, the server survives, a refused call changes no plan.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import subprocess
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from taskforce.agent import LeanAgent
from taskforce.cli._outcome import report
from taskforce.cli._render import EventPrinter
from taskforce.models.litellm_model import LiteLLMModel
from taskforce.store import StateManager
from tests.cli.conftest import TASKFORCE
from tests.fakes.openai_server import ErrorReply, FakeOpenAIServer, error, reply, tool_call
from tests.reliability.conftest import Mode
from tests.reliability.hostile import hostile_text, jsonrpc_lines
from tests.reliability.invariants import check_plan
from tests.reliability.ledger import Ledger
from tests.reliability.oracles import snapshot, unencodable
from tests.reliability.test_hostile_doors import ENDED, budget
from tests.terminal import raw_controls

# pydantic warns when litellm serialises a reply of the wrong shape; outside the test suite
# that is a warning, here (filterwarnings = error) it would change what litellm does.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _body(message: dict[str, Any]) -> dict[str, Any]:
    return {"id": "x", "object": "chat.completion", "model": "m", "created": 0,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}  # fmt: skip


def _raw(kind: str, text: str) -> Any:
    """One misbehaving answer of the given kind, with `text` where text goes."""
    plan = {"action": "create_plan", "tasks": [text or "x", "two"]}
    shapes: dict[str, Any] = {
        "text": reply(text),
        "call-text": reply(tool_calls=[tool_call("planner", plan)]),
        "huge": reply(text * (1_100_000 // max(1, len(text)) + 1)),
        "nested": reply(tool_calls=[tool_call("planner", "[" * 5000 + "]" * 5000, raw=True)]),
        "bad-args": reply(tool_calls=[tool_call("planner", text, raw=True)]),
        "unknown-tool": reply(tool_calls=[tool_call(text or "?", {"a": text})]),
        "non-utf8": ErrorReply(200, b'{"choices": [{"message": {"content": "\xff\xfe\x1b[2J"}}]}'),
        "truncated": ErrorReply(200, json.dumps(_body({"content": text}))[:40]),
        "empty": ErrorReply(200, b""),
        "no-choices": ErrorReply(200, {"id": "x", "choices": []}),
        "content-number": ErrorReply(200, _body({"role": "assistant", "content": 42})),
        "content-parts": ErrorReply(200, _body({"role": "assistant",
                                                "content": [{"type": "text", "text": text}]})),
        "args-object": ErrorReply(200, _body({"role": "assistant", "content": None,
                                              "tool_calls": [{"id": "c", "type": "function",
                                                              "function": {"name": "planner",
                                                                           "arguments": plan}}]})),
        "500": error(500, text or "boom"),
        "429": error(429, text, headers={"retry-after": "soon"}),
        "400": error(400, text),
    }  # fmt: skip
    return shapes[kind]


KINDS = ["text", "call-text", "huge", "nested", "bad-args", "unknown-tool", "non-utf8",
         "truncated", "empty", "no-choices", "content-number", "content-parts", "args-object",
         "500", "429", "400"]  # fmt: skip
scripts = st.lists(st.tuples(st.sampled_from(KINDS), hostile_text), min_size=1, max_size=3)


async def test_misbehaving_model_server(mode: Mode, ledger: Ledger, tmp_path: Path) -> None:
    db = tmp_path / "wire.db"
    ended: Counter[str] = Counter()
    sent: Counter[str] = Counter()
    examples = _draw(scripts, mode, 10, 150)
    with FakeOpenAIServer() as server:
        server.script(reply("warm"))  # litellm's first call imports much: not under a timeout
        await LiteLLMModel("openai/test-model", api_base=server.url, api_key="sk-x").complete(
            [{"role": "user", "content": "hi"}], []
        )
        async with StateManager(f"sqlite:///{db}") as store:
            for number, script in enumerate(examples):
                server.script(*(_raw(kind, text) for kind, text in script), reply("Done."))
                sent.update(kind for kind, _ in script)
                out, err = io.StringIO(), io.StringIO()
                console = Console(file=out, width=100)
                model = LiteLLMModel("openai/test-model", api_base=server.url, api_key="sk-x",
                                     retry_wait=(0, 0), max_retries=1, timeout=10)  # fmt: skip
                agent = LeanAgent(model=model, state_manager=store, max_steps=4,
                                  on_event=EventPrinter(console))  # fmt: skip
                result = await agent.execute("Do the two things", f"w{number}")
                ended[result.status.value] += 1
                with contextlib.redirect_stderr(err):
                    try:
                        report(console, result, live=False)
                    except BaseException as exc:  # typer.Exit for the non-zero outcomes
                        assert type(exc).__name__ == "Exit", exc
                stored = await store.load_state(f"w{number}")
                assert stored is not None and stored["status"] in ENDED, (script, stored)
                if stored.get("plan"):
                    check_plan(stored["plan"])
                assert raw_controls(out.getvalue() + err.getvalue()) == [], script
                server.clear()  # a run that stopped early leaves replies unasked
    assert unencodable(db) == []
    ledger.record("misbehaving model server (litellm, SQLite)", runs=len(examples),
                  **{"tool calls sent": 0, "exceptions escaped": 0},
                  **{f"replies: {k}": v for k, v in sorted(sent.items())},
                  **{f"ended {k}": v for k, v in sorted(ended.items())})  # fmt: skip


def _draw(strategy: st.SearchStrategy[Any], mode: Mode, quick: int, long: int) -> list[Any]:
    found: list[Any] = []

    @budget(mode, quick, long)
    @given(strategy)
    def collect(value: Any) -> None:
        found.append(value)

    collect()
    return found


class Server:
    """A `taskforce mcp` process over stdio; answers are read line by line."""

    def __init__(self, db: Path) -> None:
        env = {**os.environ, "TASKFORCE_DB_URL": f"sqlite:///{db}"}
        self.proc = subprocess.Popen(
            [str(TASKFORCE), "mcp", "--session", "fuzz"], env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, encoding="utf-8",
            errors="surrogateescape",
        )  # fmt: skip
        self.answers: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.answers.put(line)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        line = self.answers.get(timeout=60)
        message: dict[str, Any] = json.loads(line)  # only JSON-RPC on stdout
        assert message.get("jsonrpc") == "2.0", message
        return message

    def close(self) -> int:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=60)
        self.proc.stdout.close()
        return code


def test_raw_json_rpc_lines(mode: Mode, ledger: Ledger, tmp_path: Path) -> None:
    db = tmp_path / "mcp.db"
    server = Server(db)
    kinds: Counter[str] = Counter()
    try:
        server.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "0"}}}))  # fmt: skip
        assert "result" in server.answer()
        server.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        for line, expect in _draw(jsonrpc_lines(), mode, 150, 3000):
            before = snapshot(db)
            server.send(line)
            answer = server.answer()
            if expect in ("parse-error", "invalid"):
                code = answer["error"]["code"]
                assert code == (-32700 if expect == "parse-error" else -32600), answer
            else:
                assert answer.get("id") == expect, (line, answer)
            refused = "error" in answer or answer.get("result", {}).get("isError")
            kinds["refused" if refused else "answered"] += 1
            if refused:
                assert snapshot(db) == before, f"a refused call changed the data: {line}"
            assert server.proc.poll() is None, "the server died"
    finally:
        code = server.close()
    assert code == 0
    assert unencodable(db) == []
    ledger.record("raw JSON-RPC to `taskforce mcp` (stdio)", lines=sum(kinds.values()),
                  **dict(kinds), **{"exceptions escaped": 0})  # fmt: skip
