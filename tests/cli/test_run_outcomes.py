"""How runs end at the command line, through litellm's real HTTP path to a local server.

A failed first call still leaves a resumable session; a session continues with its own
model; an answer with steps open is `incomplete` (exit 7); a 20 MB reply or absurd
arguments end in a defined state; a hung provider gives up after --timeout.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke, session_of
from tests.fakes.openai_server import FakeOpenAIServer, error, reply, tool_call

pytestmark = pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning")

MODEL = "openai/test-model"


def plan(*tasks: str) -> object:
    return reply(tool_calls=[tool_call("planner", {"action": "create_plan", "tasks": list(tasks)})])


def done(*steps: int) -> object:
    return reply(tool_calls=[tool_call("planner", {"action": "mark_done",
                                                   "step_index": list(steps),
                                                   "note": "done"})])  # fmt: skip


def state_of(cli: Invoke, sid: str) -> dict[str, object]:
    shown = cli("plan", "show", sid, "--json")
    assert shown.exit_code == 0, shown.output
    data: dict[str, object] = json.loads(shown.stdout)
    return data


def test_a_first_call_that_fails_leaves_a_failed_resumable_session(cli: Invoke) -> None:
    with FakeOpenAIServer() as server:
        server.script(error(400, "the provider is having a bad day"))
        failed = cli("run", "Greet; leave", "--model", MODEL, "--api-base", server.url)
        assert failed.exit_code == 3, failed.output
        assert "bad day" in failed.stderr
        sid = session_of(failed.stdout)
        assert "status: failed" in failed.stdout and f"run --session {sid}" in failed.stdout
        assert state_of(cli, sid)["status"] == "failed"
        server.script(plan("Greet", "Leave"), done(1, 2), reply("Greeted and left."))
        retried = cli("run", "--session", sid)  # the stored model and server, no flags
        assert retried.exit_code == 0, retried.output
        assert "Greeted and left." in retried.stdout and f"model {MODEL}" in retried.stdout
    state = state_of(cli, sid)
    assert state["status"] == "completed" and "error" not in state


def test_a_session_continues_with_its_own_model(cli: Invoke, db_url: str) -> None:
    with FakeOpenAIServer() as server:
        server.script(plan("One", "Two"), done(1))
        first = cli("run", "One, then two", "--model", MODEL, "--api-base", server.url,
                    "--max-steps", "2", env={"OPENAI_API_KEY": "sk-top-secret-key"})  # fmt: skip
        assert first.exit_code == 5, first.output
        sid = session_of(first.stdout)
        server.script(done(2), reply("Both done."))
        for args in (["run", "--session", sid], ["chat", "--session", sid]):
            result = cli(*args, input="/exit\n")
            assert result.exit_code == 0, result.output
            assert f"model {MODEL}" in result.stdout and "offline" not in result.stdout
            assert "note:" not in result.stderr
        assert len(server.requests) == 4  # all four calls went to the session's server
    other = cli("run", "And three", "--session", sid, "--model", "offline")
    assert f"ran with model {MODEL}; continuing with offline" in other.stderr
    stored = Path(db_url.split("///", 1)[1]).read_bytes()
    assert b"sk-top-secret-key" not in stored


def test_an_answer_with_open_steps_is_incomplete(cli: Invoke) -> None:
    with FakeOpenAIServer() as server:
        server.script(plan("Draft", "Review", "Publish"), done(1), *[reply("All done!")] * 3)
        result = cli("run", "Draft, review, publish", "--model", MODEL, "--api-base", server.url,
                     "--plain")  # fmt: skip
        assert result.exit_code == 7, result.output
        sid = session_of(result.stdout)
        assert "status: incomplete" in result.stdout
        assert "open steps (2):\n  s2: Review\n  s3: Publish" in result.stdout
        assert "2 plan steps still open" in result.stderr
        assert "incomplete" in cli("sessions").stdout
        assert state_of(cli, sid)["status"] == "incomplete"
        server.script(done(2, 3), reply("Now all done."))
        again = cli("run", "--session", sid, "--plain")
    assert again.exit_code == 0, again.output
    assert state_of(cli, sid)["status"] == "completed"


def test_a_twenty_megabyte_reply_ends_in_a_defined_state(cli: Invoke) -> None:
    huge = "z" * (20 * 1024 * 1024)
    with FakeOpenAIServer() as server:
        server.script(
            reply(tool_calls=[tool_call("planner", {"action": "create_plan", "tasks": [huge]})]),
            reply(huge),
        )
        result = cli("run", "Say a lot", "--model", MODEL, "--api-base", server.url, "--plain")
    assert result.exit_code == 0, result.output[-2000:]
    assert "more characters" in result.stdout and "too large" in result.stdout
    state = state_of(cli, session_of(result.stdout))
    assert state["status"] == "completed"


def test_absurdly_nested_arguments_never_crash_a_run(cli: Invoke) -> None:
    # litellm itself cannot parse these arguments (RecursionError inside it): it reports an
    # invalid response, which is retried like any provider hiccup; the run goes on.
    nested = "[" * 100_000 + "]" * 100_000
    with FakeOpenAIServer() as server:
        server.script(reply(tool_calls=[tool_call("planner", nested, raw=True)]), reply("Sorry."))
        result = cli("run", "Say hi", "--model", MODEL, "--api-base", server.url, "--plain")
        assert len(server.requests) == 2
    assert result.exit_code == 0, result.output[-2000:]
    assert "Traceback" not in result.output and "Sorry." in result.stdout
    assert state_of(cli, session_of(result.stdout))["status"] == "completed"


@pytest.mark.parametrize("how", ["flag", "env"])
def test_a_hung_provider_gives_up_after_the_timeout(cli: Invoke, how: str) -> None:
    with FakeOpenAIServer() as server:
        server.script(*[reply("too late", delay=60)] * 4)
        args = ["run", "Wait for it", "--model", MODEL, "--api-base", server.url]
        result = (
            cli(*args, "--timeout", "1")
            if how == "flag"
            else cli(*args, env={"TASKFORCE_TIMEOUT": "1"})
        )
        assert result.exit_code == 3, result.output
        assert "at most 1 s per call" in result.stderr
        assert len(server.requests) == 1
    assert state_of(cli, session_of(result.stdout))["status"] == "failed"
