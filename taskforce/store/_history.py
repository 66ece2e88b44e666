"""Plan history: entries derived from the diff of two plans, and explicit events."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from taskforce.errors import StatePayloadError
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
    if not isinstance(kind, str) or not 0 < len(kind) <= 64 or "\x00" in kind:
        raise StatePayloadError("event kind must be a string of 1-64 characters without NUL")
    if step_id is not None and (
        not isinstance(step_id, str) or len(step_id) > STEP_ID_MAX or "\x00" in step_id
    ):
        raise StatePayloadError(f"event step_id must be a string of at most {STEP_ID_MAX} chars")
    known = ("kind", "step_id", "from_status", "to_status", "note")
    body = {k: event.get(k) for k in ("from_status", "to_status", "note")}
    body["data"] = {k: v for k, v in event.items() if k not in known}
    return kind, step_id, body


# Step keys that status transitions maintain; an explicit event already records them.
_TRANSITION_KEYS = frozenset({"status", "note", "started_at", "completed_at", "retries"})


def diff_steps(
    old: Sequence[StepRow], new: Sequence[StepRow], explained: frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    """History events derived from a plan change: added, removed, status or text changes.

    Steps in `explained` had their status change recorded by an explicit event in the same
    save (e.g. the planner's ``step_completed`` with its duration): for them only changes
    beyond the transition's own bookkeeping are derived, so nothing is logged twice.
    """
    before = {row.step_id: row for row in old}
    after = {row.step_id for row in new}
    events: list[dict[str, Any]] = []
    for row in new:
        prev = before.get(row.step_id)
        if prev is not None and (prev is row or prev.body == row.body):
            continue
        cur = row.values()
        if prev is None:
            events.append(
                {
                    "kind": "step_added",
                    "step_id": row.step_id,
                    "to_status": cur.get("status"),
                    "note": cur.get("note"),
                    "description": cur.get("description"),
                }
            )
            continue
        old_values = prev.values()
        skip = _TRANSITION_KEYS if row.step_id in explained else frozenset({"status"})
        if row.step_id not in explained and old_values.get("status") != cur.get("status"):
            events.append(
                {
                    "kind": "status_changed",
                    "step_id": row.step_id,
                    "from_status": old_values.get("status"),
                    "to_status": cur.get("status"),
                    "note": cur.get("note"),
                }
            )
        changed = {
            k: {"from": old_values.get(k), "to": cur.get(k)}
            for k in sorted(old_values.keys() | cur.keys())
            if k not in skip and old_values.get(k) != cur.get(k)
        }
        if changed:
            events.append(
                {
                    "kind": "step_changed",
                    "step_id": row.step_id,
                    "note": cur.get("note"),
                    "changes": changed,
                }
            )
    for row in old:
        if row.step_id not in after:
            values = row.values()
            events.append(
                {
                    "kind": "step_removed",
                    "step_id": row.step_id,
                    "from_status": values.get("status"),
                    "note": values.get("note"),
                }
            )
    return events
