"""Building a :class:`PlanDocument` from plain session data, and a session state from one.

Pure functions over the session contract (docs/architecture.md): the state dict that
``StateManager.load_state`` returns, and the history entries of ``get_history`` (any
objects with the :class:`HistoryLike` attributes). Session keys this module reads and
writes besides ``mission``/``title``/``status``/``plan``: ``created_at``,
``completed_at``, ``success_criteria``, ``execution_log`` (rows kept from an imported
Plan.md), and ``log_base_version`` (history at or below it is already in that log).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from taskforce.documents._text import format_time, parse_time, to_second
from taskforce.documents.dashboard import session_status as derived_status
from taskforce.documents.plan_md import STATUS_LABELS, Criterion, LogRow, PlanDocument
from taskforce.errors import PlanError, UserError
from taskforce.plan import Plan, StepStatus
from taskforce.plan.events import STEP_EVENTS
from taskforce.plan.text import clean_text

DEFAULT_LOG_LIMIT = 500
_ACTION_CHARS = 80


class HistoryLike(Protocol):
    """What is read from a history entry (``taskforce.store.HistoryEntry`` has it)."""

    @property
    def kind(self) -> str:
        """``step_added``, ``status_changed``, ... or an event kind."""
        ...

    @property
    def step_id(self) -> str | None:
        """The step concerned, if any."""
        ...

    @property
    def to_status(self) -> str | None:
        """The status after the change."""
        ...

    @property
    def note(self) -> str | None:
        """The note after the change."""
        ...

    @property
    def version(self) -> int:
        """The session version the change produced."""
        ...

    @property
    def created_at(self) -> datetime:
        """When it was recorded."""
        ...

    @property
    def data(self) -> dict[str, Any]:
        """Extra details."""
        ...


def session_status(state: Mapping[str, Any], plan: Plan) -> str:
    """The session's status, or one derived from its plan when it has none."""
    done, total = plan.progress()
    # a step held by any owner (a worker's, not only the agent's) or finished: started
    started = any(not s.status.is_open or s.status is StepStatus.IN_PROGRESS for s in plan.steps)
    return derived_status(state.get("status"), done, total, started=started)


def _objective(state: Mapping[str, Any]) -> tuple[str, str | None]:
    mission, title = state.get("mission"), state.get("title")
    objective = mission if isinstance(mission, str) else title if isinstance(title, str) else ""
    shown_title = title if isinstance(title, str) and title != objective else None
    return objective, shown_title


def _stored_time(state: Mapping[str, Any], key: str) -> datetime | None:
    value = state.get(key)
    if isinstance(value, str):
        try:
            return parse_time(value, key)
        except UserError:
            return None
    return None


def _criteria(value: Any) -> tuple[Criterion, ...]:
    items: list[Criterion] = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, str):
            items.append(Criterion(item))
        elif isinstance(item, Mapping) and isinstance(item.get("text"), str):
            items.append(Criterion(item["text"], item.get("met") is True))
    return tuple(items)


def _stored_log(value: Any) -> list[LogRow]:
    rows = []
    for row in value if isinstance(value, list) else []:
        if isinstance(row, Mapping):
            rows.append(
                LogRow(*(str(row.get(k, "")) for k in ("time", "step", "action", "result")))
            )
    return rows


_PLAN_ROWS = {
    "plan_created": "Plan created",
    "plan_revised": "Plan revised",
    "plan_completed": "Plan completed",
    "plan_failed": "Plan failed",
}
# What taskforce 0.1 recorded before the history had one vocabulary, read as lifecycle
# events: a status change is the step event of its new status; an added, removed or
# edited step is a revision of the plan.
_LEGACY = {"step_added": "plan_revised", "step_removed": "plan_revised"}


def _label(status: str | None) -> str:
    return STATUS_LABELS.get(str(status or "").upper(), str(status or "-").lower())


def _kind(entry: HistoryLike) -> str:
    """The entry's kind in the lifecycle vocabulary (older kinds translated)."""
    if entry.kind in ("status_changed", "step_changed"):
        return "step_noted" if entry.kind == "step_changed" else "step_moved"
    return _LEGACY.get(entry.kind, entry.kind)


