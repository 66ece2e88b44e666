"""A repeated call is answered from memory while its earlier result is current.

A successful call of a tool not marked ``read_only`` is an action that may change the
world: a read made before it, or a call that failed before it, runs again when repeated;
a new result is shown, the same result is answered as any repeat. Reads in between change
nothing, and the same action (a write, a send) is never run twice in a run.
"""

from __future__ import annotations

from typing import Any

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.testing import ScriptedModel, call, reply
from taskforce.tools.base import is_read_only
from taskforce.tools.calculator import calculator_tool
from taskforce.tools.function import FunctionTool
from tests.agent.helpers import tool_results


def world() -> tuple[list[FunctionTool], dict[str, Any]]:
    """A folder of files with a current directory: read, write, change directory, send."""
    state: dict[str, Any] = {"cwd": "/", "files": {"/a.txt": "old"}, "runs": [], "sent": []}

    def read(path: str) -> str:
        """Read a file of the current folder."""
        state["runs"].append(("read", path))
        full = state["cwd"] + path
        if full not in state["files"]:
            raise FileNotFoundError(full)
        return str(state["files"][full])

    def write(path: str, text: str) -> str:
        """Write a file in the current folder."""
        state["runs"].append(("write", path))
        state["files"][state["cwd"] + path] = text
        return "written"

    def cd(folder: str) -> str:
        """Change the current folder."""
        state["runs"].append(("cd", folder))
        state["cwd"] = "/" if folder == ".." else f"/{folder}/"
        return state["cwd"]

    def send(to: str) -> str:
        """Send an email."""
        state["runs"].append(("send", to))
        state["sent"].append(to)
        return "sent"

    tools = [
        FunctionTool(read, read_only=True),
        FunctionTool(write),
        FunctionTool(cd),
        FunctionTool(send),
    ]
    return tools, state


async def run(*turns: Any) -> tuple[ScriptedModel, dict[str, Any]]:
    tools, state = world()
    model = ScriptedModel([*turns, reply("Done.")])
    await LeanAgent(model=model, tools=[*tools, calculator_tool()]).execute("Do it.")
    return model, state


async def test_a_read_after_a_write_runs_again_and_sees_the_new_text() -> None:
    model, state = await run(
        call("read", path="a.txt"), call("write", path="a.txt", text="new"),
        call("read", path="a.txt"),
    )  # fmt: skip
    assert state["runs"].count(("read", "a.txt")) == 2
    assert tool_results(model.requests[-1].messages)["call_3"] == {
        "success": True, "output": "new",
    }  # fmt: skip


async def test_a_read_after_an_action_that_changed_nothing_is_answered_as_a_repeat() -> None:
    model, state = await run(
        call("read", path="a.txt"), call("write", path="b.txt", text="x"),
        call("read", path="a.txt"),
    )  # fmt: skip
    assert state["runs"].count(("read", "a.txt")) == 2  # checked again: the write came after
    again = tool_results(model.requests[-1].messages)["call_3"]
    assert again["error_type"] == "repeated_call"  # the same text: the model is told it repeats
    assert again["previous_result"] == {"success": True, "output": "old"}


async def test_read_only_calls_in_between_keep_the_earlier_result() -> None:
    model, state = await run(
        call("read", path="a.txt"), call("calculator", expression="1 + 1"),
        call("read", path="a.txt"),
    )  # fmt: skip
    assert state["runs"].count(("read", "a.txt")) == 1
    again = tool_results(model.requests[-1].messages)["call_3"]
    assert again["error_type"] == "repeated_call"
    assert again["previous_result"] == {"success": True, "output": "old"}


async def test_a_call_that_failed_runs_again_once_the_world_changed() -> None:
    model, state = await run(
        call("read", path="b.txt"), call("cd", folder="docs"),
        call("write", path="b.txt", text="here"), call("read", path="b.txt"),
    )  # fmt: skip
    results = tool_results(model.requests[-1].messages)
    assert results["call_1"]["success"] is False
    assert results["call_4"] == {"success": True, "output": "here"}
    assert state["runs"].count(("read", "b.txt")) == 2


async def test_a_failure_after_an_action_runs_again_and_fails_the_same_way() -> None:
    model, state = await run(
        call("read", path="b.txt"), call("write", path="c.txt", text="x"),
        call("read", path="b.txt"),
    )  # fmt: skip
    assert state["runs"].count(("read", "b.txt")) == 2
    again = tool_results(model.requests[-1].messages)["call_3"]
    assert again["error_type"] == "repeated_call" and "already failed" in again["error"]


