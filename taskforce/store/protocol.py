"""The one session-store protocol: what the agent, the planner and the documents use.

:class:`~taskforce.store.StateManager` (SQLite, PostgreSQL) and
:class:`~taskforce.store.MemoryStore` (this process only) implement it; so may your own
store. Six async methods, the same semantics as the StateManager's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from taskforce.store._types import HistoryEntry, SessionSummary


@runtime_checkable
class SessionStore(Protocol):
    """Sessions: a versioned state, an append-only conversation and an append-only history."""

    async def save_state(
        self,
        session_id: str,
        state: Mapping[str, Any],
        expected_version: int | None = None,
        *,
        messages: Iterable[Any] = (),
        events: Iterable[Mapping[str, Any]] = (),
    ) -> int:
        """Write the state, append `messages` and record history `events`; the new version.

        `expected_version` is the version the write is based on (0: "must not exist yet";
        None: overwrite); another version raises ``StaleStateError`` and writes nothing.
        ``state["plan"]`` may be a plan state or a :class:`~taskforce.plan.Plan`. Without
        `events` the history of a plan change is derived from the stored plan.
        """
        ...

    async def update_state(
        self,
        session_id: str,
        change: Callable[
            [dict[str, Any] | None], tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]
        ],
    ) -> int:
        """Read, change and save a state with no other writer in between; the new version.

        `change` gets the stored state (with ``version``; None when there is none) and
        returns the new state and its history events; whatever it raises reaches the
        caller and nothing is written.
        """
        ...

    async def load_state(self, session_id: str) -> dict[str, Any] | None:
        """The stored state with its ``version``, or None when there is no such session."""
        ...

    async def load_messages(self, session_id: str, limit: int | None = None) -> list[Any]:
        """The last `limit` messages (all when None), oldest first."""
        ...

    async def get_history(
        self, session_id: str, limit: int | None = None
    ) -> Sequence[HistoryEntry]:
        """The last `limit` history entries (all when None), oldest first."""
        ...

    async def list_sessions(self, limit: int = 50, offset: int = 0) -> Sequence[SessionSummary]:
        """Sessions, most recently updated first."""
        ...
