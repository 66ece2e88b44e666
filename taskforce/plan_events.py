"""Lifecycle events of a plan change: what happened, in the words a dashboard or log uses.

Pure: compares two versions of a plan. The planner tool and the agent record these in the
session history (through the state manager) and log them with the `logging` module.
"""

from __future__ import annotations

import logging
from typing import Any

from taskforce.plan import Plan, StepStatus

logger = logging.getLogger("taskforce.plan")

_STEP_EVENT = {
    StepStatus.IN_PROGRESS: "step_started",
    StepStatus.DONE: "step_completed",
    StepStatus.FAILED: "step_failed",
    StepStatus.SKIPPED: "step_skipped",
    StepStatus.PENDING: "step_reopened",
}


def lifecycle_events(old: Plan, new: Plan) -> list[dict[str, Any]]:
    """The events that turn `old` into `new`, in a stable order."""
    events: list[dict[str, Any]] = []
    old_ids = {s.id for s in old.tasks}
    if new.revision != old.revision:
        created = not old_ids.intersection(s.id for s in new.tasks)
        events.append(
            {
                "kind": "plan_created" if created else "plan_revised",
                "revision": new.revision,
                "steps": len(new.tasks),
            }
        )
    before = {s.id: s.status for s in old.tasks}
    for number, step in enumerate(new.tasks, start=1):
        previous = before.get(step.id)
        if previous is None or previous is step.status:
            continue
        event: dict[str, Any] = {
            "kind": _STEP_EVENT[step.status],
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
        events.append(event)
    old_status, new_status = old.status(), new.status()
    if new_status != old_status and new_status in ("completed", "failed"):
        events.append({"kind": f"plan_{new_status}", "steps": len(new.tasks)})
    return events


def log_events(events: list[dict[str, Any]], session_id: str | None = None) -> None:
    """Log each event at INFO with its fields (`extra={"taskforce": {...}}`)."""
    for event in events:
        fields = {"session_id": session_id, **event}
        logger.info(
            "%s %s",
            event["kind"],
            " ".join(f"{k}={v}" for k, v in fields.items() if k != "kind" and v is not None),
            extra={"taskforce": fields},
        )