async def test_a_failure_with_nothing_changed_is_not_run_again() -> None:
    model, state = await run(
        call("read", path="b.txt"), call("calculator", expression="2 * 2"),
        call("read", path="b.txt"),
    )  # fmt: skip
    assert state["runs"].count(("read", "b.txt")) == 1
    assert tool_results(model.requests[-1].messages)["call_3"]["error_type"] == "repeated_call"


async def test_the_same_send_is_not_sent_twice_even_after_other_actions() -> None:
    model, state = await run(
        call("send", to="bob"), call("write", path="a.txt", text="x"), call("send", to="bob"),
    )  # fmt: skip
    assert state["sent"] == ["bob"]
    assert tool_results(model.requests[-1].messages)["call_3"]["error_type"] == "repeated_call"


async def test_a_tool_not_marked_read_only_is_an_action_even_when_it_reads() -> None:
    """The agent cannot tell a lookup from an action unless the tool says so: `cd` back to
    a folder is answered from memory (mark lookups read_only=True to have them re-read)."""
    _, state = await run(
        call("cd", folder="docs"), call("cd", folder=".."), call("cd", folder="docs"),
    )  # fmt: skip
    assert state["runs"] == [("cd", "docs"), ("cd", "..")]


def test_read_only_is_an_explicit_true() -> None:
    class Plain:
        name = "plain"

    class Says:
        read_only = "yes"  # truthy, but not True: not trusted

    assert not is_read_only(Plain()) and not is_read_only(Says())
    assert is_read_only(FunctionTool(lambda: 1, name="f", read_only=True))
    assert not is_read_only(FunctionTool(lambda: 1, name="g"))
    assert is_read_only(calculator_tool())


async def test_a_repeat_of_a_call_that_needs_approval_is_never_run_again_unasked() -> None:
    """A failed call of a gated tool, repeated after an action, is answered from memory:
    running it again to check would skip the human."""
    tools, state = world()
    asked: list[str] = []

    def pay(amount: int) -> str:
        """Pay an amount."""
        asked.append("ran")
        raise ValueError("card declined")

    gated = FunctionTool(pay, requires_approval=True)
    model = ScriptedModel(
        [call("pay", amount=5), call("write", path="a.txt", text="x"), call("pay", amount=5),
         reply("Done.")]
    )  # fmt: skip
    agent = LeanAgent(model=model, tools=[*tools, gated])
    result = await agent.execute("Do it.")
    assert result.status is AgentStatus.PAUSED and asked == []
    await agent.resume(result.session_id, approve=True)
    assert asked == ["ran"]  # the approved call ran once; its repeat was not run
    again = tool_results(model.requests[-1].messages)["call_3"]
    assert again["error_type"] == "repeated_call" and state["files"]["/a.txt"] == "x"


async def test_a_repeated_failure_names_the_lookups_not_called_yet() -> None:
    """A failure repeated unchanged usually has a guessed argument: the read-only tools not
    used yet in the run are named, where the right value may be looked up (not actions)."""
    model, _ = await run(
        call("cd", folder="docs"), call("read", path="b.txt"), call("read", path="b.txt")
    )
    again = tool_results(model.requests[-1].messages)["call_3"]
    assert again["error_type"] == "repeated_call" and "already failed" in again["error"]
    assert again["error"].endswith("look it up first with a tool not used yet: calculator.")


async def test_a_repeated_success_names_no_other_tools() -> None:
    model, _ = await run(call("read", path="a.txt"), call("read", path="a.txt"))
    again = tool_results(model.requests[-1].messages)["call_2"]
    assert again["error_type"] == "repeated_call" and "not used yet" not in again["error"]


async def test_a_repeated_failure_with_every_tool_used_names_none() -> None:
    model, _ = await run(
        call("read", path="b.txt"), call("calculator", expression="1 + 1"),
        call("read", path="b.txt"),
    )  # fmt: skip
    again = tool_results(model.requests[-1].messages)["call_3"]
    assert "already failed" in again["error"] and "not used yet" not in again["error"]
    # the tool's own error (no full stop of its own) is ended before the next sentence
    assert "/b.txt. Calling it again unchanged" in again["error"], again["error"]


async def test_a_failure_names_the_lookups_not_called_yet_as_a_hint() -> None:
    model, _ = await run(call("read", path="b.txt"))
    failed = tool_results(model.requests[-1].messages)["call_1"]
    assert failed["success"] is False and "b.txt" in failed["error"]  # the tool's own error
    assert failed["hint"].endswith("a tool not used yet: calculator.")


async def test_a_failure_with_every_lookup_used_has_no_hint() -> None:
    model, _ = await run(call("calculator", expression="2 * 2"), call("read", path="b.txt"))
    assert "hint" not in tool_results(model.requests[-1].messages)["call_2"]
