"""Nothing from data reaches the terminal raw: escapes, bidi overrides, rich markup."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from taskforce.store import StateManager
from tests.cli.conftest import TASKFORCE, Invoke, run_bin, session_of
from tests.fakes.openai_server import FakeOpenAIServer, reply, tool_call
from tests.terminal import HOSTILE, raw_controls, run_in_pty

BAD = " | ".join(HOSTILE.values())


def _strings(data: Any) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from _strings(value)


def _plant(url: str) -> None:
    """Sessions whose every text field holds hostile text, as another program could write."""
    tasks = [
        {"id": "s1", "description": f"done {BAD}", "status": "DONE", "note": BAD},
        {"id": "s2", "description": f"open {BAD}", "status": "IN_PROGRESS"},
        {"id": "s3", "description": f"gated {BAD}", "status": "PENDING",
         "requires_approval": True},
    ]  # fmt: skip
    plan = {"tasks": tasks, "version": 3, "revision": 1, "next_id": 4}
    pending = {"tool_call_id": "c1", "name": "planner", "preview": f"mark_done {BAD}",
               "arguments": "{}", "step": "s3"}  # fmt: skip

    async def main() -> None:
        async with StateManager(url) as store:
            await store.save_state(
                "hostile", {"mission": BAD, "title": BAD, "status": "running", "plan": plan}
            )
            await store.save_state(
                "waiting", {"mission": BAD, "status": "paused", "plan": plan,
                            "pending_approval": pending},
            )  # fmt: skip

    asyncio.run(main())


@pytest.mark.parametrize(
    "args",
    [
        ["sessions"],
        ["sessions", "--summary"],
        ["plan", "show", "hostile"],
        ["plan", "show", "hostile", "--raw"],
        ["plan", "show", "waiting"],
        ["plan", "export", "hostile"],
        ["run", "--session", "waiting"],
    ],
    ids=lambda a: "-".join(a),
)
def test_stored_text_is_shown_neutralised(cli: Invoke, db_url: str, args: list[str]) -> None:
    _plant(db_url)
    result = cli(*args)
    assert result.exit_code in (0, 6), result.output
    assert raw_controls(result.stdout) == [] and raw_controls(result.stderr) == []
    assert "␛[2J" in result.output  # shown, not hidden


@pytest.mark.parametrize(
    "args",
    [["sessions", "--json"], ["sessions", "--summary", "--json"], ["plan", "show", "hostile",
                                                                   "--json"]],
)  # fmt: skip
def test_json_output_is_safe_and_lossless(cli: Invoke, db_url: str, args: list[str]) -> None:
    _plant(db_url)
    result = cli(*args)
    assert result.exit_code == 0 and raw_controls(result.stdout) == []
    decoded = list(_strings(json.loads(result.stdout)))
    assert any(HOSTILE["clear"] + " | " + HOSTILE["link"] in text for text in decoded)


def test_rich_markup_in_data_is_never_interpreted(cli: Invoke, db_url: str) -> None:
    markup = "[red]red[/red] [link=http://evil.example/]x[/link]"

    async def plant() -> None:
        async with StateManager(db_url) as store:
            await store.save_state("markup", {"mission": markup, "status": markup})

    asyncio.run(plant())
    assert "[red]red[/red] [link=http://evil.example/]" in cli("sessions").stdout  # then cut
    assert markup in cli("plan", "show", "markup").stdout
    assert "[red]red[/red] [link=http://evil" in cli("sessions", "--summary").stdout


def test_a_typed_mission_and_the_model_answer_are_neutralised(cli: Invoke) -> None:
    plain = cli("run", f"Write it; ship it {HOSTILE['clear']}", "--plain")
    assert plain.exit_code == 0 and raw_controls(plain.output) == []
    with FakeOpenAIServer() as server:
        server.script(
            reply(tool_calls=[tool_call("planner", {"action": "create_plan",
                                                    "tasks": ["Say it"]})]),
            reply(tool_calls=[tool_call("planner", {"action": "mark_done", "step_index": 1,
                                                    "note": BAD})]),
            reply(f"Answer: {BAD}"),
        )  # fmt: skip
        result = cli("run", "Say it", "--plain", "--model", "openai/m", "--api-base", server.url)
    assert result.exit_code == 0, result.output
    assert raw_controls(result.output) == [] and "Answer: " in result.stdout
    sid = session_of(result.stdout)
    assert raw_controls(cli("plan", "show", sid).stdout) == []


@pytest.mark.skipif(not TASKFORCE.exists(), reason="taskforce is not installed")
def test_the_live_view_on_a_terminal_shows_no_raw_sequence(tmp_path: Path) -> None:
    env = {**os.environ, "TASKFORCE_DB_URL": f"sqlite:///{tmp_path / 'tf.db'}", "COLUMNS": "120",
           "TERM": "xterm-256color"}  # fmt: skip
    env.pop("TASKFORCE_MODEL", None)
    with FakeOpenAIServer() as server:
        server.script(
            reply(tool_calls=[tool_call("planner", {"action": "create_plan",
                                                    "tasks": [f"Step {BAD}"]})]),
            reply(tool_calls=[tool_call("planner", {"action": "mark_done", "step_index": 1,
                                                    "note": BAD}),
                              tool_call(f"no_such_tool{HOSTILE['erase']}", {})]),
            reply(f"Final answer: {BAD}"),
        )  # fmt: skip
        args = [str(TASKFORCE), "run", f"Mission {HOSTILE['title']}", "--model", "openai/m",
                "--api-base", server.url]  # fmt: skip
        code, output = run_in_pty(args, env)
    assert code == 0, output
    assert "Final answer" in output
    assert raw_controls(output, terminal=True) == []


@pytest.mark.skipif(not TASKFORCE.exists(), reason="taskforce is not installed")
@pytest.mark.parametrize(
    "args",
    [
        ["plan", "show", "a", HOSTILE["clear"]],  # an unexpected extra argument, quoted
        [f"--x{HOSTILE['erase']}"],  # an unknown option, quoted
        ["sessions", "--limit", HOSTILE["link"]],
        ["plan", "show", HOSTILE["title"]],  # an invalid session id
    ],
    ids=["extra", "option", "limit", "session"],
)
def test_usage_errors_quote_arguments_safely(tmp_path: Path, args: list[str]) -> None:
    result = run_bin(args, f"sqlite:///{tmp_path / 'tf.db'}")
    assert result.returncode == 2, result.stderr
    assert raw_controls(result.stdout) == [] and raw_controls(result.stderr) == []
    assert "Traceback" not in result.stderr
