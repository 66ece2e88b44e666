"""The read-modify-write transaction bodies: save a state, append messages, delete.

Each body is a synchronous function of a :class:`~taskforce.store._tx.Tx` (one
transaction; see ``_tx`` for how it runs). A save whose base version is known (the
manager's cache of the session's last write) bumps the session row with
``UPDATE ... WHERE version = ? AND token = ?`` first: one changed row means nothing was
written since, so the cached steps are the stored ones and the plan is written as a diff
against them. Any other case reads the row (locking it on PostgreSQL; SQLite's
``BEGIN IMMEDIATE`` already holds the write lock). One changed step is one row written.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from itertools import compress, count
from operator import is_not
from typing import Any, NamedTuple

from sqlalchemy import String, bindparam, delete, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from taskforce.errors import SessionNotFoundError, StaleStateError
from taskforce.store import _changes
from taskforce.store import _schema as t
from taskforce.store._codec import (
    Edited,
    EncodedState,
    Memo,
    StepRow,
    decode_state,
    dumps,
    make_memo,
    nbytes,
)
from taskforce.store._history import derive_events, encode_event
from taskforce.store._pg_save import History, save_at_once
from taskforce.store._tx import Tx


class Cached(NamedTuple):
    """A session's cache entry: what its last read or write left in the database."""

    token: str
    version: int
    rows: tuple[StepRow, ...]
    """The stored step rows."""
    memo: Memo
    """The encodings (and, once decoded, the steps) of `rows`."""


def loaded(
    session_id: str, row: Sequence[Any], rows: tuple[StepRow, ...]
) -> tuple[dict[str, Any], Cached]:
    """A session's stored state, decoded from its row and step rows, and its cache entry.

    `row` is ``(version, token, data, plan_meta)`` as read from the sessions table.
    """
    version, token, data, plan_meta = row
    state = decode_state(session_id, data, plan_meta, (r.body for r in rows), version)
    tasks = state["plan"]["tasks"] if plan_meta is not None else []
    return state, Cached(token, version, rows, make_memo(tasks, rows))


_s, _st = t.sessions.c, t.steps.c
_ROW: dict[str, Any] = {
    name: bindparam(f"b_{name}")
    for name in ("title", "status", "steps_done", "steps_total", "updated_at", "data", "plan_meta")
}
BUMP = (
    update(t.sessions)
    .where(
        _s.session_id == bindparam("b_sid"),
        _s.version == bindparam("b_old"),
        _s.token == bindparam("b_token"),
    )
    .values(version=bindparam("b_new"), **_ROW)
)
BUMP_NOTIFY = BUMP.returning(
    func.pg_notify(
        bindparam("b_channel", type_=String),
        func.concat(func.current_schema(), " ", bindparam("b_payload", type_=String)),
    )
)
"""PostgreSQL: the bump and the change feed's NOTIFY (see ``_changes``) in one round trip."""
READ = select(_s.version, _s.token).where(_s.session_id == bindparam("b_sid")).with_for_update()
_CREATE_VALUES = {
    "session_id": bindparam("b_sid"),
    "version": bindparam("b_new"),
    "token": bindparam("b_token"),
    "created_at": bindparam("b_updated_at"),
    **_ROW,
}
CREATE = {
    "sqlite": sqlite_insert(t.sessions).values(_CREATE_VALUES).on_conflict_do_nothing(),
    "postgresql": pg_insert(t.sessions).values(_CREATE_VALUES).on_conflict_do_nothing(),
}
STEPS = (
    select(_st.step_id, _st.position, _st.status, _st.body)
    .where(_st.session_id == bindparam("b_sid"))
    .order_by(_st.position)
)
_STEP_VALUES: dict[str, Any] = {
    "position": bindparam("b_position"),
    "status": bindparam("b_status"),
    "body": bindparam("b_body"),
}
STEP_INSERT = insert(t.steps).values(
    session_id=bindparam("b_sid"), step_id=bindparam("b_step_id"), **_STEP_VALUES
)
_ONE_STEP = (_st.session_id == bindparam("b_sid"), _st.step_id == bindparam("b_step_id"))
STEP_UPDATE = update(t.steps).where(*_ONE_STEP).values(**_STEP_VALUES)
STEP_REWRITE = (
    update(t.steps).where(*_ONE_STEP).values(status=bindparam("b_status"), body=bindparam("b_body"))
)
"""A step changed where it stands: ``position`` is left out of the SET list, so the
database leaves ``ix_tf_steps_position`` alone (SQLite rewrites an index whose column is
assigned, even to the same value: one more page in the WAL and its fsync per commit)."""
STEP_DELETE = delete(t.steps).where(
    _st.session_id == bindparam("b_sid"), _st.step_id == bindparam("b_step_id")
)
MESSAGE_INSERT = insert(t.messages).values(
    session_id=bindparam("b_sid"), created_at=bindparam("b_created_at"), body=bindparam("b_body")
)
HISTORY_INSERT = insert(t.history).values(
    session_id=bindparam("b_sid"),
    version=bindparam("b_version"),
    kind=bindparam("b_kind"),
    step_id=bindparam("b_step_id"),
    created_at=bindparam("b_created_at"),
    body=bindparam("b_body"),
)
EXISTING = (
    select(_s.version).where(_s.session_id == bindparam("b_sid"), _s.version > 0).with_for_update()
)
DELETES = [
    delete(table).where(table.c.session_id == bindparam("b_sid"))
    for table in (t.history, t.messages, t.steps, t.sessions)
]


