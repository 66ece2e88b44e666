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

import contextlib
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import text

from taskforce.errors import ClaimError, PlanError, SessionNotFoundError
from taskforce.plan import Plan
from taskforce.plan.claims import Outcome
from taskforce.store import _update
from taskforce.store._codec import EncodedState
from taskforce.store._tx import Tx

Op = Callable[[Plan, datetime, Collection[str]], Outcome]
"""A claim transition: (plan, now, approved step ids) -> outcome."""

APPROVED_KEY = "approved_steps"
_PG_NOW = text("SELECT extract(epoch FROM clock_timestamp())")


@dataclass
class Done:
    """What one claim transaction did: the outcome, and the commit (None: nothing written)."""

    outcome: Outcome | None = None
    written: tuple[int, str, EncodedState] | None = None


class _Unchanged(Exception):
    """The transition changed nothing: roll back instead of writing a new version."""


def db_now(tx: Tx) -> float:
    """Seconds since the epoch by the database's clock (this machine's for SQLite)."""
    if tx.dialect == "postgresql":
        return float(tx.rows(_PG_NOW, {})[0][0])
    return time.time()


def body(session_id: str, op: Op, limit: int) -> Callable[[Tx], Done]:
    """The transaction body running `op` on the stored plan of `session_id`.

    Raises:
        SessionNotFoundError: there is no such session.
        ClaimError: the plan refused the transition (the message says why).
    """

    def run(tx: Tx) -> Done:
        now = db_now(tx)
        done = Done()

        def change(current: dict[str, Any] | None) -> tuple[dict[str, Any], Any]:
            if current is None:
                raise SessionNotFoundError(f"no session {session_id!r}")
            state = {k: v for k, v in current.items() if k != "version"}
            plan = Plan.from_state(state.get("plan"))
            approved = state.get(APPROVED_KEY)
            ids = [a for a in approved if isinstance(a, str)] if isinstance(approved, list) else []
            try:
                done.outcome = op(plan, datetime.fromtimestamp(now, UTC), ids)
            except PlanError as exc:
                raise ClaimError(str(exc), exc.error_type) from None
            if done.outcome.plan is plan:
                raise _Unchanged
            state["plan"] = done.outcome.plan.to_state()
            return state, done.outcome.events

        with contextlib.suppress(_Unchanged):  # nothing written: it commits empty
            done.written = _update.body(session_id, change, limit, now)(tx)
        return done

    return run
