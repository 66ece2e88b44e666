"""MemoryStore: sessions kept in this process only, with the StateManager's semantics.

What :class:`~taskforce.agent.LeanAgent` uses without a database, and a store for tests.
States are encoded exactly as the StateManager encodes them (so what it refuses, this
refuses; a :class:`~taskforce.plan.Plan` is kept as its state, only its new and changed
steps encoded), versions are checked the same way, and the history records the events
given, or the same derived events. Nothing stored is shared with the caller: every value
is kept as its JSON text and decoded afresh when read.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from taskforce.errors import StaleStateError
from taskforce.store._codec import Memo, StepRow, decode_state, dumps, encode_state, loads
from taskforce.store._config import check_page, validate_session_id
from taskforce.store._history import derive_events, encode_event
from taskforce.store._types import HistoryEntry, SessionSummary


@dataclass
class _Session:
    created_at: float
    updated_at: float = 0.0
    version: int = 0
    data: str = "{}"
    plan_meta: str | None = None
    steps: tuple[StepRow, ...] = ()
    title: str | None = None
    status: str | None = None
    steps_done: int = 0
    messages: list[str] = field(default_factory=list)
    history: list[HistoryEntry] = field(default_factory=list)
    memo: Memo = field(default_factory=Memo)  # lets the next save skip unchanged steps


class MemoryStore:
    """Sessions in this process's memory (see the module docstring)."""

    def __init__(self) -> None:
        self._sessions: dict[str, _Session] = {}
        self._next_entry = 1

    async def save_state(
        self,
        session_id: str,
        state: Mapping[str, Any],
        expected_version: int | None = None,
        *,
        messages: Iterable[Any] = (),
        events: Iterable[Mapping[str, Any]] = (),
    ) -> int:
        """Store `state`, append `messages`, record `events` (or the derived ones).

        Raises:
            StaleStateError: `expected_version` is not the stored version (0: new).
            StatePayloadError: the state, a message or an event cannot be stored.
        """
        validate_session_id(session_id)
        known = self._sessions.get(session_id)
        encoded = encode_state(state, known.memo if known is not None else None)
        if expected_version is None and type(state.get("version")) is int:
            expected_version = state["version"]
        rows = [dumps(m, "message") for m in messages]
        given = [dict(e) for e in events]
        for event in given:
            encode_event(event)
        now = time.time()
        session = known or _Session(created_at=now)
        if expected_version is not None and expected_version != session.version:
            raise StaleStateError(session_id, expected_version, session.version or None)
        recorded = given or derive_events(session.steps, encoded.steps, encoded.plan_meta)
        session.version += 1
        for event in recorded:
            kind, step_id, body = encode_event(event)
            entry = HistoryEntry(
                id=self._next_entry,
                kind=kind,
                step_id=step_id,
                from_status=body["from_status"],
                to_status=body["to_status"],
                note=body["note"],
                version=session.version,
                created_at=datetime.fromtimestamp(now, tz=UTC),
                data=copy.deepcopy(body["data"]),
            )
            session.history.append(entry)
            self._next_entry += 1
        session.updated_at, session.data, session.plan_meta = now, encoded.data, encoded.plan_meta
        session.steps, session.title, session.status = encoded.steps, encoded.title, encoded.status
        session.steps_done, session.memo = encoded.steps_done, encoded.memo
        session.messages.extend(rows)
        self._sessions[session_id] = session
        return session.version

    async def update_state(
        self,
        session_id: str,
        change: Callable[
            [dict[str, Any] | None], tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]
        ],
    ) -> int:
        """Read, change and save a state at once (nothing runs in between); the new version."""
        current = await self.load_state(session_id)
        state, events = change(current)
        version = current["version"] if current is not None else 0
        return await self.save_state(session_id, state, version, events=events)

    async def load_state(self, session_id: str) -> dict[str, Any] | None:
        """A copy of the stored state with its ``version``, or None."""
        session = self._sessions.get(session_id)
        if session is None:
            return None
        bodies = (row.body for row in session.steps)
        return decode_state(session_id, session.data, session.plan_meta, bodies, session.version)

    async def load_messages(self, session_id: str, limit: int | None = None) -> list[Any]:
        """Copies of the last `limit` messages (all when None)."""
        check_page(limit)
        session = self._sessions.get(session_id)
        rows = session.messages if session is not None else []
        if limit is not None:
            rows = rows[-limit:] if limit else []
        return [loads(row, session_id, "message") for row in rows]

    async def get_history(self, session_id: str, limit: int | None = None) -> list[HistoryEntry]:
        """The last `limit` history entries (all when None), oldest first."""
        check_page(limit)
        session = self._sessions.get(session_id)
        entries = session.history if session is not None else []
        if limit is not None:
            entries = entries[-limit:] if limit else []
        return list(entries)

    async def list_sessions(self, limit: int = 50, offset: int = 0) -> list[SessionSummary]:
        """Sessions, most recently updated first."""
        check_page(limit, offset)
        ordered = sorted(
            self._sessions.items(), key=lambda item: (item[1].updated_at, item[0]), reverse=True
        )
        return [
            SessionSummary(
                session_id=sid,
                title=s.title,
                status=s.status,
                steps_done=s.steps_done,
                steps_total=len(s.steps),
                created_at=datetime.fromtimestamp(s.created_at, tz=UTC),
                updated_at=datetime.fromtimestamp(s.updated_at, tz=UTC),
                version=s.version,
            )
            for sid, s in ordered[offset : offset + limit]
        ]

    async def delete_state(self, session_id: str) -> bool:
        """Forget a session; True if it existed."""
        return self._sessions.pop(session_id, None) is not None
