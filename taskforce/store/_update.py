"""Read, change and save a session's state in one transaction: no writer in between.

The body reads the state under the write lock (SQLite ``BEGIN IMMEDIATE``; PostgreSQL
``SELECT ... FOR UPDATE``), hands it to the caller's pure ``change`` function, and saves
what that returns as a diff against the rows it just read. It cannot conflict, so a
caller that lost an optimistic race (:class:`~taskforce.errors.StaleStateError`) can
re-apply its change here instead of retrying in a loop.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import bindparam, select

from taskforce.store import _schema as t
from taskforce.store import _write
from taskforce.store._codec import (
    EncodedState,
    check_size,
    decode_state,
    dumps,
    encode_state,
    make_memo,
    nbytes,
)
from taskforce.store._history import encode_event
from taskforce.store._tx import Tx

Change = Callable[[dict[str, Any] | None], tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]]
"""The stored state (with ``"version"``; None when there is none) -> (new state, events)."""

_c = t.sessions.c
LOCKED_LOAD = (
    select(_c.version, _c.token, _c.data, _c.plan_meta)
    .where(_c.session_id == bindparam("b_sid"), _c.version > 0)
    .with_for_update()
)
"""The session row, locked (on PostgreSQL; SQLite's ``BEGIN IMMEDIATE`` holds the lock)."""


def body(
    session_id: str, change: Change, limit: int, now: float
) -> Callable[[Tx], tuple[int, str, EncodedState]]:
    """The transaction body: ``(new version, token, what was written)``."""

    def run(tx: Tx) -> tuple[int, str, EncodedState]:
        found = tx.rows(LOCKED_LOAD, {"b_sid": session_id})
        current: dict[str, Any] | None = None
        cached: _write.Cached | None = None
        version = 0
        if found:
            version, token, data, plan_meta = found[0]
            rows = _write.read_steps(tx, session_id)
            current = decode_state(session_id, data, plan_meta, (r.body for r in rows), version)
            tasks = current["plan"]["tasks"] if plan_meta is not None else []
            cached = (token, version, rows, make_memo(tasks, rows))
        state, events = change(current)
        return write(tx, session_id, (state, events), version, cached, limit, now)

    return run


def write(
    tx: Tx,
    session_id: str,
    change: tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]],
    version: int,
    cached: _write.Cached | None,
    limit: int,
    now: float,
) -> tuple[int, str, EncodedState]:
    """Save the changed ``(state, events)`` over `version` (read under the lock, as `cached`).

    Only new and changed steps are encoded (``cached``'s memo) and written.
    """
    state, events = change
    encoded = encode_state(state, cached[3] if cached is not None else None)
    event_list = [dict(e) for e in events]
    for event in event_list:
        encode_event(event)
    size = encoded.nbytes + nbytes(dumps(event_list, "events"))
    check_size(size, limit, f"update of session {session_id!r}")
    new_version, token = _write.save(
        tx, session_id, encoded, version, cached, now, (), event_list, notify=True
    )
    return new_version, token, encoded
