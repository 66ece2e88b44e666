"""`taskforce approve|reject SESSION`, paused sessions in `sessions`, `run` on a paused session.

A session is brought to just before its approval step by the library (a scripted model
decides), then the CLI continues it with the offline model, in-process and as real processes.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.store import StateManager
from taskforce.testing import ScriptedModel, call, reply
from tests.cli.conftest import TASKFORCE, Invoke, run_bin

TASKS = [
    {"description": "Draft the post"},
    {"description": "Write the post to post.md", "depends_on": [1], "requires_approval": True},
    {"description": "Tell the team"},
]
PREVIEW = "start plan step 2. Write the post to post.md"


def prepare(db_url: str, session_id: str, *, paused: bool) -> None:
    """A session whose plan has an approval step 2; step 1 done (and step 2 asked if paused)."""
    script = [
        call("planner", action="create_plan", tasks=TASKS),
        call("planner", action="mark_done", step_index=[1], note="drafted"),
    ]
    if paused:
        script.append(call("planner", action="mark_done", step_index=[2], status="IN_PROGRESS"))

    async def go() -> AgentStatus:
        async with StateManager(db_url) as store:
            agent = LeanAgent(
                ScriptedModel([*script, reply("unused")], name="offline"), state_manager=store,
                max_steps=len(script), plan_first=False,
            )  # fmt: skip
            result = await agent.execute("Draft, publish and announce the post", session_id)
            return result.status

    status = asyncio.run(go())
    assert status is (AgentStatus.PAUSED if paused else AgentStatus.MAX_STEPS)


def stored(db_url: str, session_id: str) -> dict[str, object]:
    async def go() -> dict[str, object]:
        async with StateManager(db_url) as store:
            state = await store.load_state(session_id)
            assert state is not None
            return state

    return asyncio.run(go())


def test_run_pauses_then_approve_continues(cli: Invoke, db_url: str) -> None:
    prepare(db_url, "pub", paused=False)
    run = cli("run", "--session", "pub", "--plain")
    assert run.exit_code == 6, run.output
    assert f"waits for approval: {PREVIEW}" in run.output
    assert "taskforce approve pub" in run.output
    assert stored(db_url, "pub")["status"] == "paused"

    again = cli("run", "--session", "pub", "--plain")  # does not slip past the approval
    assert again.exit_code == 6
    assert again.stdout == ""
    assert again.stderr.strip().startswith(f"session pub waits for approval: {PREVIEW}")

    shown = cli("plan", "show", "pub")
    assert shown.exit_code == 0 and "paused" in shown.output and PREVIEW in shown.output

    approved = cli("approve", "pub", "--note", "fine by me", "--plain")
    assert approved.exit_code == 0, approved.output
    assert f"approved: {PREVIEW} (note: fine by me)" in approved.output
    assert "▶ approved" in approved.output and "Step 2 marked DONE." in approved.output
    assert "status: completed" in approved.output
    state = stored(db_url, "pub")
    assert state["status"] == "completed" and "pending_approval" not in state

    twice = cli("approve", "pub")
    assert twice.exit_code == 2
    assert "not waiting for approval (status: completed)" in twice.stderr
    assert "Traceback" not in twice.output


def test_reject_tells_the_model_and_the_run_goes_on(cli: Invoke, db_url: str) -> None:
    prepare(db_url, "rej", paused=True)
    rejected = cli("reject", "rej", "--note", "not before Monday", "--plain")
    # the offline model reads the rejection and asks again (with a note): paused again
    assert rejected.exit_code == 6, rejected.output
    assert f"rejected: {PREVIEW} (note: not before Monday)" in rejected.output
    assert "✗ rejected by a human: not before Monday" in rejected.output
    before = stored(db_url, "rej")
    assert before["status"] == "paused"
    pending = before["pending_approval"]
    assert isinstance(pending, dict) and pending["arguments"]["status"] == "IN_PROGRESS"

    async def messages() -> list[dict[str, object]]:
        async with StateManager(db_url) as store:
            return await store.load_messages("rej")

    tools = [m for m in asyncio.run(messages()) if m["role"] == "tool"]
    results = [json.loads(str(m["content"])) for m in tools]
    assert {"success": False, "error": "rejected by a human: not before Monday",
            "error_type": "rejected"}.items() <= results[2].items()  # fmt: skip


def test_sessions_lists_paused_with_what_waits(cli: Invoke, db_url: str) -> None:
    prepare(db_url, "wait-1", paused=True)
    table = cli("sessions")
    assert table.exit_code == 0
    row = next(line for line in table.output.splitlines() if "wait-1" in line)
    assert "paused: start plan step 2" in row
    listed = json.loads(cli("sessions", "--json").output)
    assert listed[0]["status"] == "paused"
    assert listed[0]["waiting_for_approval"] == PREVIEW
    state = json.loads(cli("plan", "show", "wait-1", "--json").output)
    assert state["pending_approval"]["preview"] == PREVIEW  # persisted with the session


def test_decisions_on_unknown_or_running_sessions_fail_cleanly(cli: Invoke, db_url: str) -> None:
    unknown = cli("reject", "nope")
    assert unknown.exit_code == 2 and "no session 'nope'" in unknown.stderr
    prepare(db_url, "busy", paused=False)
    not_paused = cli("approve", "busy")
    assert not_paused.exit_code == 2
    assert "not waiting for approval (status: max_steps)" in not_paused.stderr
    helped = cli("approve", "--help")
    assert helped.exit_code == 0 and "--note" in helped.output


@pytest.mark.skipif(not TASKFORCE.exists(), reason="taskforce is not installed")
def test_pause_and_approval_across_real_processes(db_url: str) -> None:
    prepare(db_url, "proc", paused=False)
    run = run_bin(["run", "--session", "proc", "--plain"], db_url)
    assert run.returncode == 6, run.stderr
    assert f"⏸ waits for approval: {PREVIEW}" in run.stdout

    listing = run_bin(["sessions"], db_url)
    row = next(line for line in listing.stdout.splitlines() if "proc" in line)
    assert "paused" in row and "1/3" in row

    approved = run_bin(["approve", "proc", "--plain"], db_url)
    assert approved.returncode == 0, approved.stderr
    assert "status: completed" in approved.stdout
    assert "Traceback" not in approved.stderr
    done = json.loads(run_bin(["plan", "show", "proc", "--json"], db_url).stdout)
    assert done["status"] == "completed" and done["approved_steps"] == ["s2"]
    # the approved step ran its tool (the post is written); no tool fits step 3
    assert [t["status"] for t in done["plan"]["tasks"]] == ["DONE", "DONE", "SKIPPED"]
    assert (Path(db_url.split(":///", 1)[1]).parent / "workspaces" / "proc" / "post.md").exists()


def test_chat_asks_for_the_waiting_approval(cli: Invoke, db_url: str) -> None:
    prepare(db_url, "talk", paused=True)
    left = cli("chat", "--session", "talk", input="maybe\n")  # no valid answer, then EOF
    assert left.exit_code == 0, left.output
    assert f"⏸ waits for approval: {PREVIEW}" in left.output
    assert "left undecided: session talk stays paused" in left.output
    assert stored(db_url, "talk")["status"] == "paused"

    chat = cli("chat", "--session", "talk", input="y: go ahead\n/exit\n")
    assert chat.exit_code == 0, chat.output
    assert "▶ approved" in chat.output and "(note: go ahead)" in chat.output
    state = stored(db_url, "talk")
    assert state["status"] == "completed" and state["approved_steps"] == ["s2"]
