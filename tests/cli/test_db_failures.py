"""Database trouble at the command line: absurd pages, a server that never answers, and a
session changed by another run meanwhile. One clear line each, never a traceback."""

from __future__ import annotations

import socket
import subprocess
import threading
from collections.abc import Iterator

import pytest

from taskforce.errors import UserError
from taskforce.store._config import MAX_PAGE, check_page
from tests.cli.conftest import TASKFORCE, Invoke, run_bin
from tests.fakes.openai_server import ErrorReply, FakeOpenAIServer, Reply, reply, tool_call
from tests.pg import pg_url

HUGE = "99999999999999999999"


def _one_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), text
    return lines[0]


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
@pytest.mark.parametrize("option", ["--limit", "--offset"])
def test_an_absurd_page_is_a_usage_error(cli: Invoke, db: str, option: str) -> None:
    args = ["sessions", option, HUGE] + (["--db", pg_url()] if db == "postgresql" else [])
    for extra in ([], ["--json"], ["--summary"][:0]):
        result = cli(*args, *extra)
        assert result.exit_code == 2, result.output
        assert f"must be an integer from 0 to {MAX_PAGE}" in _one_line(result.stderr)
    with pytest.raises(UserError):
        check_page(MAX_PAGE + 1)
    check_page(MAX_PAGE, MAX_PAGE)


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A TCP port that accepts connections and never says a word."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        sock.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(sock.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        sock.close()


def test_a_server_that_never_answers_is_given_up_on(cli: Invoke, silent_server: int) -> None:
    url = f"postgresql://tf:SECRET-PW@127.0.0.1:{silent_server}/x"
    for args in (["sessions"], ["plan", "show", "abc"], ["run", "x", "--plain"], ["db", "current"]):
        result = cli(*args, "--db", url, env={"TASKFORCE_DB_TIMEOUT": "1"})
        assert result.exit_code == 4, (args, result.output)
        line = _one_line(result.stderr)
        assert "did not answer within 1 s" in line and "TASKFORCE_DB_TIMEOUT" in line, line
        assert "SECRET-PW" not in result.output
    bad = cli("sessions", "--db", url, env={"TASKFORCE_DB_TIMEOUT": "soon"})
    assert bad.exit_code == 2 and "TASKFORCE_DB_TIMEOUT" in _one_line(bad.stderr)


@pytest.mark.skipif(not TASKFORCE.exists(), reason="taskforce is not installed")
def test_a_session_changed_by_another_run_names_the_command(cli: Invoke, db_url: str) -> None:
    other: list[subprocess.CompletedProcess[str]] = []

    def another_run_meanwhile(_: dict[str, object]) -> Reply | ErrorReply:
        """While this run waits for the model, another run continues the same session."""
        other.append(run_bin(["run", "--session", "shared", "--model", "offline", "--plain"],
                             db_url))  # fmt: skip
        return reply(
            tool_calls=[
                tool_call("planner", {"action": "mark_done", "step_index": 1, "note": "done"})
            ]
        )

    with FakeOpenAIServer() as server:
        server.script(
            reply(tool_calls=[tool_call("planner", {"action": "create_plan",
                                                    "tasks": ["One", "Two"]})]),
            another_run_meanwhile,
            reply("never asked"),
        )  # fmt: skip
        result = cli("run", "One, then two", "--session", "shared", "--model",
                     "openai/test-model", "--api-base", server.url, "--plain")  # fmt: skip
        assert len(server.requests) == 2  # it stopped at the conflict
    assert other and other[0].returncode == 0, other[0].stderr if other else "no other run"
    assert result.exit_code == 4, result.output
    line = _one_line(result.stderr.replace("new session shared (no session had that name yet)", ""))
    assert "changed by another run" in line and "nothing was overwritten" in line
    assert "taskforce run --session shared" in line and "plan show shared" in line
    assert "Traceback" not in result.output
