"""Claims in the store: workers claim, renew, finish and release plan steps, atomically.

Each operation is one transaction under the session's write lock (SQLite's
``BEGIN IMMEDIATE``; on PostgreSQL the session row ``SELECT ... FOR UPDATE``), so two
workers never get the same step and no change is lost. Not ``SKIP LOCKED`` on step rows:
every change to a session bumps its one version (optimistic concurrency, the change
feed and the history's order hang on it), so claims in one session commit one after
another whatever rows they pick; skipping locked step rows would add a query, not
parallelism. The transitions are the
plan's own (:mod:`taskforce.plan.claims`); each commit bumps the session version, is
announced on the change feed and leaves lifecycle events in the history. Lease times
come from the database's clock on PostgreSQL (machines with skewed clocks agree) and
from this machine's clock on SQLite (one machine).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import text

from taskforce.errors import ClaimError, PlanError, SessionNotFoundError
from taskforce.plan import Plan
from taskforce.plan.claims import Outcome
from taskforce.store import _update, _write
from taskforce.store._tx import Tx

Op = Callable[[Plan, datetime, Collection[str]], Outcome]
"""A claim transition: (plan, now, approved step ids) -> outcome."""

APPROVED_KEY = "approved_steps"
_PG_NOW = text("SELECT extract(epoch FROM clock_timestamp())")


@dataclass
class Done:
    """What one claim transaction did: the outcome, and what the session's cache keeps.

    `cache`: the stored steps after the transaction and a memo of their decoded steps
    (``Memo.decoded``), for the next transaction of this session.
    """

    outcome: Outcome | None = None
    cache: _write.Cached | None = None


def db_now(tx: Tx) -> float:
    """Seconds since the epoch by the database's clock (this machine's for SQLite)."""
    if tx.dialect == "postgresql":
        return float(tx.rows(_PG_NOW, {})[0][0])
    return time.time()


def body(session_id: str, op: Op, limit: int, cached: _write.Cached | None) -> Callable[[Tx], Done]:
    """The transaction body running `op` on the stored plan of `session_id`.

    `cached`: the session's cache entry (see ``StateManager._remember``). When its version
    and token are the stored ones, its steps are the stored rows (not read again); a row
    whose body equals the one a decoded memo holds gives that memo's step (not decoded
    again). Either way the plan is checked as a whole, as when it is read afresh.

    Raises:
        SessionNotFoundError: there is no such session.
        ClaimError: the plan refused the transition (the message says why).
    """

    def run(tx: Tx) -> Done:
        now = db_now(tx)
        read = _update.read_locked(tx, session_id, cached)
        if read is None:
            raise SessionNotFoundError(f"no session {session_id!r}")
        approved = read.state.get(APPROVED_KEY)
        ids = [a for a in approved if isinstance(a, str)] if isinstance(approved, list) else []
        done = Done(cache=read.entry())
        try:
            done.outcome = op(read.plan, datetime.fromtimestamp(now, UTC), ids)
        except PlanError as exc:
            raise ClaimError(str(exc), exc.error_type) from None
        if done.outcome.plan is read.plan:  # nothing written: it commits empty
            return done
        plan, events = done.outcome.plan, done.outcome.events
        done.cache = _update.save_plan(tx, session_id, read, plan, events, limit, now)
        return done

    return run
