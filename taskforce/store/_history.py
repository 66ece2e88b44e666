"""Plan history: the events a save records, given by the caller or derived from the diff.

One vocabulary: the lifecycle events of ``taskforce.plan.events``. A save that passes
events records exactly those (the caller, e.g. the planner, knows what happened); a save
that passes none gets the events derived from the difference of the two plans, in the
same vocabulary.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from taskforce.errors import StatePayloadError
from taskforce.plan.events import plan_event, step_moved, step_noted
from taskforce.plan.text import scrub
from taskforce.store._codec import STEP_ID_MAX, StepRow


def encode_event(event: Any) -> tuple[str, str | None, dict[str, Any]]:
    """Check an explicit history event; returns ``(kind, step_id, body)``.

    An event is an object with ``"kind"`` (a short string) and optionally ``step_id``,
    ``from_status``, ``to_status``, ``note``; other keys are kept under ``data``.
    """
    if not isinstance(event, Mapping):
        raise StatePayloadError(f"a history event must be an object, not {type(event).__name__}")
    kind = event.get("kind", "event")
    step_id = event.get("step_id")
    if (
        not isinstance(kind, str)
        or not 0 < len(kind) <= 64
        or "\x00" in kind
        or scrub(kind) != kind
    ):
        raise StatePayloadError("event kind must be 1-64 characters of text without NUL")
    if step_id is not None and (
        not isinstance(step_id, str)
        or len(step_id) > STEP_ID_MAX
        or "\x00" in step_id
        or scrub(step_id) != step_id
    ):
        raise StatePayloadError(f"event step_id must be a string of at most {STEP_ID_MAX} chars")
    known = ("kind", "step_id", "from_status", "to_status", "note")
    body = {k: event.get(k) for k in ("from_status", "to_status", "note")}
    body["data"] = {k: v for k, v in event.items() if k not in known}
    return kind, step_id, body


def derive_events(
    old: Sequence[StepRow], new: Sequence[StepRow], plan_meta: str | None = None
) -> list[dict[str, Any]]:
    """The lifecycle events of a plan change saved without events (see ``taskforce.plan.events``).

    The same vocabulary the planner records: ``plan_created`` / ``plan_revised`` when steps
    were added, removed, reordered or reworded, then one ``step_*`` event per step whose
    status (or only note) changed. Only changed rows are read.
    """
    before = {row.step_id: row for row in old}
    changed = [
        (number, row, before.get(row.step_id))
        for number, row in enumerate(new, start=1)
        if before.get(row.step_id) is not row
        and (row.step_id not in before or before[row.step_id].body != row.body)
    ]
    old_ids, new_ids = [r.step_id for r in old], [r.step_id for r in new]
    events: list[dict[str, Any]] = []
    reworded = any(
        prev is not None and prev.values().get("description") != row.values().get("description")
        for _, row, prev in changed
    )
    if old_ids != new_ids or reworded:
        events.append(plan_event(old_ids, new_ids, _revision(plan_meta)))
    for number, row, prev in changed:
        values = row.values()
        status = values.get("status")
        was = prev.values() if prev is not None else {"status": "PENDING", "note": None}
        note = values.get("note")
        if not isinstance(status, str):
            continue
        if status != was.get("status"):
            event = step_moved(row.step_id, number, str(was.get("status")), status, _text(note))
            if event is not None:
                events.append(event)
        elif prev is not None and note != was.get("note"):
            events.append(step_noted(row.step_id, number, status, _text(note)))
    return events


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _revision(plan_meta: str | None) -> int | None:
    try:
        meta = json.loads(plan_meta) if plan_meta else {}
    except ValueError:
        return None
    revision = meta.get("revision") if isinstance(meta, dict) else None
    return revision if type(revision) is int else None
