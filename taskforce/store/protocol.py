"""The one session-store protocol: what the agent, the planner and the documents use.

:class:`~taskforce.store.StateManager` (SQLite, PostgreSQL) and
:class:`~taskforce.store.MemoryStore` (this process only) implement it; so may your own
store. Six async methods, the same semantics as the StateManager's. A change given to
``update_state`` may also be a :class:`PlanEdit`, which can take the stored plan decoded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from taskforce.plan import Plan
from taskforce.store._types import HistoryEntry, SessionSummary

Events = Sequence[Mapping[str, Any]]


@runtime_checkable
class PlanEdit(Protocol):
    """A change of a session's plan for ``update_state``, in two equivalent forms.

    Called with the stored state (with ``version``; None when there is none), it is an
    ordinary change and returns the new state and its events. A store that keeps the plans
    it read and wrote (:class:`~taskforce.store.StateManager`) calls :meth:`edit_plan`
    instead, with the stored plan already decoded, so that not every step of it is decoded
    again while the session is locked.
    """

    def __call__(self, current: dict[str, Any] | None) -> tuple[Mapping[str, Any], Events]:
        """The new state and its history events (the rest of the state kept as stored)."""
        ...

    def edit_plan(self, state: dict[str, Any], plan: Plan) -> tuple[Plan, Events]:
        """The new plan and its history events.

        `state` is the stored state without ``plan`` and ``version`` (a fresh dict; the
        store keeps it as it is); `plan` is exactly what ``Plan.from_state`` of the stored
        plan gives (an empty plan when there is none).
        """
        ...


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