def read_steps(tx: Tx, session_id: str) -> tuple[StepRow, ...]:
    """All stored steps of a session, in plan order."""
    return tuple(map(StepRow._make, tx.rows(STEPS, {"b_sid": session_id})))


def write_steps(
    tx: Tx, session_id: str, old: Sequence[StepRow], new: Sequence[StepRow], edited: Edited = None
) -> None:
    """Write only the difference between two step lists (deletes, inserts, updates).

    A step that kept its position is rewritten without its position (:data:`STEP_REWRITE`).
    `edited`: what the encoder knows of `new` (see :attr:`EncodedState.edited`).
    """
    rewrites = in_place(old, new, edited)
    if rewrites is not None:  # most often the same steps, a few rows changed in place
        tx.run(STEP_REWRITE, [_rewrite_values(session_id, row) for row in rewrites])
        return
    before = {row.step_id: row for row in old}
    after = {row.step_id for row in new}
    gone = [{"b_sid": session_id, "b_step_id": r.step_id} for r in old if r.step_id not in after]
    added: list[dict[str, Any]] = []
    moved: list[dict[str, Any]] = []
    rewritten: list[dict[str, Any]] = []
    for r in new:
        prev = before.get(r.step_id)
        if prev is None:
            added.append(_step_values(session_id, r))
        elif prev is not r and prev != r:
            if prev.position == r.position:
                rewritten.append(_rewrite_values(session_id, r))
            else:
                moved.append(_step_values(session_id, r))
    tx.run(STEP_DELETE, gone)
    tx.run(STEP_INSERT, added)
    tx.run(STEP_UPDATE, moved)
    tx.run(STEP_REWRITE, rewritten)


def in_place(
    old: Sequence[StepRow], new: Sequence[StepRow], edited: Edited = None
) -> list[StepRow] | None:
    """The changed rows if every step kept its id and position, else None.

    `edited`: ``(rows, positions)``, `new` being `rows` with only those positions replaced;
    when `rows` is `old` itself only those positions are compared (a 1,000-step scan
    costs ~17 us in the writer's thread).
    """
    if len(old) != len(new):
        return None
    if edited is not None and edited[0] is old:
        pairs = [(old[p], new[p]) for p in edited[1]]
    else:
        pairs = [(old[p], new[p]) for p in compress(count(), map(is_not, old, new))]
    if all(a.step_id == b.step_id and a.position == b.position for a, b in pairs):
        return [b for a, b in pairs if a != b]
    return None


def _rewrite_values(session_id: str, row: StepRow) -> dict[str, Any]:
    return {
        "b_sid": session_id,
        "b_step_id": row.step_id,
        "b_status": row.status,
        "b_body": row.body,
    }


def _step_values(session_id: str, row: StepRow) -> dict[str, Any]:
    return {**_rewrite_values(session_id, row), "b_position": row.position}


def append_rows(
    tx: Tx,
    session_id: str,
    version: int,
    now: float,
    messages: Sequence[str],
    history: Sequence[History],
) -> None:
    """Append encoded messages and history rows (see :func:`history_rows`) to the logs."""
    tx.run(
        MESSAGE_INSERT, [{"b_sid": session_id, "b_created_at": now, "b_body": m} for m in messages]
    )
    rows = [
        {
            "b_sid": session_id,
            "b_version": version,
            "b_kind": kind,
            "b_step_id": step_id,
            "b_created_at": now,
            "b_body": body,
        }
        for kind, step_id, body in history
    ]
    tx.run(HISTORY_INSERT, rows)


def history_rows(events: Iterable[Any]) -> list[History]:
    """Each event as its history row: kind, step id, body (JSON).

    Raises:
        StatePayloadError: an event is not one (see ``encode_event``) or not JSON.
    """
    rows = []
    for event in events:
        kind, step_id, body = encode_event(event)
        rows.append((kind, step_id, dumps(body, "event")))
    return rows


