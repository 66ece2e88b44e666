"""Approvals: calls a human must allow before they run, and the pause and resume around them.

A call is *gated* when its tool has ``requires_approval``, or when the planner says so: a
planner call that starts, finishes, skips, rewords, removes or unflags an open plan step
flagged ``requires_approval`` that was not approved before, or a new plan that drops it
(approval flags are sticky: :meth:`PlannerTool.gate`; an approved step is remembered in
the session state under ``approved_steps``, so finishing it later does not ask again).
A call whose arguments are invalid is not gated: it fails as usual, no human is bothered.

The rule for one turn with several calls: every call that is not gated runs as usual; the
first gated call is held; any further gated call (and any copy of a held one) is answered
"not run, ask again after the pending approval" — one approval waits at a time. After the
turn's other calls finished, the run pauses: the held call, its ``get_approval_preview``
text and the plan step it concerns are saved under ``pending_approval`` with the status
``paused``. The assistant message with the call is already stored; the call stays
unanswered until :func:`decide` gives it its result (the call itself when approved, a
``rejected`` error carrying the human's note otherwise). Nothing else is added to the
conversation while paused, so the held call's result lands right after its turn.

A decision is saved (with the session's version check) before the call runs: of two
concurrent decisions only one goes through, and an approved call runs at most once.
Arguments are stored as the session stores everything: with known secrets redacted.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from taskforce.agent.dispatch import Prepared, parse_call, run_calls
from taskforce.agent.events import EventKind
from taskforce.agent.result import AgentResult, AgentStatus
from taskforce.agent.run import Run
from taskforce.agent.session import Session
from taskforce.errors import PlanError, StaleStateError, UserError
from taskforce.models.base import ToolCall
from taskforce.plan import Plan, scrub
from taskforce.tools import planner_prompts
from taskforce.tools.base import error_result

log = logging.getLogger("taskforce.agent")

PENDING_KEY = "pending_approval"
APPROVED_STEPS_KEY = "approved_steps"
_MAX_NOTE = 2_000

ONE_AT_A_TIME = (
    "Not run: another call of this turn waits for a human's approval, and only one waits at "
    "a time. Call this again after that decision if it is still needed."
)

REJECTED_HINT = (
    "A human declined this call. Do not repeat it unchanged: follow their note, "
    f"{planner_prompts.REVISE} if needed, or explain in your answer why the step cannot be done."
)


@dataclass(frozen=True)
class Held:
    """The call of this turn that waits for a human (stored under ``pending_approval``)."""

    call: dict[str, Any]


def gate(
    run: Run, item: Prepared, plan: Plan, approved: Collection[str]
) -> tuple[str, list[str]] | None:
    """``(preview, plan step ids)`` when `item` must wait for approval, else None.

    A planner call is checked by the planner itself against `plan` (the plan as this
    turn's earlier calls will leave it).
    """
    if item.preset is not None or item.duplicate_of is not None or item.refusal is not None:
        return None
    if item.request is not None:
        found = run.wiring.planner.gate(item.request, plan, approved)
        return (found.preview, list(found.step_ids)) if found is not None else None
    tool = run.wiring.tools[item.call.name]
    if not tool.requires_approval:
        return None
    try:
        ok, _ = tool.validate_params(**item.args)
    except Exception:
        ok = False
    if not ok:
        return None
    try:
        preview = str(tool.get_approval_preview(**item.args))
    except Exception as exc:  # a faulty preview must not hide the call from the human
        log.warning("approval preview of %s failed: %s", tool.name, type(exc).__name__)
        preview = f"{tool.name}({json.dumps(item.args, ensure_ascii=False, default=str)})"
    return preview, []


async def hold(run: Run, items: list[Prepared]) -> tuple[list[Prepared], Held | None]:
    """The calls that run this turn, and the first gated call, held (None: nothing held).

    Further gated calls, and copies of gated ones, get a "not run" answer instead. Plan
    steps are checked against the plan as the turn's earlier planner calls will leave it
    (they run one at a time, in order), so a new plan and a step marked done in one turn
    cannot slip past an approval.
    """
    approved = run.session.state.get(APPROVED_STEPS_KEY) or []
    plan = run.plan
    last_planner = max((i for i, it in enumerate(items) if it.request is not None), default=-1)
    gated: set[int] = set()
    kept: list[Prepared] = []
    held: Held | None = None
    for index, item in enumerate(items):
        found = gate(run, item, plan, approved)
        if item.duplicate_of is not None and id(item.duplicate_of) in gated:
            item.preset = error_result(ONE_AT_A_TIME, "approval_pending")
        elif found is not None and held is None:
            gated.add(id(item))
            held = Held(_pending(run, item, *found))
            continue
        elif found is not None:
            gated.add(id(item))
            item.preset = error_result(ONE_AT_A_TIME, "approval_pending")
        elif _runs(item) and index < last_planner:  # a later planner call reads its result
            plan = _after(run, item, plan)
        kept.append(item)
    return kept, held


def _runs(item: Prepared) -> bool:
    return item.request is not None and item.preset is None and item.duplicate_of is None


def _after(run: Run, item: Prepared, plan: Plan) -> Plan:
    """The plan once `item` (a planner call) ran; unchanged when the plan refuses it."""
    assert item.request is not None
    try:
        return run.wiring.planner.change(item.request, plan).plan
    except PlanError:
        return plan


def _pending(run: Run, item: Prepared, preview: str, steps: list[str]) -> dict[str, Any]:
    tool = run.wiring.tools[item.call.name]
    return {
        "tool_call_id": item.call.id,
        "name": item.call.name,
        "arguments": item.args,
        "preview": preview,
        "step": steps[0] if steps else None,
        "steps": steps,
        "risk": str(getattr(tool.approval_risk_level, "value", tool.approval_risk_level)),
        "requested_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


async def pause(run: Run, held: Held) -> AgentResult:
    """Save the `held` call with the status ``paused`` and end the run."""
    pending = held.call
    run.session.state[PENDING_KEY] = pending
    log.info(
        "session %s paused: %s waits for approval (%s)",
        run.session_id, pending["name"], run.wiring.redactor.text(pending["preview"]),
    )  # fmt: skip
    await run.wiring.events.emit(EventKind.APPROVAL_REQUIRED, run.session_id, **pending)
    event = {
        "kind": "paused", "step_id": pending["step"], "note": pending["preview"],
        "tool": pending["name"], "tool_call_id": pending["tool_call_id"],
    }  # fmt: skip
    message = f"Waiting for approval: {pending['preview']}"
    return await run.finish(AgentStatus.PAUSED, message, events=[event], pending=pending)


def waiting(session: Session) -> dict[str, Any] | None:
    """The call a stored session waits on, or None when it is not paused."""
    pending = session.state.get(PENDING_KEY)
    paused = session.state.get("status") == AgentStatus.PAUSED.value
    return pending if paused and isinstance(pending, dict) else None


def refuse_if_paused(session: Session) -> None:
    """Raise when `session` waits for approval (it continues only through a decision)."""
    pending = waiting(session)
    if pending is not None:
        raise UserError(
            f"session {session.session_id!r} is paused: {pending.get('preview')!s} waits for "
            "approval; continue it with resume(session_id, approve=True or False)"
        )


def check_decision(approve: object, note: object) -> str | None:
    """Validate the arguments of a resume; returns the cleaned note."""
    if not isinstance(approve, bool):
        raise UserError(f"approve must be True or False, not {approve!r}")
    if note is not None and not isinstance(note, str):
        raise UserError(f"note must be a string or None, not {type(note).__name__}")
    text = " ".join(scrub(note or "").split())[:_MAX_NOTE]
    return text or None


async def decide(run: Run, approve: bool, note: str | None) -> None:
    """Answer the held call of a paused session: run it (approved) or reject it.

    The decision is saved first (status ``running``, a ``resumed`` history event) with the
    session's version check, so of two concurrent decisions only one goes through.

    Raises:
        UserError: The session is not paused, or another decision came first.
    """
    pending = waiting(run.session)
    if pending is None:
        status = run.session.state.get("status") or "unknown"
        raise UserError(
            f"session {run.session_id!r} is not waiting for approval (status: {status}); "
            "nothing to approve or reject"
        )
    run.session.state.pop(PENDING_KEY)
    steps = [str(s) for s in pending.get("steps") or []]
    if approve and steps:
        approved = list(run.session.state.get(APPROVED_STEPS_KEY) or [])
        run.session.state[APPROVED_STEPS_KEY] = approved + [s for s in steps if s not in approved]
    decision = "approved" if approve else "rejected"
    event = {
        "kind": "resumed", "step_id": pending.get("step"), "note": note, "decision": decision,
        "tool": pending.get("name"), "tool_call_id": pending.get("tool_call_id"),
    }  # fmt: skip
    try:
        await run.session.save(events=[event], plan=run.plan, status=AgentStatus.RUNNING.value)
    except StaleStateError as exc:
        raise UserError(
            f"session {run.session_id!r} changed while deciding (another approve or reject "
            "came first); nothing was run"
        ) from exc
    log.info("session %s resumed: %s %s", run.session_id, pending.get("name"), decision)
    await run.wiring.events.emit(
        EventKind.RESUMED, run.session_id, approved=approve, note=note,
        name=pending.get("name"), preview=pending.get("preview"),
    )  # fmt: skip
    await answer(run, pending, approve, note)
    run.recite()


async def answer(run: Run, pending: Mapping[str, Any], approve: bool, note: str | None) -> None:
    """Give the held call its result: the call's own (approved) or a rejection."""
    arguments = json.dumps(pending.get("arguments") or {}, ensure_ascii=False)
    call = ToolCall(str(pending.get("tool_call_id")), str(pending.get("name")), arguments)
    item = parse_call(call, run.wiring.tools)
    await run.wiring.events.emit(
        EventKind.TOOL_CALL, run.session_id, id=call.id, name=call.name,
        arguments=item.args, runs=approve and item.preset is None,
    )  # fmt: skip
    if not approve:
        reason = f"rejected by a human: {note or 'no reason given'}"
        rejected = error_result(reason, "rejected") | {"hint": REJECTED_HINT}
        await run.on_result(item, rejected)
        return
    await run_calls([item], run.wiring.tools, run.on_result)
