"""Persistent session state: :class:`StateManager` (SQLAlchemy async; SQLite or PostgreSQL).

Default database: ``sqlite+aiosqlite:///<user data dir>/taskforce/taskforce.db`` (platformdirs;
e.g. ``~/.local/share/taskforce/taskforce.db`` on Linux), overridden by ``TASKFORCE_DB_URL``
or ``StateManager(url)``; PostgreSQL works the same: ``postgresql+asyncpg://user@host/db``.

``import taskforce.store`` is cheap: SQLAlchemy is imported only when ``StateManager`` is
first used. :class:`SessionStore` is the protocol every store follows (the agent, the
planner and the documents use it; :class:`PlanEdit`, a change of the plan that a store may
hand the decoded plan); :class:`MemoryStore` keeps sessions in memory. For
fast read-only CLI listings see :mod:`taskforce.store.readonly`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskforce.store._config import (
    ENV_VAR,
    HEAD_REVISION,
    MAX_PAYLOAD_BYTES,
    SCHEMA_REVISIONS,
    default_db_path,
    default_db_url,
    sqlite_path,
    validate_session_id,
)
from taskforce.store._types import Change, HistoryEntry, SessionSummary
from taskforce.store._urls import display_url, mask_password, require_persistent
from taskforce.store.memory import MemoryStore
from taskforce.store.protocol import PlanEdit, SessionStore

if TYPE_CHECKING:
    from taskforce.store.manager import StateManager

__all__ = [
    "ENV_VAR",
    "HEAD_REVISION",
    "MAX_PAYLOAD_BYTES",
    "SCHEMA_REVISIONS",
    "Change",
    "HistoryEntry",
    "MemoryStore",
    "PlanEdit",
    "SessionStore",
    "SessionSummary",
    "StateManager",
    "default_db_path",
    "default_db_url",
    "display_url",
    "mask_password",
    "require_persistent",
    "sqlite_path",
    "validate_session_id",
]


def __getattr__(name: str) -> Any:
    if name == "StateManager":
        from taskforce.store.manager import StateManager

        return StateManager
    raise AttributeError(f"module 'taskforce.store' has no attribute {name!r}")
