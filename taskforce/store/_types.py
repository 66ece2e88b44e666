"""Plain values the store returns (no SQLAlchemy here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class Change:
    """A committed change: `session_id` is now at `version` (0: the session was deleted).

    Yielded by :meth:`~taskforce.store.StateManager.changes`.
    """

    session_id: str
    version: int


@dataclass(frozen=True)
class SessionSummary:
    """One line of a session listing.

    Attributes:
        session_id: The session id.
        title: ``state["title"]``, else ``state["mission"]`` (first 200 characters), or None.
        status: ``state["status"]`` (``running``, ``completed``, ...) or None.
        steps_done: Plan steps finished (``DONE`` or ``SKIPPED``), as the plan counts them.
        steps_total: All plan steps.
        created_at: When the session was first saved (UTC).
        updated_at: When it was last saved (UTC).
        version: The session version (optimistic concurrency).
    """

    session_id: str
    title: str | None
    status: str | None
    steps_done: int
    steps_total: int
    created_at: datetime
    updated_at: datetime
    version: int


@dataclass(frozen=True)
class HistoryEntry:
    """One entry of a session's append-only history, ordered by ``id``.

    Attributes:
        id: Position in the log (monotonic; the only ordering key).
        kind: A lifecycle event (``plan_created``, ``step_completed``, ... see
            ``taskforce.plan.events``), or the ``kind`` of another explicit event (``paused``,
            ``resumed``). Sessions written by taskforce 0.1 also hold ``step_added``,
            ``step_removed``, ``status_changed`` and ``step_changed``.
        step_id: The step concerned, if any.
        from_status: Status before the change, if any.
        to_status: Status after the change, if any.
        note: The step's note after the change, or the event's note.
        version: The session version the change produced.
        created_at: When it was recorded (UTC; informative only, never used for ordering).
        data: The event's other keys (``steps``, ``duration_s``, ``added``, ...).
    """

    id: int
    kind: str
    step_id: str | None
    from_status: str | None
    to_status: str | None
    note: str | None
    version: int
    created_at: datetime
    data: dict[str, Any] = field(default_factory=dict)


SUMMARY_COLUMNS = (
    "session_id",
    "title",
    "status",
    "steps_done",
    "steps_total",
    "created_at",
    "updated_at",
    "version",
)
"""Columns of ``tf_sessions`` a :class:`SessionSummary` is built from, in this order."""


def summary_from_row(row: Sequence[Any]) -> SessionSummary:
    """Build a summary from a row of :data:`SUMMARY_COLUMNS` (both read paths use this)."""
    sid, title, status, done, total, created, updated, version = row
    return SessionSummary(
        session_id=sid,
        title=title,
        status=status,
        steps_done=int(done),
        steps_total=int(total),
        created_at=datetime.fromtimestamp(created, tz=UTC),
        updated_at=datetime.fromtimestamp(updated, tz=UTC),
        version=int(version),
    )
