"""Lifecycle events of a plan change: the one vocabulary of a session's history.

Pure: compares two versions of a plan. Every door that changes a plan (the planner tool,
the agent, the MCP server, a Plan.md import) records exactly these, so the same changes
leave the same history whichever door they came through; the store derives the same
kinds when a caller saves a changed plan without saying what happened:

* ``plan_created`` (``revision``, ``steps``): a plan of new steps;
* ``plan_revised`` (``revision``, ``steps``, ``added`` and ``removed`` step ids): a replan;
* ``step_started``, ``step_completed``, ``step_failed``, ``step_skipped``,
  ``step_reopened`` (``step_id``, ``step`` number, ``from_status``, ``to_status``,
  ``note``; ``owner`` when a worker holds or finished it; ``duration_s`` when finished,
  ``retries`` when failed). A step that arrives already started or finished (an
  import) counts as coming from PENDING;
* ``step_noted`` (``step_id``, ``step``, ``to_status``, ``note``): a new note, same status;
* ``step_interrupted`` (a worker's lease ran out: the step is PENDING again, its note
  kept, ``owner`` the worker that held it) and ``step_released`` (a worker gave it
  back), recorded by :mod:`~taskforce.plan.claims`;
* ``plan_completed`` / ``plan_failed`` (``steps``) when the plan's status becomes so.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, count
from operator import is_not
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

NOTED = "step_noted"
PLAN_EVENTS = ("plan_created", "plan_revised", "plan_completed", "plan_failed")
CLAIM_EVENTS = ("step_interrupted", "step_released")
STEP_EVENTS = (*STEP_EVENT.values(), NOTED, *CLAIM_EVENTS)


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
            old_ids, new_ids = [s.id for s in old.steps], [s.id for s in new.steps]
            events.append(plan_event(old_ids, new_ids, new.revision))
        for number, step in enumerate(new.steps, start=1):
            previous = before_of.get(step.id)
            event = _step_change(previous, step, number)
            if event is not None:
                events.append(event)
    old_status, new_status = old.status(), new.status()
    if new_status != old_status and new_status in ("completed", "failed"):
        events.append({"kind": f"plan_{new_status}", "steps": len(new.steps)})
    return events


def plan_event(before: Sequence[str], after: Sequence[str], revision: int | None) -> Event:
    """``plan_created`` (no step kept) or ``plan_revised`` (with the ids added and removed).

    `before` and `after` are the step ids of the old and the new plan, in order.
    """
    kept = set(before) & set(after)
    event: Event = {"kind": "plan_revised" if kept else "plan_created"}
    if revision is not None:
        event["revision"] = revision
    event["steps"] = len(after)
    if kept:
        event["added"] = [i for i in after if i not in kept]
        event["removed"] = [i for i in before if i not in kept]
    return event


def step_moved(
    step_id: str, number: int, previous: str, status: str, note: str | None
) -> Event | None:
    """The event of a step numbered `number` moving from `previous` to `status`."""
    try:
        kind = STEP_EVENT[StepStatus.parse(status)]
    except ValueError:
        return None  # not a step status: nothing this vocabulary can say
    return _moved(kind, step_id, number, previous, status, note)


def _moved(
    kind: str, step_id: str, number: int, previous: str, status: str, note: str | None
) -> Event:
    return {
        "kind": kind,
        "step_id": step_id,
        "step": number,
        "from_status": previous,
        "to_status": status,
        "note": note,
    }


def step_noted(step_id: str, number: int, status: str, note: str | None) -> Event:
    """The event of a step numbered `number` getting a new note, its status unchanged."""
    return {"kind": NOTED, "step_id": step_id, "step": number, "to_status": status, "note": note}


def _moves(old: Plan, new: Plan) -> list[Event] | None:
    """The step events when `new` only changed steps of `old` in place; else None."""
    before, after = old.steps, new.steps
    if len(before) != len(after) or old.revision != new.revision:
        return None
    moved = new.changed_from(before)  # known when `new` was made from `old`
    if moved is None:
        moved = tuple(compress(count(), map(is_not, before, after)))
    events: list[Event] = []
    for position in moved:
        if before[position].id != after[position].id:
            return None
        event = _step_change(before[position], after[position], position + 1)
        if event is not None:
            events.append(event)
    return events


def _step_change(before: Step | None, after: Step, number: int) -> Event | None:
    was = before.status if before is not None else StepStatus.PENDING
    if was is after.status:
        if before is not None and before.note != after.note:
            return step_noted(after.id, number, after.status.value, after.note)
        return None
    status = after.status
    event = _moved(STEP_EVENT[status], after.id, number, was.value, status.value, after.note)
    if after.owner is not None:
        event["owner"] = after.owner
    duration = after.duration_seconds()
    if duration is not None and not after.status.is_open:
        event["duration_s"] = round(duration, 3)
    if after.status is StepStatus.FAILED:
        event["retries"] = after.retries
    return event
