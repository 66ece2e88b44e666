"""Judge stored runs again after a checker changed, without the model.

A checker found wrong after hours of runs (it took a booking that was cancelled again for
a booking) should not cost those hours again. A stored run keeps every call the agent sent
and every result it got back. The calls that reached their tool are made again, in order,
on a fresh world of the mission; each must give back the result the run got, so the world
ends as the run left it, and the mission's checker, as the suite has it now, reads that
world and the run's stored final answer. The calls the loop answered itself (a repeat, a
guessed value questioned, a tool that does not exist: :data:`NOT_RUN`) and the planner's
are not made again: they never touched the world.

A run whose calls do not give their results back (a tool or its world changed since it
ran) is left as it was and named, as is a run of a mission the suite no longer has or
whose text changed. Nothing about the agent is replayed, so this works on runs of any
version of the agent; the tokens, turns and plan stay the run's.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from taskforce.agent.dispatch import parse_call, run_tool, tool_message
from taskforce.agent.prompts import REUSED
from taskforce.agent.setup import as_tool
from taskforce.evals.mission import Mission, MultiTurnWorld, Suite
from taskforce.evals.record import RunRecord, is_false_completion
from taskforce.evals.store import ResultStore
from taskforce.models.base import Message, ToolCall
from taskforce.tools.base import ToolProtocol

__all__ = ["NOT_RUN", "Rejudged", "rejudge", "rejudge_results"]

NOT_RUN = frozenset({
    "answer_required", "approval_pending", "interrupted", "invalid_arguments",
    "malformed_arguments", "names_left_out", "plan_required", "rejected", "repeated_call",
    "too_many_calls", "undo_held", "unknown_tool", "unsupported_value",
})  # fmt: skip
"""The ``error_type`` of a result the loop gave in the tool's place (the tool never ran)."""

_LOOP_KEYS = ("note", "hint")
"""Keys the loop adds to a tool's own result (a nudge for the model), left out in comparing."""


def _reached(result: Mapping[str, Any]) -> bool:
    """Whether a stored result came from the tool itself (not the loop, in its place)."""
    if result.get("success") is True:
        return result.get("note") != REUSED  # a repeat answered with the earlier result
    return result.get("error_type") not in NOT_RUN


def _same(stored: str, again: str) -> bool:
    """Whether a re-made call's tool message gives the stored one back (the loop's keys aside)."""
    try:
        before, after = json.loads(stored), json.loads(again)
    except ValueError:  # a long result cut in the stored message: compare what it kept
        head = stored.split("… [cut: ", 1)[0]
        return again.startswith(head)
    if isinstance(before, dict) and isinstance(after, dict):
        before = {k: v for k, v in before.items() if k not in _LOOP_KEYS}
        after = {k: v for k, v in after.items() if k not in _LOOP_KEYS}
    return bool(before == after)


async def _replayed(mission: Mission, messages: Sequence[Message]) -> Any:
    """A fresh world of `mission` after the stored calls that reached a tool; None if one differs.

    A multi-turn world is told each user turn as the run told it, before its calls.
    """
    world, listed = await mission.new_world()
    tools: dict[str, ToolProtocol] = {t.name: t for t in map(as_tool, listed)}
    sent: dict[str, ToolCall] = {}
    turns = iter(enumerate(mission.turns))
    upcoming = next(turns, None)
    for message in messages:
        role = message.get("role")
        if role == "user" and upcoming is not None and message.get("content") == upcoming[1]:
            if isinstance(world, MultiTurnWorld):
                world.begin_turn(upcoming[0])
            upcoming = next(turns, None)
        for c in message.get("tool_calls") or []:
            function = c.get("function") or {}
            call_id = str(c.get("id", ""))
            sent[call_id] = ToolCall(
                call_id, str(function.get("name")), str(function.get("arguments"))
            )
        call = sent.get(str(message.get("tool_call_id"))) if role == "tool" else None
        if call is None or call.name not in tools:
            continue  # the planner (not the world's), or a call of no tool
        stored = str(message.get("content") or "")
        try:
            result = json.loads(stored)
        except ValueError:
            result = {"success": True}  # cut short: only a result of the tool is that long
        if not isinstance(result, dict) or not _reached(result):
            continue
        item = parse_call(call, tools)
        again = item.preset or await run_tool(tools[call.name], item.args)
        if not _same(stored, str(tool_message(call, again)["content"])):
            return None
    return world


async def rejudge(record: RunRecord, suite: Suite) -> RunRecord | None:
    """`record` judged again by its mission's checker as `suite` has it now; None if it cannot be.

    It cannot be when the suite no longer has the mission, its text changed, or a call that
    reached its tool gives a different result now.
    """
    mission = suite.mission_of(record.key.mission, record.key.mission_hash)
    messages = record.transcript.get("messages")
    if mission is None or not messages:
        return None
    world = await _replayed(mission, messages)
    if world is None:
        return None
    verdict = await mission.judge(world, record.final_answer)
    false = is_false_completion(
        verdict.solved, record.status, record.final_answer, record.all_ticked
    )
    return dataclasses.replace(
        record,
        solved=verdict.solved,
        reason=verdict.reason,
        false_completion=false,
        meta={
            **record.meta,
            "rejudged": {
                "at": datetime.now(UTC).isoformat(timespec="seconds"),
                "was": {"solved": record.solved, "reason": record.reason},
            },
        },
    )


@dataclass
class Rejudged:
    """What :func:`rejudge_results` did: the runs judged again, and those it could not judge."""

    records: list[RunRecord] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    """``mission/arm#repeat`` of the runs whose verdict (solved or not) changed."""
    reworded: list[str] = field(default_factory=list)
    """Those whose verdict stayed but whose reason changed (stored too)."""
    left: list[str] = field(default_factory=list)
    """``mission/arm#repeat`` of the runs left as stored (see :func:`rejudge`)."""


async def rejudge_results(
    store: ResultStore,
    suite: Suite,
    *,
    arms: Sequence[str] = (),
    missions: Sequence[str] = (),
    on_progress: Callable[[int, int, RunRecord], Any] | None = None,
) -> Rejudged:
    """Judge the latest stored runs of `suite` again; store those judged otherwise.

    Args:
        store: The results file; a run whose verdict or its reason changed is appended (the
            latest wins).
        suite: The suite the runs are of (only its runs are judged).
        arms: Only these arm names (default: all).
        missions: Only these mission ids (default: all).
        on_progress: Called after each run with (done, total, the stored record).
    """
    chosen = store.latest_of(suite.name, arms, missions)
    outcome = Rejudged()
    for done, record in enumerate(chosen, start=1):
        name = record.key.label
        again = await rejudge(record, suite)
        if again is None:
            outcome.left.append(name)
        else:
            outcome.records.append(again)
            if again.solved != record.solved:
                outcome.changed.append(name)
                store.add(again)
            elif again.reason != record.reason:
                outcome.reworded.append(name)
                store.add(again)
        if on_progress is not None:
            on_progress(done, len(chosen), record)
    return outcome
