"""The claims API of :class:`~taskforce.store.StateManager`: many workers, one plan.

A worker names itself (``owner``) and claims the next runnable step with a lease; it
renews the lease while it works and finishes the step with a note (or releases it). Each
call is one atomic transaction (see :mod:`taskforce.store._claims`). ``owner=None`` in
:meth:`ClaimsAPI.finish_step` and :meth:`ClaimsAPI.release_step` means a human (or the
application acting for one): no claim is needed and a worker's claim is overridden; the
history records ``"by": "human"``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection
from datetime import datetime
from typing import TYPE_CHECKING

from taskforce.errors import ConfigurationError
from taskforce.plan import Plan, StepStatus
from taskforce.plan import claims as plan_claims
from taskforce.plan.claims import Claim, Outcome
from taskforce.plan.step import HUMAN, Actor, check_owner
from taskforce.store import _claims
from taskforce.store._config import validate_session_id

if TYPE_CHECKING:
    from collections import OrderedDict

    from taskforce.store._runner import Runner
    from taskforce.store._write import Cached

DEFAULT_LEASE = 60.0
"""Seconds a claim lasts without renewal, unless the caller says otherwise."""


class ClaimsAPI:
    """Claim, renew, finish and release plan steps (mixed into ``StateManager``)."""

    _db: Runner
    _limit: int
    _cache: OrderedDict[str, Cached]

    def _remember(self, session_id: str, entry: Cached | None) -> None:
        raise NotImplementedError  # pragma: no cover - provided by StateManager

    async def claim_step(
        self,
        session_id: str,
        owner: str,
        lease: float = DEFAULT_LEASE,
        *,
        step_id: str | None = None,
    ) -> Claim | None:
        """Claim the next runnable step (or `step_id`) for `owner`, for `lease` seconds.

        Lapsed leases end first (``step_interrupted`` in the history). A worker that holds
        a step already gets it back with a fresh lease (``resumed``). Steps flagged
        ``requires_approval`` wait until approved (``approved_steps`` of the session).

        Returns:
            The claim (the step IN_PROGRESS for `owner`, its number, the plan as claimed),
            or None when nothing can be claimed now (see :func:`taskforce.plan.claims.backlog`).

        Raises:
            SessionNotFoundError: no such session.
            ClaimError: `step_id` cannot be claimed (held, not pending, awaiting approval).
        """
        actor = _worker(owner, lease)

        def op(plan: Plan, now: datetime, approved: Collection[str]) -> Outcome:
            return plan_claims.claim(plan, actor, now, step_id=step_id, approved=approved)

        outcome = await self._claim_tx(session_id, op)
        return outcome.claim if outcome is not None else None

    async def renew_lease(
        self, session_id: str, step_id: str, owner: str, lease: float = DEFAULT_LEASE
    ) -> datetime:
        """Extend `owner`'s claim on `step_id` to `lease` seconds from now; the new expiry.

        Raises:
            ClaimError: the step is no longer `owner`'s (``claim_lost``): stop working on it.
        """
        actor = _worker(owner, lease)

        def op(plan: Plan, now: datetime, approved: Collection[str]) -> Outcome:
            return Outcome(plan_claims.renew(plan, step_id, actor, now), ())

        outcome = await self._claim_tx(session_id, op)
        assert outcome is not None
        until = outcome.plan.step(step_id).lease_until
        assert until is not None
        return until

    async def finish_step(
        self,
        session_id: str,
        step_id: str,
        owner: str | None,
        status: StepStatus | str = StepStatus.DONE,
        note: str | None = None,
    ) -> Plan:
        """Finish `step_id` as DONE, FAILED or SKIPPED with `note`; the plan afterwards.

        `owner` is the worker that holds the step (or any worker, for a step nobody
        holds); None is a human, who may finish any step.

        Raises:
            ClaimError: the step is held by someone else, gone, blocked, or a parent with
                open sub-steps.
        """
        actor = HUMAN if owner is None else Actor(check_owner(owner))
        wanted = StepStatus.parse(status)

        def op(plan: Plan, now: datetime, approved: Collection[str]) -> Outcome:
            return plan_claims.finish(plan, step_id, actor, wanted, note, now)

        outcome = await self._claim_tx(session_id, op)
        assert outcome is not None
        return outcome.plan

    async def release_step(
        self, session_id: str, step_id: str, owner: str | None, note: str | None = None
    ) -> Plan:
        """Give `step_id` back (PENDING, no owner; ``step_released``); the plan afterwards.

        Raises:
            ClaimError: `owner` does not hold the step (None: a human, who may).
        """
        actor = HUMAN if owner is None else Actor(check_owner(owner))

        def op(plan: Plan, now: datetime, approved: Collection[str]) -> Outcome:
            return plan_claims.release(plan, step_id, actor, now, note)

        outcome = await self._claim_tx(session_id, op)
        assert outcome is not None
        return outcome.plan

    async def expire_leases(self, session_id: str) -> int:
        """End the claims whose leases ran out (``step_interrupted``); how many ended."""

        def op(plan: Plan, now: datetime, approved: Collection[str]) -> Outcome:
            new, events = plan_claims.expire(plan, now)
            return Outcome(new, tuple(events))

        outcome = await self._claim_tx(session_id, op)
        return len(outcome.events) if outcome is not None else 0

    async def _claim_tx(
        self, session_id: str, op: Callable[[Plan, datetime, Collection[str]], Outcome]
    ) -> Outcome | None:
        validate_session_id(session_id)
        try:
            tx = _claims.body(session_id, op, self._limit, self._cache.get(session_id))
            done, cancelled = await self._db.run_tx(tx)
        except BaseException:
            self._remember(session_id, None)
            raise
        self._remember(session_id, done.cache)
        if cancelled:
            raise asyncio.CancelledError(f"taskforce: a claim in {session_id!r} was committed")
        return done.outcome


def _worker(owner: str, lease: float) -> Actor:
    check_owner(owner)
    if isinstance(lease, bool) or not isinstance(lease, int | float) or not 0 < lease <= 86_400:
        raise ConfigurationError(f"lease must be 0 < seconds <= 86400, not {lease!r}")
    return Actor(owner, float(lease))
