"""Lifecycle events of a plan change: the one vocabulary of a session's history.

Pure: compares two versions of a plan. Every door that changes a plan (the planner tool,
the agent, the MCP server, a Plan.md import) records exactly these, so the same changes
leave the same history whichever door they came through:

* ``plan_created`` / ``plan_revised`` (``revision``, ``steps``): new steps, or a replan;
* ``step_started``, ``step_completed``, ``step_failed``, ``step_skipped``,
  ``step_reopened`` (``step_id``, ``step`` number, ``from_status``, ``to_status``,
  ``note``; ``duration_s`` when finished, ``retries`` when failed). A step that arrives
  already started or finished (an import) counts as coming from PENDING;
* ``plan_completed`` / ``plan_failed`` (``steps``) when the plan's status becomes so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskforce.plan.step import Step, StepStatus

if TYPE_CHECKING:
    from taskforce.plan.plan import Plan

Event = dict[str, Any]
"""One history event: ``{"kind": ..., ...}`` (JSON-ready)."""

STEP_EVENT = {
    StepStatus.IN_PROGRESS: "step_started",
    StepStatus.DONE: "step_completed",
    StepStatus.FAILED: "step_failed",
    StepStatus.SKIPPED: "step_skipped",
    StepStatus.PENDING: "step_reopened",
}
"""The event kind recorded when a step moves into each status."""

PLAN_EVENTS = ("plan_created", "plan_revised", "plan_completed", "plan_failed")


def lifecycle_events(old: Plan, new: Plan) -> list[Event]:
    """The events that turn `old` into `new`, in a stable order.

    A status change compares the two plans' steps by identity (a change shares the
    steps it did not touch), so marking one step costs no more than a pass of pointers.
    """
    events = _moves(old, new)
    if events is None:
        events = []
        before_of = {s.id: s for s in old.steps}
        if new.revision != old.revision or (new.steps and not old.steps):
            created = not any(s.id in before_of for s in new.steps)
            kind = "plan_created" if created else "plan_revised"
            events.append({"kind": kind, "revision": new.revision, "steps": len(new.steps)})
        for number, step in enumerate(new.steps, start=1):
            previous = before_of.get(step.id)
            was = previous.status if previous is not None else StepStatus.PENDING
            if was is not step.status:
                events.append(step_event(step, number, was))
    old_status, new_status = old.status(), new.status()
    if new_status != old_status and new_status in ("completed", "failed"):
        events.append({"kind": f"plan_{new_status}", "steps": len(new.steps)})
    return events


def _moves(old: Plan, new: Plan) -> list[Event] | None:
    """The step events when `new` only moved steps of `old` in place; else None."""
    if len(old.steps) != len(new.steps) or old.revision != new.revision:
        return None
    events: list[Event] = []
    for number, (before, after) in enumerate(zip(old.steps, new.steps, strict=True), start=1):
        if before is after:
            continue
        if before.id != after.id:
            return None
        if before.status is not after.status:
            events.append(step_event(after, number, before.status))
    return events


def step_event(step: Step, number: int, previous: StepStatus) -> Event:
    """The event of `step` (numbered `number`) moving from `previous` to its status."""
    event: Event = {
        "kind": STEP_EVENT[step.status],
        "step_id": step.id,
        "step": number,
        "from_status": previous.value,
        "to_status": step.status.value,
        "note": step.note,
    }
    duration = step.duration_seconds()
    if duration is not None and not step.status.is_open:
        event["duration_s"] = round(duration, 3)
    if step.status is StepStatus.FAILED:
        event["retries"] = step.retries
    return event
