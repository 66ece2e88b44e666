"""Read, change and save a session's state in one transaction: no writer in between.

The body reads the state under the write lock (SQLite ``BEGIN IMMEDIATE``; PostgreSQL
``SELECT ... FOR UPDATE``), hands it to the caller's pure ``change`` function, and saves
what that returns as a diff against the rows it just read. It cannot conflict, so a
caller that lost an optimistic race (:class:`~taskforce.errors.StaleStateError`) can
re-apply its change here instead of retrying in a loop.

A :class:`~taskforce.store.protocol.PlanEdit` gets the stored plan decoded instead
(:func:`plan_body`), read through the session's cache entry (``_reread``): only the steps
whose rows changed since this manager last read or wrote them are decoded, and when the
cached version is the stored one the steps are not even read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, select

from taskforce.plan import Plan
from taskforce.store import _reread, _write
from taskforce.store import _schema as t
from taskforce.store._codec import (
    EncodedState,
    Memo,
    StepRow,
    check_size,
    decode_state,
    encode_state,
)
from taskforce.store._tx import Tx
from taskforce.store.protocol import Events, PlanEdit

Change = Callable[[dict[str, Any] | None], tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]]
"""The stored state (with ``"version"``; None when there is none) -> (new state, events)."""

_c = t.sessions.c
LOCKED_LOAD = (
    select(_c.version, _c.token, _c.data, _c.plan_meta)
    .where(_c.session_id == bindparam("b_sid"), _c.version > 0)
    .with_for_update()
)
"""The session row, locked (on PostgreSQL; SQLite's ``BEGIN IMMEDIATE`` holds the lock)."""


def body(session_id: str, change: Change, limit: int, now: float) -> Callable[[Tx], _write.Cached]:
    """The transaction body: the session's new cache entry (what was written)."""

    def run(tx: Tx) -> _write.Cached:
        found = tx.rows(LOCKED_LOAD, {"b_sid": session_id})
        current: dict[str, Any] | None = None
        cached: _write.Cached | None = None
        version = 0
        if found:
            current, cached = _write.loaded(session_id, found[0], _write.read_steps(tx, session_id))
            version = cached.version
        new_version, new_token, encoded = write(
            tx, session_id, change(current), version, cached, limit, now
        )
        return _write.Cached(new_token, new_version, encoded.steps, encoded.memo)

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
    encoded = encode_state(state, cached.memo if cached is not None else None)
    history = _write.history_rows(events)  # checked and encoded once
    size = encoded.nbytes + _write.history_size(history)
    check_size(size, limit, f"update of session {session_id!r}")
    new_version, token = _write.save(
        tx, session_id, encoded, version, cached, now, (), history, notify=True
    )
    return new_version, token, encoded


@dataclass
class Locked:
    """A session read under the write lock: its row, its state and its plan, decoded."""

    version: int
    token: str
    state: dict[str, Any]  # without "version" and "plan"
    plan: Plan
    memo: Memo  # the decoded steps of `rows` (``Memo.decoded``)
    rows: tuple[StepRow, ...]

    def entry(self) -> _write.Cached:
        """The session's cache entry for what was read."""
        return _write.Cached(self.token, self.version, self.rows, self.memo)


def read_locked(tx: Tx, session_id: str, cached: _write.Cached | None) -> Locked | None:
    """The session under the write lock, its plan read through `cached`; None if none.

    `cached` (the session's cache entry) is only a shortcut: when its version and token
    are the stored ones its rows are the stored rows (not read again); otherwise a row
    whose body equals one its decoded memo holds gives that memo's step. The plan is what
    ``Plan.from_state`` of the stored plan gives either way (``_reread.read_plan``).

    Raises:
        StateCorruptError, PlanError: the stored state or plan is corrupt.
    """
    found = tx.rows(LOCKED_LOAD, {"b_sid": session_id})
    if not found:
        return None
    version, token, data, plan_meta = found[0]
    same = cached is not None and cached.token == token and cached.version == version
    rows = cached.rows if cached is not None and same else _write.read_steps(tx, session_id)
    state = decode_state(session_id, data, None, (), version)
    del state["version"]
    plan, memo, rows = _reread.read_plan(session_id, state, plan_meta, rows, cached)
    state.pop("plan", None)  # a plan kept whole in the state (not split into rows)
    return Locked(version, token, state, plan, memo, rows)


def save_plan(
    tx: Tx, session_id: str, read: Locked, plan: Plan, events: Events, limit: int, now: float
) -> _write.Cached:
    """Save `plan` over what was `read` (the rest of the state as read): the new cache entry.

    The rows read are the base of the diff, so one changed step is one row written; the
    entry's memo holds the decoded steps of the rows written (``_reread.written``).
    """
    change = ({**read.state, "plan": plan}, events)
    base = read.entry() if read.version else None
    version, token, encoded = write(tx, session_id, change, read.version, base, limit, now)
    memo = _reread.written(encoded, read.memo, read.plan, plan)
    return _write.Cached(token, version, encoded.steps, memo)


def plan_body(
    session_id: str, edit: PlanEdit, limit: int, now: float, cached: _write.Cached | None
) -> Callable[[Tx], _write.Cached]:
    """The transaction body of a :class:`PlanEdit`: the new cache entry of the session."""

    def run(tx: Tx) -> _write.Cached:
        read = read_locked(tx, session_id, cached)
        if read is None:  # no session yet: it is created
            read = Locked(0, "", {}, Plan(), Memo(), ())
        plan, events = edit.edit_plan(read.state, read.plan)
        return save_plan(tx, session_id, read, plan, events, limit, now)

    return run
