"""The read-modify-write transaction bodies: save a state, append messages and events.

Each function runs inside a transaction that already holds the write lock (SQLite
``BEGIN IMMEDIATE``) or takes the session row lock (PostgreSQL ``SELECT ... FOR UPDATE``).
Plan steps are written as a diff: one changed step is one row written.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from taskforce.errors import SessionNotFoundError, StaleStateError
from taskforce.store import _schema as t
from taskforce.store._codec import EncodedState, Memo, StepRow, dumps
from taskforce.store._history import diff_steps, encode_event


async def lock_session(conn: AsyncConnection, session_id: str, now: float) -> tuple[int, str]:
    """Lock the session row, creating a placeholder (version 0) if missing.

    The placeholder never outlives the transaction as version 0: the caller either raises
    (rollback) or sets version >= 1. Concurrent first writers on PostgreSQL block on the
    primary key, then find the winner's row. Returns ``(version, token)``.
    """
    dialect = sqlite_insert if conn.dialect.name == "sqlite" else pg_insert
    await conn.execute(
        dialect(t.sessions)
        .values(
            session_id=session_id,
            version=0,
            token=secrets.token_hex(16),
            steps_done=0,
            steps_total=0,
            created_at=now,
            updated_at=now,
            data="{}",
        )
        .on_conflict_do_nothing(index_elements=["session_id"])
    )
    query = select(t.sessions.c.version, t.sessions.c.token).where(
        t.sessions.c.session_id == session_id
    )
    row = (await conn.execute(query.with_for_update())).one()
    return int(row.version), str(row.token)


async def read_steps(conn: AsyncConnection, session_id: str) -> tuple[StepRow, ...]:
    """All stored steps of a session, in plan order."""
    query = (
        select(t.steps.c.step_id, t.steps.c.position, t.steps.c.status, t.steps.c.body)
        .where(t.steps.c.session_id == session_id)
        .order_by(t.steps.c.position)
    )
    result = await conn.execute(query)
    return tuple(StepRow(r.step_id, r.position, r.status, r.body) for r in result)


async def write_steps(
    conn: AsyncConnection, session_id: str, old: Sequence[StepRow], new: Sequence[StepRow]
) -> None:
    """Write only the difference between two step lists (inserts, updates, deletes)."""
    before = {row.step_id: row for row in old}
    after = {row.step_id for row in new}
    gone = [row.step_id for row in old if row.step_id not in after]
    added = [row for row in new if row.step_id not in before]
    changed = [
        r
        for r in new
        if (old_row := before.get(r.step_id)) is not None and old_row is not r and old_row != r
    ]
    if gone:
        await conn.execute(
            delete(t.steps).where(t.steps.c.session_id == session_id, t.steps.c.step_id.in_(gone))
        )
    if added:
        await conn.execute(
            insert(t.steps),
            [
                {
                    "session_id": session_id,
                    "step_id": r.step_id,
                    "position": r.position,
                    "status": r.status,
                    "body": r.body,
                }
                for r in added
            ],
        )
    if changed:
        statement = (
            update(t.steps)
            .where(t.steps.c.session_id == session_id, t.steps.c.step_id == bindparam("b_id"))
            .values(
                position=bindparam("b_pos"), status=bindparam("b_status"), body=bindparam("b_body")
            )
        )
        await conn.execute(
            statement,
            [
                {"b_id": r.step_id, "b_pos": r.position, "b_status": r.status, "b_body": r.body}
                for r in changed
            ],
        )


async def append_rows(
    conn: AsyncConnection,
    session_id: str,
    version: int,
    now: float,
    messages: Sequence[str],
    events: Sequence[dict[str, Any]],
) -> None:
    """Append encoded messages and history events (already checked) to the logs."""
    if messages:
        await conn.execute(
            insert(t.messages),
            [{"session_id": session_id, "created_at": now, "body": m} for m in messages],
        )
    if events:
        rows = []
        for event in events:
            kind, step_id, body = encode_event(event)
            rows.append(
                {
                    "session_id": session_id,
                    "version": version,
                    "kind": kind,
                    "step_id": step_id,
                    "created_at": now,
                    "body": dumps(body, "event"),
                }
            )
        await conn.execute(insert(t.history), rows)


async def save(
    conn: AsyncConnection,
    session_id: str,
    state: EncodedState,
    expected: int | None,
    cached: tuple[str, int, tuple[StepRow, ...], Memo] | None,
    now: float,
    messages: Sequence[str],
    events: Sequence[dict[str, Any]],
) -> tuple[int, str]:
    """Save one state (diffing the plan against ``cached`` or the stored steps).

    Returns ``(new_version, token)``.

    Raises:
        StaleStateError: ``expected`` differs from the stored version (0 means "new").
    """
    version, token = await lock_session(conn, session_id, now)
    if expected is not None and expected != version:
        raise StaleStateError(session_id, expected, version or None)
    if version == 0:
        old: tuple[StepRow, ...] = ()
    elif cached is not None and cached[:2] == (token, version):
        old = cached[2]
    else:
        old = await read_steps(conn, session_id)
    await write_steps(conn, session_id, old, state.steps)
    new_version = version + 1
    result = await conn.execute(
        update(t.sessions)
        .where(t.sessions.c.session_id == session_id, t.sessions.c.version == version)
        .values(
            version=new_version,
            title=state.title,
            status=state.status,
            steps_done=state.steps_done,
            steps_total=len(state.steps),
            updated_at=now,
            data=state.data,
            plan_meta=state.plan_meta,
        )
    )
    if result.rowcount != 1:  # cannot happen while the row is locked; never write blind
        raise StaleStateError(session_id, expected, None)
    explained = frozenset(
        e["step_id"] for e in events if isinstance(e.get("step_id"), str) and e.get("to_status")
    )
    derived = diff_steps(old, state.steps, explained)
    await append_rows(conn, session_id, new_version, now, messages, [*derived, *events])
    return new_version, token


async def require_session(conn: AsyncConnection, session_id: str) -> int:
    """The version of an existing session (locked for update), else SessionNotFoundError."""
    query = select(t.sessions.c.version).where(
        t.sessions.c.session_id == session_id, t.sessions.c.version > 0
    )
    version = (await conn.execute(query.with_for_update())).scalar_one_or_none()
    if version is None:
        raise SessionNotFoundError(f"no session {session_id!r}; save a state for it first")
    return int(version)
