"""The change feed: which sessions changed, as they change, in this process or any other.

PostgreSQL: every save and delete sends ``NOTIFY taskforce_changes`` in its own
transaction (so only committed changes are announced, in commit order) and the feed
LISTENs on a dedicated connection. SQLite (and PostgreSQL without asyncpg): the feed
polls the session versions, gated by ``PRAGMA data_version`` so an idle database costs
one tiny query per interval.

A change is a level trigger: "session S is now at version V" (0: deleted). Polling may
skip intermediate versions; consumers reload the state when they care.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any

from sqlalchemy import Select, select, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from taskforce.store import _schema as t
from taskforce.store._settle import settle, to_its_end
from taskforce.store._tx import Tx
from taskforce.store._types import Change

logger = logging.getLogger(__name__)

CHANNEL = "taskforce_changes"
"""The PostgreSQL NOTIFY channel."""


_NOTIFY = text("SELECT pg_notify(:c, current_schema() || ' ' || :p)")


def notify(tx: Tx, session_id: str, version: int) -> None:
    """Announce a change from inside the writing transaction (PostgreSQL; no-op elsewhere)."""
    if tx.dialect == "postgresql":  # the schema too: several may share a database
        tx.rows(_NOTIFY, {"c": CHANNEL, "p": f"{version} {session_id}"})


async def watch(
    engine: AsyncEngine,
    session_id: str | None,
    known: Mapping[str, int] | None,
    poll_interval: float,
) -> AsyncGenerator[Change]:
    """Changes to `session_id` (None: every session) from the first iteration on.

    With `known` (session id -> version the caller has), any difference from it is
    reported first, so nothing committed between the caller's read and the feed's start
    is missed.
    """
    baseline = None if known is None else dict(known)
    if engine.dialect.name == "postgresql" and engine.dialect.driver == "asyncpg":
        feed = _listen(engine, session_id, baseline)
    else:
        feed = _poll(engine, session_id, baseline, poll_interval)
    async with contextlib.aclosing(feed) as changes:
        async for change in changes:
            yield change


def _query(session_id: str | None) -> Select[tuple[str, int]]:
    query = select(t.sessions.c.session_id, t.sessions.c.version).where(t.sessions.c.version > 0)
    if session_id is not None:
        query = query.where(t.sessions.c.session_id == session_id)
    return query


async def _versions(conn: AsyncConnection, session_id: str | None) -> dict[str, int]:
    current = {row.session_id: row.version for row in await conn.execute(_query(session_id))}
    await conn.rollback()  # never hold a snapshot between looks
    return current


async def _listen(
    engine: AsyncEngine, session_id: str | None, known: dict[str, int] | None
) -> AsyncGenerator[Change]:
    queue: asyncio.Queue[Change] = asyncio.Queue()

    async with engine.connect() as conn:
        schema = (await conn.execute(text("SELECT current_schema()"))).scalar()
        await conn.rollback()

        def on_notify(_conn: object, _pid: int, _channel: str, payload: str) -> None:
            where, version, sid = payload.rsplit(" ", 2)
            if where == schema and (session_id is None or sid == session_id):
                queue.put_nowait(Change(sid, int(version)))

        raw = await conn.get_raw_connection()
        driver: Any = raw.driver_connection
        await driver.add_listener(CHANNEL, on_notify)
        try:
            latest: dict[str, int] = {}
            if known is not None:
                latest = await _versions(conn, session_id)
                for change in _diff(known, latest):
                    yield change
            while True:
                change = await queue.get()
                if latest.pop(change.session_id, None) != change.version:  # not seen above
                    yield change
        finally:
            with contextlib.suppress(Exception):  # the connection may be gone already
                await asyncio.shield(driver.remove_listener(CHANNEL, on_notify))


async def _poll(
    engine: AsyncEngine, session_id: str | None, known: dict[str, int] | None, interval: float
) -> AsyncGenerator[Change]:
    """Poll on one connection (``PRAGMA data_version`` is per connection).

    Every database call, the final close included, runs to its end through a cancellation
    (:func:`~taskforce.store._settle.to_its_end`): the feed is usually stopped by cancelling
    its consumer, often in the middle of a look.
    """
    sqlite = engine.dialect.name == "sqlite"
    async with _connection(engine) as conn:
        seen, stamp = known, None
        while True:
            fresh, stamp, current = await to_its_end(_look(conn, session_id, sqlite, stamp))
            if fresh:
                for change in _diff(seen, current) if seen is not None else ():
                    yield change
                seen = current
            await asyncio.sleep(interval)


@contextlib.asynccontextmanager
async def _connection(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A connection opened and closed to their ends, whatever cancellations arrive."""
    opening = asyncio.ensure_future(engine.connect().start())
    cancelled = await settle(opening)
    conn = opening.result()
    try:
        if cancelled is not None:
            raise cancelled
        yield conn
    finally:
        await to_its_end(conn.close())


async def _look(
    conn: AsyncConnection, session_id: str | None, sqlite: bool, stamp: Any
) -> tuple[bool, Any, dict[str, int]]:
    """One look: whether anything changed since `stamp`, the new stamp, and the versions."""
    if sqlite:  # did any other connection commit since the last look?
        now = (await conn.exec_driver_sql("PRAGMA data_version")).scalar()
        await conn.rollback()
        if now == stamp:
            return False, stamp, {}
        stamp = now
    return True, stamp, await _versions(conn, session_id)


def _diff(before: dict[str, int], after: dict[str, int]) -> list[Change]:
    changed = [Change(sid, v) for sid, v in after.items() if before.get(sid) != v]
    return changed + [Change(sid, 0) for sid in before if sid not in after]
