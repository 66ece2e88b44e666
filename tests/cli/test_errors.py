"""Errors a user can act on: one line on stderr, a documented exit code, no traceback."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke, session_of
from tests.fakes.openai_server import FakeOpenAIServer, error, reply, tool_call

# litellm builds pydantic schemas lazily; pydantic warns about TypedDict `ReadOnly` items,
# which `filterwarnings = error` would turn into a failed model call (not our behaviour).
pytestmark = pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning")


def _one_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    assert "Traceback" not in text
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.mark.parametrize(
    "args",
    [
        ["plan", "show", "nope"],
        ["plan", "export", "nope"],
        ["run", "--session", "nope"],  # no mission to start it with
        ["approve", "nope"],
        ["reject", "nope"],
    ],
)
def test_unknown_session(cli: Invoke, args: list[str]) -> None:
    result = cli(*args)
    assert result.exit_code == 2
    assert "no session 'nope'" in _one_line(result.stderr)
    assert result.stdout == ""  # nothing printed before the check


@pytest.mark.parametrize("bad", ["has space", "x" * 200, "semi;colon"])
def test_invalid_session_id(cli: Invoke, bad: str) -> None:
    result = cli("plan", "show", bad)
    assert result.exit_code == 2 and "invalid session id" in _one_line(result.stderr)


def test_empty_mission(cli: Invoke) -> None:
    for args in (["run"], ["run", "   "]):
        result = cli(*args)
        assert result.exit_code == 2 and "mission is empty" in _one_line(result.stderr)


def test_raw_and_json_together(cli: Invoke) -> None:
    sid = session_of(cli("run", "a; b").stdout)
    result = cli("plan", "show", sid, "--raw", "--json")
    assert result.exit_code == 2 and "one of --raw and --json" in _one_line(result.stderr)


@pytest.mark.parametrize("model", ["bad model!", "-x", "a" * 300])
def test_malformed_model_name(cli: Invoke, model: str) -> None:
    result = cli("run", "do it", "--model", model)
    assert result.exit_code == 2 and "bad model name" in _one_line(result.stderr)


def test_missing_provider_key_names_the_variable(cli: Invoke) -> None:
    result = cli("run", "do it", "--model", "openai/gpt-4o-mini")
    assert result.exit_code == 2
    assert "set OPENAI_API_KEY" in _one_line(result.stderr)
    env_model = cli("run", "do it", env={"TASKFORCE_MODEL": "anthropic/claude-3-5-haiku-latest"})
    assert env_model.exit_code == 2 and "ANTHROPIC_API_KEY" in env_model.stderr
    assert "No sessions yet" in cli("sessions").stdout  # nothing was created


def test_unknown_provider_is_a_bad_model_name_and_leaves_nothing(cli: Invoke) -> None:
    result = cli("run", "do it", "--model", "nosuchprovider/some-model", "--plain")
    assert result.exit_code == 2
    assert "bad model name 'nosuchprovider/some-model'" in result.stderr
    assert "Traceback" not in result.output
    assert "No sessions yet" in cli("sessions").stdout


def test_provider_rejecting_the_key_names_the_variable(cli: Invoke) -> None:
    with FakeOpenAIServer() as server:
        server.script(error(401, "Incorrect API key provided", type="invalid_request_error"))
        result = cli("run", "do it", "--model", "openai/test-model", "--api-base", server.url)
    assert result.exit_code == 3
    line = _one_line(result.stderr)
    assert "authentication failed" in line and "OPENAI_API_KEY" in line


def test_real_provider_path_through_a_local_server(cli: Invoke) -> None:
    with FakeOpenAIServer() as server:
        server.script(
            reply(tool_calls=[tool_call("planner", {"action": "create_plan",
                                                    "tasks": ["Greet", "Leave"]})]),
            reply(tool_calls=[tool_call("planner", {"action": "mark_done",
                                                    "step_index": [1, 2], "note": "said"})]),
            reply("All done: greeted and left."),
        )  # fmt: skip
        result = cli("run", "Greet, then leave", "--model", "openai/test-model",
                     "--api-base", server.url)  # fmt: skip
        assert server.pending == 0
    assert result.exit_code == 0, result.output
    assert "All done: greeted and left." in result.stdout
    assert "model openai/test-model" in result.stdout and "offline" not in result.stdout
    sid = session_of(result.stdout)
    raw = cli("plan", "show", sid, "--raw").stdout
    assert raw.splitlines() == ["- [x] 1. Greet — said", "- [x] 2. Leave — said"]


def test_unreachable_database(cli: Invoke, tmp_path: Path) -> None:
    pg = "postgresql+asyncpg://user:secret@127.0.0.1:1/nowhere"
    for args in (["sessions"], ["plan", "show", "abc"], ["run", "x"], ["db", "upgrade"]):
        result = cli(*args, "--db", pg)
        assert result.exit_code == 4, (args, result.output)
        line = _one_line(result.stderr)
        assert "127.0.0.1:1" in line and "secret" not in line
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = cli("run", "x", "--db", f"sqlite+aiosqlite:///{blocker}/tf.db")
    assert result.exit_code == 4 and "cannot use the database" in _one_line(result.stderr)


def test_unsupported_database_url(cli: Invoke) -> None:
    result = cli("sessions", "--db", "mysql://localhost/x")
    assert result.exit_code == 2 and "mysql" in _one_line(result.stderr)


def test_database_newer_than_the_code(cli: Invoke, db_url: str, tmp_path: Path) -> None:
    sid = session_of(cli("run", "a; b").stdout)
    with closing(sqlite3.connect(tmp_path / "tf.db")) as conn, conn:  # commit, then close
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    for args in (["sessions"], ["plan", "show", sid], ["run", "x"], ["db", "upgrade"]):
        result = cli(*args)
        assert result.exit_code == 4, (args, result.output)
        line = _one_line(result.stderr)
        assert "newer taskforce" in line and "9999" in line
    current = cli("db", "current")
    assert current.exit_code == 0 and "newer than this taskforce" in current.stdout


def test_debug_shows_the_traceback(cli: Invoke) -> None:
    result = cli("--debug", "plan", "show", "nope")
    assert result.exit_code == 2
    assert "Traceback" in result.stderr and "SessionNotFoundError" in result.stderr
    assert result.stderr.rstrip().splitlines()[-1].startswith("error: no session")
    via_env = cli("plan", "show", "nope", env={"TASKFORCE_DEBUG": "1"})
    assert "Traceback" in via_env.stderr


def test_api_base_without_a_model_is_pointed_out(cli: Invoke) -> None:
    result = cli("run", "a; b", "--api-base", "http://127.0.0.1:9/v1")
    assert result.exit_code == 0
    assert "ignored by the offline model" in result.stderr and "--model" in result.stderr
