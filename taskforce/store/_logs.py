"""Reading the append-only logs: the last N messages or history entries, in id order."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, literal_column, select
from sqlalchemy.ext.asyncio import AsyncConnection

from taskforce.errors import StateCorruptError
from taskforce.store import _schema as t
from taskforce.store._codec import loads
from taskforce.store._types import HistoryEntry


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