def history_size(rows: Iterable[History]) -> int:
    """The UTF-8 bytes of history rows as stored (their kinds, step ids and bodies)."""
    return sum(nbytes(kind) + nbytes(step_id or "") + nbytes(body) for kind, step_id, body in rows)


def save(
    tx: Tx,
    session_id: str,
    state: EncodedState,
    expected: int | None,
    cached: Cached | None,
    now: float,
    messages: Sequence[str],
    history: Sequence[History],
    *,
    notify: bool = False,
) -> tuple[int, str]:
    """Save one state (diffing the plan against ``cached`` or the stored steps).

    `history`: the rows of the events given (:func:`history_rows`, encoded once, before
    the transaction); none: the events are derived from the diff.

    Returns ``(new_version, token)``. `notify`: announce it on the change feed (on
    PostgreSQL; sent in the bump's own round trip when the cached version holds).

    Raises:
        StaleStateError: ``expected`` differs from the stored version (0 means "new").
    """
    row = {
        "b_sid": session_id,
        "b_title": state.title,
        "b_status": state.status,
        "b_steps_done": state.steps_done,
        "b_steps_total": len(state.steps),
        "b_updated_at": now,
        "b_data": state.data,
        "b_plan_meta": state.plan_meta,
    }
    old: tuple[StepRow, ...] | None = None
    announce = notify and tx.dialect == "postgresql"
    if cached is not None and expected in (None, cached.version) and cached.version > 0:
        token, version = cached.token, cached.version
        bump = {**row, "b_old": version, "b_token": token, "b_new": version + 1}
        rewrites = (
            in_place(cached.rows, state.steps, state.edited) if announce and not messages else None
        )
        if announce:
            payload = {"b_channel": _changes.CHANNEL, "b_payload": f"{version + 1} {session_id}"}
            bump = {**bump, **payload}
        if rewrites is not None:  # PostgreSQL: one statement (nothing written if stale)
            recorded = history or history_rows(
                derive_events(cached.rows, state.steps, state.plan_meta)
            )
            if save_at_once(tx, bump, rewrites, recorded):
                return version + 1, token
        elif announce:
            if len(tx.rows(BUMP_NOTIFY, bump)) == 1:
                old, announce = cached.rows, False
        elif tx.run(BUMP, bump) == 1:
            old = cached.rows
    if old is None:
        version, token, old = _bump_slowly(tx, row, expected, cached)
    if announce:
        _changes.notify(tx, session_id, version + 1)
    write_steps(tx, session_id, old, state.steps, state.edited)
    recorded = history or history_rows(derive_events(old, state.steps, state.plan_meta))
    append_rows(tx, session_id, version + 1, now, messages, recorded)
    return version + 1, token


def _bump_slowly(
    tx: Tx, row: dict[str, Any], expected: int | None, cached: Cached | None
) -> tuple[int, str, tuple[StepRow, ...]]:
    """Read (and lock) the session row, create or bump it: ``(old version, token, steps)``."""
    session_id = row["b_sid"]
    found = tx.rows(READ, {"b_sid": session_id})
    if not found:
        if expected not in (None, 0):
            raise StaleStateError(session_id, expected, None)
        token = secrets.token_hex(16)
        if tx.run(CREATE[tx.dialect], {**row, "b_token": token, "b_new": 1}) == 1:
            return 0, token, ()
        found = tx.rows(READ, {"b_sid": session_id})  # a concurrent first writer won
    version, token = int(found[0][0]), str(found[0][1])
    if expected is not None and expected != version:
        raise StaleStateError(session_id, expected, version)
    if cached is not None and (cached.token, cached.version) == (token, version):
        old = cached.rows
    else:
        old = read_steps(tx, session_id)
    if tx.run(BUMP, {**row, "b_old": version, "b_token": token, "b_new": version + 1}) != 1:
        raise StaleStateError(session_id, expected, None)  # cannot happen under the lock
    return version, token, old


def append(tx: Tx, session_id: str, now: float, messages: Sequence[str]) -> None:
    """Append messages to an existing session (locked), else SessionNotFoundError."""
    found = tx.rows(EXISTING, {"b_sid": session_id})
    if not found:
        raise SessionNotFoundError(f"no session {session_id!r}; save a state for it first")
    append_rows(tx, session_id, int(found[0][0]), now, messages, ())


def remove(tx: Tx, session_id: str, expected: int | None = None) -> bool:
    """Delete a session with its steps, messages and history; True if it existed.

    Raises:
        StaleStateError: `expected` is given and the session is at another version;
            nothing was deleted.
    """
    if expected is not None:
        found = tx.rows(EXISTING, {"b_sid": session_id})
        if not found:
            return False
        if found[0][0] != expected:
            raise StaleStateError(session_id, expected, found[0][0])
    changed = [tx.run(statement, {"b_sid": session_id}) for statement in DELETES]
    return changed[-1] > 0
