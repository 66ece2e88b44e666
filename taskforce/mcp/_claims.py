"""MCP tools for a client acting as a worker on a shared plan: claim, renew, finish, release.

Offered only by a server started for a worker (``taskforce mcp --owner NAME``, or
``build_server(owner=...)``): the owner is the server's, never a field the model picks,
so a client cannot act under another worker's name. Each call is one of the store's
atomic claim operations (:class:`~taskforce.store.claims.ClaimsAPI`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types as types

from taskforce.errors import ClaimError, SessionNotFoundError
from taskforce.mcp._tools import failure, success, tool_definition
from taskforce.plan import Plan
from taskforce.plan.claims import backlog
from taskforce.plan.state import iso_time

if TYPE_CHECKING:
    from taskforce.store import StateManager

_A = types.ToolAnnotations
_STEP = {"type": "string", "description": "The step's id (e.g. s3), as claim_step gave it."}
_NOTE = {"type": "string", "description": "Your result (dependants see it), or why it failed."}
TOOLS: dict[str, tuple[str, str, types.ToolAnnotations, dict[str, Any], list[str]]] = {
    "claim_step": (
        "Claim a step",
        "Claim the next step that is ready (or step_id) for you on this shared plan: it is "
        "yours while you renew its lease. Returns the step, the notes of the steps it "
        "depends on, and the plan; says why when nothing is ready.",
        _A(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
        {"step_id": {"type": "string", "description": "A particular pending step."}},
        [],
    ),
    "renew_lease": (
        "Renew a claim",
        "Keep your claim on a step while you work on it (call it well before the lease ends).",
        _A(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
        {"step_id": _STEP},
        ["step_id"],
    ),
    "finish_step": (
        "Finish a step",
        "Finish your step: DONE (default), FAILED or SKIPPED, with a note.",
        _A(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
        {
            "step_id": _STEP,
            "status": {"enum": ["DONE", "FAILED", "SKIPPED"]},
            "note": _NOTE,
        },
        ["step_id"],
    ),
    "release_step": (
        "Release a step",
        "Give your step back unfinished (with a note why), so another worker can take it.",
        _A(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
        {"step_id": _STEP, "note": _NOTE},
        ["step_id"],
    ),
}


@dataclass(frozen=True)
class Worker:
    """The worker an MCP server acts for: its name and the lease its claims get."""

    owner: str
    lease: float = 300.0


def definitions(default_session: str) -> list[types.Tool]:
    """The claim tools, with `session_id` defaulting to `default_session`."""
    return [
        tool_definition(name, title, description, hints, dict(fields), required, default_session)
        for name, (title, description, hints, fields, required) in TOOLS.items()
    ]


async def call(
    store: StateManager, worker: Worker, name: str, session_id: str, args: dict[str, Any]
) -> types.CallToolResult:
    """Run one claim tool; a refusal is a tool error naming why, and changes nothing."""
    unknown = sorted(set(args) - set(TOOLS[name][3]))
    if unknown:
        return failure(f"unexpected parameter {unknown[0]!r}", "invalid_input")
    step_id = args.get("step_id")
    if step_id is not None and not isinstance(step_id, str):
        return failure("step_id must be a step id such as 's3'", "invalid_input")
    if name != "claim_step" and not step_id:
        return failure("step_id is required", "invalid_input")
    note = args.get("note")
    if note is not None and not isinstance(note, str):
        return failure("note must be text", "invalid_input")
    try:
        if name == "claim_step":
            return await _claim(store, worker, session_id, step_id)
        assert step_id is not None
        if name == "renew_lease":
            until = await store.renew_lease(session_id, step_id, worker.owner, worker.lease)
            plan = await _plan(store, session_id)
            message = f"Lease on {step_id} renewed until {iso_time(until)}."
        elif name == "finish_step":
            status = args.get("status") or "DONE"
            if status not in ("DONE", "FAILED", "SKIPPED"):
                return failure("status must be DONE, FAILED or SKIPPED", "invalid_input")
            plan = await store.finish_step(session_id, step_id, worker.owner, status, note)
            message = f"Step {step_id} marked {status}."
        else:
            plan = await store.release_step(session_id, step_id, worker.owner, note)
            message = f"Step {step_id} released."
    except ClaimError as exc:
        return failure(str(exc), exc.error_type)
    except SessionNotFoundError as exc:
        return failure(str(exc), "no_session")
    return success(plan, session_id, message, plan.render())


async def _claim(
    store: StateManager, worker: Worker, session_id: str, step_id: str | None
) -> types.CallToolResult:
    claim = await store.claim_step(session_id, worker.owner, worker.lease, step_id=step_id)
    if claim is None:
        plan = await _plan(store, session_id)
        return success(plan, session_id, _nothing(plan), plan.render())
    step = claim.step
    lines = [
        f"Claimed step {claim.number} ({step.id}): {step.description}",
        f"It is yours until {iso_time(step.lease_until) if step.lease_until else '?'}: "
        "renew_lease while you work; finish_step with your result as the note.",
    ]
    if claim.resumed:
        lines.append("You already held this step: check what was done before you redo anything.")
    for done in claim.context():
        lines.append(f"Step {claim.plan.number_of(done)} ({done.description}) gave: {done.note}")
    return success(claim.plan, session_id, "\n".join(lines), claim.plan.render())


def _nothing(plan: Plan) -> str:
    left = backlog(plan)
    if left.done:
        return "Nothing to claim: every step is finished."
    if left.held:
        held = ", ".join(f"{plan.number_of(s)} ({s.owner or 'the agent'})" for s in left.held)
        return f"Nothing to claim now: steps in progress by others: {held}. Try again later."
    return "Nothing to claim: the open steps are blocked (a failed step, or awaiting approval)."


async def _plan(store: StateManager, session_id: str) -> Plan:
    state = await store.load_state(session_id)
    if state is None:
        raise SessionNotFoundError(f"no session {session_id!r}")
    return Plan.from_state(state.get("plan"))
