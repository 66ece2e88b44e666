"""Fast synchronous read-only access for the CLI, with stdlib ``sqlite3`` (no SQLAlchemy).

``import sqlalchemy.ext.asyncio`` alone costs about 0.4 s, too slow for ``taskforce
sessions``. For an SQLite file whose schema is at the head revision these functions read
the same tables directly; for any other URL, an in-memory database, or a schema that is
not the current one (which needs migrating, or is newer and must be refused), they fall
back to :class:`~taskforce.store.StateManager` and so return the same results or errors.
They must not be called from inside a running event loop (they use ``asyncio.run``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

from taskforce.errors import StateError
from taskforce.store._codec import decode_state
from taskforce.store._config import (
    HEAD_REVISION,
    check_page,
    default_db_url,
    read_only_query,
    sqlite_path,
    validate_session_id,
)
from taskforce.store._types import SUMMARY_COLUMNS, SessionSummary, summary_from_row

if TYPE_CHECKING:
    from taskforce.store.manager import StateManager

T = TypeVar("T")


class _Fallback(Exception):
    """The fast path cannot answer; use the StateManager."""


def _open(url: str) -> sqlite3.Connection | None:
    """A connection in a read snapshot, None if the file does not exist; else _Fallback."""
    path = sqlite_path(url)
    if path is None or path == ":memory:" or path.startswith("file:"):
        raise _Fallback
    file = Path(path).expanduser()
    if not file.exists():
        return None
    uri = f"file:{quote(str(file.resolve()))}?{read_only_query(file) or 'mode=rw'}"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=5.0, isolation_level=None)
    except sqlite3.Error as exc:
        raise _Fallback from exc  # the manager reports it (as StateError)
    try:
        conn.execute("BEGIN")
        revision = conn.execute("SELECT version_num FROM alembic_version").fetchall()
    except sqlite3.Error as exc:
        conn.close()
        raise _Fallback from exc
    if revision != [(HEAD_REVISION,)]:
        conn.close()
        raise _Fallback
    return conn


def _read(
    url: str | None,
    fast: Callable[[sqlite3.Connection], T],
    empty: T,
    slow: Callable[[StateManager], Awaitable[T]],
) -> T:
    url = url or default_db_url()
    try:
        conn = _open(url)
    except _Fallback:
        return _slow(url, slow)
    if conn is None:
        return empty
    try:
        return fast(conn)
    except sqlite3.Error as exc:
        raise StateError(f"cannot read database {url}: {exc}") from exc
    finally:
        conn.close()


def _slow(url: str, call: Callable[[StateManager], Awaitable[T]]) -> T:
    import asyncio

    from taskforce.store.manager import StateManager

    async def run() -> T:
        async with StateManager(url) as manager:
            return await call(manager)

    return asyncio.run(run())


def read_sessions(url: str | None = None, limit: int = 50, offset: int = 0) -> list[SessionSummary]:
    """Like ``StateManager.list_sessions``: newest-updated first, paginated."""
    check_page(limit, offset)
    sql = (
        f"SELECT {', '.join(SUMMARY_COLUMNS)} FROM tf_sessions WHERE version > 0 "
        "ORDER BY updated_at DESC, session_id DESC LIMIT ? OFFSET ?"
    )

    def fast(conn: sqlite3.Connection) -> list[SessionSummary]:
        return [summary_from_row(row) for row in conn.execute(sql, (limit, offset))]

    return _read(url, fast, [], lambda m: m.list_sessions(limit, offset))


def read_state(url: str | None, session_id: str) -> dict[str, Any] | None:
    """Like ``StateManager.load_state``: the state with ``"version"``, or None."""
    validate_session_id(session_id)

    def fast(conn: sqlite3.Connection) -> dict[str, Any] | None:
        row = conn.execute(
            "SELECT version, data, plan_meta FROM tf_sessions WHERE session_id = ? AND version > 0",
            (session_id,),
        ).fetchone()
        if row is None:
            return None
        bodies = conn.execute(
            "SELECT body FROM tf_steps WHERE session_id = ? ORDER BY position", (session_id,)
        )
        return decode_state(session_id, row[1], row[2], (b for (b,) in bodies), row[0])

    return _read(url, fast, None, lambda m: m.load_state(session_id))
