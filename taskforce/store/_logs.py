"""A session's append-only logs: its messages and its plan history.

:class:`LogsAPI` (mixed into ``StateManager``) appends messages and reads the last N
messages or history entries, in id order.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Table, literal_column, select
from sqlalchemy.ext.asyncio import AsyncConnection

from taskforce.errors import StateCorruptError
from taskforce.store import _schema as t
from taskforce.store import _write
from taskforce.store._codec import check_size, dumps, loads, nbytes
from taskforce.store._config import check_page, validate_session_id
from taskforce.store._types import HistoryEntry

if TYPE_CHECKING:
    from taskforce.store._runner import Runner


async def _tail(
    conn: AsyncConnection, table: Table, session_id: str, limit: int | None
) -> list[Any]:
    query = select(table).where(table.c.session_id == session_id)
    if limit is None:
        return list(await conn.execute(query.order_by(table.c.id)))
    # LIMIT inline (validated int): a generic PostgreSQL plan with LIMIT $n may sort it all
    newest = query.order_by(table.c.id.desc()).limit(literal_column(str(int(limit))))
    rows = list(await conn.execute(newest))
    rows.reverse()
    return rows


async def read_messages(conn: AsyncConnection, session_id: str, limit: int | None) -> list[Any]:
    """The last ``limit`` messages (all if None), oldest first."""
    rows = await _tail(conn, t.messages, session_id, limit)
    return [loads(row.body, session_id, f"message {row.id}") for row in rows]


async def read_history(
    conn: AsyncConnection, session_id: str, limit: int | None
) -> list[HistoryEntry]:
    """The last ``limit`` history entries (all if None), oldest first."""
    entries = []
    for row in await _tail(conn, t.history, session_id, limit):
        body = loads(row.body, session_id, f"history entry {row.id}")
        if not isinstance(body, dict) or not isinstance(body.get("data", {}), dict):
            raise StateCorruptError(f"session {session_id!r}: history entry {row.id} is corrupt")
        entries.append(
            HistoryEntry(
                id=row.id,
                kind=row.kind,
                step_id=row.step_id,
                from_status=body.get("from_status"),
                to_status=body.get("to_status"),
                note=body.get("note"),
                version=row.version,
                created_at=datetime.fromtimestamp(row.created_at, tz=UTC),
                data=body.get("data") or {},
            )
        )
    return entries


class LogsAPI:
    """Append and read a session's messages; read its history (mixed into ``StateManager``)."""

    _db: Runner
    _limit: int

    async def append_messages(self, session_id: str, messages: Iterable[Any]) -> None:
        """Append messages (JSON values, usually OpenAI message dicts) to a session's log.

        Raises:
            SessionNotFoundError: no such session (save a state first).
            StatePayloadError: a message is not JSON-serialisable or the batch is too large.
        """
        validate_session_id(session_id)
        rows = [dumps(m, "message") for m in messages]
        check_size(sum(map(nbytes, rows)), self._limit, f"messages for {session_id!r}")
        if not rows:
            return

        now = time.time()
        _, cancelled = await self._db.run_tx(lambda tx: _write.append(tx, session_id, now, rows))
        if cancelled:
            raise asyncio.CancelledError(f"taskforce: messages for {session_id!r} were committed")

    async def load_messages(self, session_id: str, limit: int | None = None) -> list[Any]:
        """The last ``limit`` messages of a session (all if None), oldest first."""
        validate_session_id(session_id)
        check_page(limit)

        async def body(conn: AsyncConnection) -> list[Any]:
            return await read_messages(conn, session_id, limit)

        return (await self._db.run(body, write=False))[0]

    async def get_history(self, session_id: str, limit: int | None = None) -> list[HistoryEntry]:
        """The last ``limit`` plan changes and events of a session (all if None), by id."""
        validate_session_id(session_id)
        check_page(limit)

        async def body(conn: AsyncConnection) -> list[HistoryEntry]:
            return await read_history(conn, session_id, limit)

        return (await self._db.run(body, write=False))[0]
