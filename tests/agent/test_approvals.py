"""Approvals: a gated call pauses the run, the pause survives the process, a human decides.

Real SQLite files and real tools; only the model's decisions are scripted.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from taskforce.agent import AgentStatus, LeanAgent, MemoryStore
from taskforce.errors import SessionNotFoundError, UserError
from taskforce.store import StateManager
from taskforce.testing import ScriptedModel, call, calls, reply
from taskforce.tools.function import FunctionTool
from tests.agent.helpers import Events, make_tools, tool_results

MISSION = "Publish the weekly report to the team channel."


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path}/approvals.db"


@pytest.fixture
async def sm(db_url: str) -> AsyncIterator[StateManager]:
    async with StateManager(db_url) as manager:
        yield manager


def publisher(log: list[str]) -> FunctionTool:
    def publish(channel: str, text: str) -> str:
        """Post a message to a channel (visible to everyone)."""
        log.append(f"{channel}:{text}")
        return f"posted to {channel}"

    return FunctionTool(publish, requires_approval=True)


def agent_for(model: ScriptedModel, store: Any, published: list[str], **kw: Any) -> LeanAgent:
    tool_list, _ = make_tools()
    return LeanAgent(
        model=model,
        tools=[*tool_list, publisher(published)],
        state_manager=store,
        plan_first=False,
        **({"require_work_before_done": False, "question_guesses": False} | kw),
    )  # fmt: skip  (these scripts tick steps without tools and send values no tool gave:
    #    evidence and grounding are tested elsewhere)


async def test_pause_persists_and_a_new_agent_resumes_after_approval(
    sm: StateManager, db_url: str
) -> None:
    published: list[str] = []
    events = Events()
    first = ScriptedModel([call("publish", channel="team", text="Report v1")])
    paused = await agent_for(first, sm, published, on_event=events).execute(MISSION, "s1")

    assert paused.status is AgentStatus.PAUSED
    assert published == []  # not run
    pending = paused.pending_approval
    assert pending is not None and pending["name"] == "publish"
    assert pending["preview"] == "publish(channel='team', text='Report v1')"
    assert "Waiting for approval: publish(channel='team'" in paused.final_message
    assert events.kinds()[-2:] == ["approval_required", "final_answer"]
    assert events.of("approval_required")[0].data["preview"] == pending["preview"]

    # "process exit": a fresh StateManager and agent on the same SQLite file
    async with StateManager(db_url) as other:
        stored = await other.load_state("s1")
        assert stored is not None and stored["status"] == "paused"
        assert stored["pending_approval"]["preview"] == pending["preview"]
        assert stored["pending_approval"]["arguments"] == {"channel": "team", "text": "Report v1"}
        history = [e.kind for e in await other.get_history("s1")]
        assert "paused" in history

        second = ScriptedModel([reply("Published the report.")])
        later = Events()
        result = await agent_for(second, other, published, on_event=later).resume(
            "s1", approve=True, note="looks good"
        )
        assert result.status is AgentStatus.COMPLETED, result
        assert result.final_message == "Published the report."
        assert published == ["team:Report v1"]
        # the model saw the real result of the held call (not an "interrupted" one)
        seen = tool_results(second.requests[0].messages)
        assert seen[pending["tool_call_id"]] == {"success": True, "output": "posted to team"}
        assert later.kinds()[:3] == ["resumed", "tool_call", "tool_result"]
        final = await other.load_state("s1")
        assert final is not None and final["status"] == "completed"
        assert "pending_approval" not in final
        entries = [e for e in await other.get_history("s1") if e.kind == "resumed"]
        assert len(entries) == 1 and entries[0].note == "looks good"


async def test_rejection_reaches_the_model_which_replans(sm: StateManager) -> None:
    published: list[str] = []
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Draft the report", "Publish it"]),
            call("planner", action="mark_done", step_index=[1]),
            call("publish", channel="everyone", text="Report"),
        ]
    )
    paused = await agent_for(model, sm, published).execute(MISSION, "r1")
    assert paused.status is AgentStatus.PAUSED

    def after_rejection(messages: list[Any], tools: list[Any]) -> Any:
        last = json.loads([m for m in messages if m["role"] == "tool"][-1]["content"])
        assert last["success"] is False and last["error_type"] == "rejected"
        assert last["error"] == "rejected by a human: post to #team only, not everyone"
        return call("planner", action="update_plan", step_index=[2], text="Publish to team")

    replanned = ScriptedModel(
        [
            after_rejection,
            call("publish", channel="team", text="Report"),
        ]
    )
    agent = agent_for(replanned, sm, published)
    again = await agent.resume("r1", approve=False, note="post to #team only, not everyone")
    assert again.status is AgentStatus.PAUSED  # the new call needs approval too
    assert published == []
    assert "Publish to team" in again.plan_markdown
    assert again.pending_approval is not None
    assert again.pending_approval["arguments"]["channel"] == "team"

    replanned.extend(call("planner", action="mark_done", step_index=[2]), reply("Done."))
    done = await agent.resume("r1", approve=True)
    assert done.status is AgentStatus.COMPLETED
    assert published == ["team:Report"]
    kinds = [e.kind for e in await sm.get_history("r1")]
    assert kinds.count("paused") == 2 and kinds.count("resumed") == 2


async def test_approved_plan_step_start_is_not_asked_again(sm: StateManager) -> None:
    tasks = [
        {"description": "Write the post"},
        {"description": "Send the newsletter", "depends_on": [1], "requires_approval": True},
    ]
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=tasks),
            call("planner", action="mark_done", step_index=[1]),
            call("planner", action="mark_done", step_index=[2], status="IN_PROGRESS"),
        ]
    )
    paused = await agent_for(model, sm, []).execute(MISSION, "p1")
    assert paused.status is AgentStatus.PAUSED
    pending = paused.pending_approval
    assert pending is not None and pending["step"] == "s2"
    assert pending["preview"] == "start plan step 2. Send the newsletter"
    stored = await sm.load_state("p1")
    assert stored is not None
    assert [t["status"] for t in stored["plan"]["tasks"]] == ["DONE", "PENDING"]
    assert "(needs approval)" in paused.plan_markdown

    model.extend(call("planner", action="mark_done", step_index=[2]), reply("Sent."))
    done = await agent_for(model, sm, []).resume("p1", approve=True)
    assert done.status is AgentStatus.COMPLETED  # marking s2 DONE did not pause again
    final = await sm.load_state("p1")
    assert final is not None and final["approved_steps"] == ["s2"]
    assert [t["status"] for t in final["plan"]["tasks"]] == ["DONE", "DONE"]
    history = await sm.get_history("p1")
    assert [e.step_id for e in history if e.kind in ("paused", "resumed")] == ["s2", "s2"]


INVOICE = {"description": "Pay the invoice", "requires_approval": True}


async def test_marking_a_gated_step_done_directly_also_waits(sm: StateManager) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=[INVOICE, "Archive it"]),
            call("planner", action="mark_done", step_index=[1, 2]),
        ]
    )
    paused = await agent_for(model, sm, []).execute(MISSION, "p2")
    assert paused.status is AgentStatus.PAUSED
    assert paused.pending_approval is not None
    assert paused.pending_approval["preview"] == "mark done plan step 1. Pay the invoice"
    stored = await sm.load_state("p2")
    assert stored is not None
    assert [t["status"] for t in stored["plan"]["tasks"]] == ["PENDING", "PENDING"]


async def test_several_calls_in_one_turn_only_the_gated_ones_wait() -> None:
    """The rule: ungated calls run; the first gated call is held; further gated ones (and
    repeats of the held one) are answered "not run, one approval at a time"."""
    published: list[str] = []
    tool_list, log = make_tools()
    store = MemoryStore()
    model = ScriptedModel(
        [
            calls(
                call("weather", city="Oslo"),
                call("publish", channel="team", text="A"),
                call("notes", text="remember"),
                call("publish", channel="team", text="B"),
                call("publish", channel="team", text="A"),
            )
        ]
    )
    agent = LeanAgent(
        model=model, tools=[*tool_list, publisher(published)], state_manager=store,
        plan_first=False, require_work_before_done=False,
    )  # fmt: skip
    paused = await agent.execute(MISSION, "m1")
    assert paused.status is AgentStatus.PAUSED
    assert log["calls"] == [("weather", "Oslo"), ("notes", "remember")]
    assert published == []
    assert paused.pending_approval is not None
    assert paused.pending_approval["arguments"] == {"channel": "team", "text": "A"}
    held = paused.pending_approval["tool_call_id"]

    messages = await store.load_messages("m1")
    answered = tool_results(messages)
    assert held not in answered  # waits, unanswered, right after its turn
    assert sorted(r.get("error_type", "ok") for r in answered.values()) == [
        "approval_pending", "approval_pending", "ok", "ok",
    ]  # fmt: skip
    assert messages[-1]["role"] == "tool"  # nothing between the turn and the held result
    assert [e.kind for e in await store.get_history("m1")][-1] == "paused"

    model.extend(reply("Posted A; B can follow later."))
    done = await agent.resume("m1", approve=True)
    assert done.status is AgentStatus.COMPLETED
    assert published == ["team:A"]
    final = await store.load_messages("m1")
    tool_ids = [m["tool_call_id"] for m in final if m["role"] == "tool"]
    assert tool_ids[-1] == held and len(tool_ids) == 5


async def test_resume_refuses_sessions_that_are_not_paused(sm: StateManager) -> None:
    model = ScriptedModel([reply("hello")])
    agent = agent_for(model, sm, [])
    assert (await agent.execute("Say hello.", "c1")).status is AgentStatus.COMPLETED
    with pytest.raises(UserError, match="not waiting for approval \\(status: completed\\)"):
        await agent.resume("c1", approve=True)
    with pytest.raises(SessionNotFoundError):
        await agent.resume("nope", approve=True)
    with pytest.raises(UserError, match="approve must be True or False"):
        await agent.resume("c1", approve="yes")  # type: ignore[arg-type]
    with pytest.raises(UserError, match="note must be a string"):
        await agent.resume("c1", approve=False, note=3)  # type: ignore[arg-type]
    assert model.remaining == 0  # nothing asked the model


async def test_approve_twice_and_execute_on_a_paused_session_are_refused(
    sm: StateManager,
) -> None:
    published: list[str] = []
    model = ScriptedModel([call("publish", channel="team", text="once")])
    agent = agent_for(model, sm, published)
    assert (await agent.execute(MISSION, "t1")).status is AgentStatus.PAUSED

    with pytest.raises(UserError, match="is paused: publish\\(channel='team'"):
        await agent.execute(MISSION, "t1")  # must not slip past the pending call
    with pytest.raises(UserError, match="is paused"):
        await agent.execute("Something else entirely.", "t1")

    model.extend(reply("posted"))
    assert (await agent.resume("t1", approve=True)).status is AgentStatus.COMPLETED
    with pytest.raises(UserError, match="not waiting for approval"):
        await agent_for(ScriptedModel([]), sm, published).resume("t1", approve=True)
    assert published == ["team:once"]  # ran exactly once
    state = await sm.load_state("t1")
    assert state is not None and state["status"] == "completed"


async def test_invalid_arguments_are_not_sent_for_approval() -> None:
    published: list[str] = []
    model = ScriptedModel([call("publish", channel="team"), reply("could not post")])
    agent = agent_for(model, MemoryStore(), published)
    result = await agent.execute(MISSION, "i1")
    assert result.status is AgentStatus.COMPLETED
    seen = tool_results(model.requests[1].messages)
    assert next(iter(seen.values()))["error_type"] == "invalid_arguments"


async def test_a_paused_run_stays_paused_across_max_steps_and_redacts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DEMO_API_KEY", "sk-secret-value-123")
    published: list[str] = []
    model = ScriptedModel([call("publish", channel="team", text="key sk-secret-value-123")])
    store = MemoryStore()
    agent = agent_for(model, store, published, max_steps=1)
    result = await agent.execute(MISSION, "k1")
    assert result.status is AgentStatus.PAUSED  # the pause wins over the step limit
    assert result.pending_approval is not None
    assert "sk-secret" not in json.dumps(result.pending_approval)
    state = await store.load_state("k1")
    assert state is not None and "sk-secret" not in json.dumps(state)
    assert "[REDACTED]" in state["pending_approval"]["preview"]


async def test_two_concurrent_approvals_run_the_call_once(sm: StateManager, db_url: str) -> None:
    published: list[str] = []
    model = ScriptedModel([call("publish", channel="team", text="race")])
    assert (await agent_for(model, sm, published).execute(MISSION, "c2")).status.value == "paused"

    async def decide() -> AgentStatus | str:
        async with StateManager(db_url) as own:
            agent = agent_for(ScriptedModel([reply("posted")]), own, published)
            try:
                return (await agent.resume("c2", approve=True)).status
            except UserError as exc:
                return str(exc)

    outcomes = await asyncio.gather(decide(), decide())
    assert sorted(map(str, outcomes)).count("completed") == 1, outcomes
    refused = next(o for o in outcomes if o != AgentStatus.COMPLETED)
    assert "not waiting for approval" in str(refused) or "changed while deciding" in str(refused)
    assert published == ["team:race"]


async def test_create_plan_and_mark_done_in_one_turn_cannot_skip_the_approval() -> None:
    tasks = [{"description": "Wire the money", "requires_approval": True}, "Tell the bank"]
    store = MemoryStore()
    model = ScriptedModel(
        [
            calls(
                call("planner", action="create_plan", tasks=tasks),
                call("planner", action="mark_done", step_index=[1]),
                call("planner", action="mark_done", step_index=[2]),
            )
        ]
    )
    paused = await agent_for(model, store, []).execute(MISSION, "one-turn")
    assert paused.status is AgentStatus.PAUSED
    assert paused.pending_approval is not None
    assert paused.pending_approval["preview"] == "mark done plan step 1. Wire the money"
    state = await store.load_state("one-turn")
    assert state is not None  # the plan was made, the ungated step 2 done, step 1 waits
    assert [t["status"] for t in state["plan"]["tasks"]] == ["PENDING", "DONE"]