def log_row(entry: HistoryLike, plan: Plan) -> LogRow:
    """One execution-log row for a history entry (step shown by its current number).

    Reads the lifecycle events of :mod:`taskforce.plan.events` (and ``paused`` /
    ``resumed``); entries written by taskforce 0.1 are shown as their lifecycle kind.
    """
    steps = {s.id: (n, s) for n, s in enumerate(plan.steps, start=1)}
    found = steps.get(entry.step_id or "")
    step_cell = str(found[0]) if found else (entry.step_id or "-")
    subject = clean_text(found[1].description)[:_ACTION_CHARS] if found else ""
    note = clean_text(entry.note)[:200] if isinstance(entry.note, str) else ""
    data = entry.data if isinstance(entry.data, Mapping) else {}
    kind = _kind(entry)
    if kind in STEP_EVENTS or kind == "step_moved":
        action = subject or "Status changed"
        result = _label(entry.to_status) + (f": {note}" if note else "")
    elif kind in _PLAN_ROWS:
        count = data.get("steps")
        action = _PLAN_ROWS[kind]
        if entry.kind in _LEGACY:  # one step added or removed, in 0.1's words
            added = data.get("description")
            text = clean_text(added)[:_ACTION_CHARS] if isinstance(added, str) else subject
            action += f": {'added' if entry.kind == 'step_added' else 'removed'} {text}".rstrip()
        result = f"{count} step{'' if count == 1 else 's'}" if isinstance(count, int) else "-"
    else:
        action, result = clean_text(entry.kind)[:_ACTION_CHARS] or "event", note or "-"
    return LogRow(format_time(to_second(entry.created_at)), step_cell, action, result)


def document_from_session(
    session_id: str,
    state: Mapping[str, Any],
    history: Sequence[HistoryLike] = (),
    *,
    created_at: datetime | None = None,
    updated_at: datetime | None = None,
    log_limit: int = DEFAULT_LOG_LIMIT,
) -> PlanDocument:
    """The Plan.md document of a session (deterministic: no clock is read).

    Args:
        session_id: the session id.
        state: the session state (``load_state``'s result).
        history: the session history, oldest first (``get_history``'s result).
        created_at: when the session was created (``SessionSummary.created_at``).
        updated_at: when it was last saved; the completion time of a completed session
            when the state records none.
        log_limit: keep the last this-many log rows.
    """
    try:
        plan = Plan.from_state(state.get("plan") if isinstance(state.get("plan"), dict) else None)
    except PlanError as exc:
        raise UserError(f"session {session_id!r}: {exc}") from exc
    objective, title = _objective(state)
    status = session_status(state, plan)
    base = state.get("log_base_version")
    base = base if isinstance(base, int) else 0
    fresh = [h for h in history if h.version > base]
    first_seen = history[0].created_at if history else None
    derived_start = created_at or first_seen
    start = _stored_time(state, "created_at") or (
        to_second(derived_start) if derived_start else None
    )
    end = _stored_time(state, "completed_at")
    if end is None and status == "completed":
        derived_end = updated_at or (history[-1].created_at if history else None)
        end = to_second(derived_end) if derived_end else None
    rows = _stored_log(state.get("execution_log")) + [log_row(h, plan) for h in fresh]
    return PlanDocument(
        id=session_id,
        objective=objective,
        status=status,
        plan=plan,
        created_at=start,
        completed_at=end,
        title=title,
        success_criteria=_criteria(state.get("success_criteria")),
        log=tuple(rows[-log_limit:] if log_limit > 0 else ()),
    )


def state_from_document(doc: PlanDocument, log_base_version: int = 1) -> dict[str, Any]:
    """The session state an imported document becomes (the inverse of the above).

    Args:
        doc: the parsed Plan.md.
        log_base_version: the session version the import's save will produce; history
            up to it (the import's own step additions) is not shown again in the log.
    """
    state: dict[str, Any] = {"mission": doc.objective, "status": doc.status}
    if doc.title is not None:
        state["title"] = doc.title
    state["plan"] = doc.plan.to_state()
    if doc.created_at:
        state["created_at"] = format_time(doc.created_at)
    if doc.completed_at:
        state["completed_at"] = format_time(doc.completed_at)
    if doc.success_criteria:
        state["success_criteria"] = [
            {"text": c.text, "met": True} if c.met else c.text for c in doc.success_criteria
        ]
    if doc.log:
        state["execution_log"] = [r.to_dict() for r in doc.log]
    state["log_base_version"] = log_base_version
    return state
