"""Claims with leases: many workers on one plan, each holding the step it works on.

A worker (an :class:`~taskforce.plan.step.Actor` with a name and a lease) claims the next
runnable step: the step becomes IN_PROGRESS, owned by the worker until ``lease_until``.
The owner renews the lease while it works, then finishes the step (DONE, FAILED or
SKIPPED, with a note) or releases it. A lease that runs out puts the step back: PENDING,
no owner, its note kept, and a ``step_interrupted`` event naming the worker that held it,
so a crashed worker never leaves a step stuck, and the record says the step was
interrupted before anyone starts it again.

Expiry is lazy: it happens in the next transition that looks (a claim, or an explicit
:func:`expire`), so an expired step of a session nobody works on stays as it was until
someone joins. Pure: the time is always given; the store runs these in one transaction.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from taskforce.errors import PlanError
from taskforce.plan.events import Event, lifecycle_events
from taskforce.plan.plan import Plan
from taskforce.plan.state import iso_time
from taskforce.plan.step import Actor, Step, StepStatus
from taskforce.plan.tree import ancestors


@dataclass(frozen=True, slots=True)
class Claim:
    """A step a worker holds.

    The step (IN_PROGRESS, its owner, its lease), its number, and the plan as it was
    claimed (for the notes of the steps it depends on). `resumed` is True when the
    worker already held it (a worker restarted under the same name gets its step back).
    """

    step: Step
    number: int
    plan: Plan
    resumed: bool = False

    def context(self) -> list[Step]:
        """The finished steps this one depends on (its own, and its parents'), in order."""
        wanted: set[str] = set(self.step.depends_on)
        for parent in ancestors(self.step, {s.id: s for s in self.plan.steps}):
            wanted.update(parent.depends_on)
        return [s for s in self.plan.steps if s.id in wanted]


@dataclass(frozen=True, slots=True)
class Backlog:
    """What is left of a plan for workers when nothing can be claimed right now.

    `held`: steps in progress (a worker's, with its lease, or the session agent's);
    `gated`: ready steps waiting for a human's approval; `open`: steps not finished;
    `claimable`: ready steps a claim would take now (the plan moved on since a claim
    found none: another worker finished the step they waited for).
    """

    held: tuple[Step, ...]
    gated: tuple[Step, ...]
    open: int
    claimable: int

    @property
    def done(self) -> bool:
        """Nothing is left open: the plan is finished."""
        return self.open == 0

    def next_expiry(self) -> datetime | None:
        """When the first lease of a held step runs out (work may come back then)."""
        leases = [s.lease_until for s in self.held if s.lease_until is not None]
        return min(leases) if leases else None


@dataclass(frozen=True, slots=True)
class Outcome:
    """A claim transition's result: the new plan, its history events, the claim if any."""

    plan: Plan
    events: tuple[Event, ...]
    claim: Claim | None = None


def expire(plan: Plan, now: datetime) -> tuple[Plan, list[Event]]:
    """`plan` with every lapsed lease ended: those steps PENDING again, notes kept."""
    steps = list(plan.steps)
    events: list[Event] = []
    for position, step in enumerate(steps):
        if _lapsed(step, now):
            steps[position] = step.moved(StepStatus.PENDING, now)
            events.append(
                {
                    "kind": "step_interrupted",
                    "step_id": step.id,
                    "step": position + 1,
                    "from_status": step.status.value,
                    "to_status": StepStatus.PENDING.value,
                    "note": step.note,
                    "owner": step.owner,
                    "lease_until": iso_time(step.lease_until) if step.lease_until else None,
                }
            )
    if not events:
        return plan, events
    return replace(plan, steps=tuple(steps), version=plan.version + 1), events


def claim(
    plan: Plan,
    actor: Actor,
    now: datetime,
    *,
    step_id: str | None = None,
    approved: Collection[str] = (),
) -> Outcome:
    """The next runnable step (or `step_id`) claimed by `actor`, after lapsed leases end.

    A worker that already holds a step gets it back with a fresh lease. Steps flagged
    ``requires_approval`` (or under such a parent) wait until their id is in `approved`.
    With nothing to claim the outcome has no claim (and may still carry expiries).

    Raises:
        PlanError: `step_id` is not in the plan or cannot be claimed now (says why).
    """
    _check_actor(actor)
    plan, events = expire(plan, now)
    held = plan.in_progress(actor.name)
    if held is not None and (step_id is None or held.id == step_id):
        renewed = renew(plan, held.id, actor, now)
        step = renewed.step(held.id)
        resumed = Claim(step, renewed.number_of(step), renewed, True)
        return Outcome(renewed, tuple(events), resumed)
    if step_id is not None:
        target = _step(plan, step_id)
        if target.status is not StepStatus.PENDING:
            raise PlanError(
                f"step {plan.number_of(target)} is {target.status.value}"
                f"{f' (held by {target.owner})' if target.owner else ''}: "
                "only a pending step can be claimed",
                "held" if target.owner else "not_pending",
            )
        if gated(plan, target, approved):
            raise PlanError(
                f"step {plan.number_of(target)} waits for a human's approval", "needs_approval"
            )
    else:
        found = next((s for s in plan.runnable() if not gated(plan, s, approved)), None)
        if found is None:
            return Outcome(plan, tuple(events))
        target = found
    number = plan.number_of(target)
    new = plan.with_status([number], StepStatus.IN_PROGRESS, now=now, actor=actor)
    events += lifecycle_events(plan, new)
    return Outcome(new, tuple(events), Claim(new.step(target.id), number, new))


def renew(plan: Plan, step_id: str, actor: Actor, now: datetime) -> Plan:
    """`plan` with `actor`'s lease on `step_id` extended to now + its lease.

    Raises:
        PlanError: the step is gone, or not held by `actor` (``claim_lost``).
    """
    _check_actor(actor)
    step = _step(plan, step_id)
    if step.status is not StepStatus.IN_PROGRESS or step.owner != actor.name:
        holder = f"held by {step.owner}" if step.owner else step.status.value
        raise PlanError(
            f"step {plan.number_of(step)} is no longer yours ({holder}): your lease ran "
            "out and it was taken back, or someone changed it",
            "claim_lost",
        )
    until = now + timedelta(seconds=actor.lease_seconds or 0)
    steps = list(plan.steps)
    steps[plan.number_of(step) - 1] = replace(step, lease_until=until)
    return replace(plan, steps=tuple(steps), version=plan.version + 1)


def release(plan: Plan, step_id: str, actor: Actor, now: datetime, note: str | None) -> Outcome:
    """`step_id` given back by its owner (or a human): PENDING again, `note` recorded.

    Raises:
        PlanError: the step is gone, or not held by `actor`.
    """
    step = _step(plan, step_id)
    if step.status is not StepStatus.IN_PROGRESS or not actor.may_change(step):
        raise PlanError(
            f"step {plan.number_of(step)} is not yours to release "
            f"({step.status.value}{f', held by {step.owner}' if step.owner else ''})",
            "held",
        )
    number = plan.number_of(step)
    new = plan.with_status([number], StepStatus.PENDING, note, now=now, actor=actor)
    event: Event = {
        "kind": "step_released",
        "step_id": step.id,
        "step": number,
        "from_status": step.status.value,
        "to_status": StepStatus.PENDING.value,
        "note": new.step(step.id).note,
        "owner": step.owner,
    }
    others = [e for e in lifecycle_events(plan, new) if e.get("step_id") != step.id]
    return Outcome(new, (event, *others))


def finish(
    plan: Plan,
    step_id: str,
    actor: Actor,
    status: StepStatus,
    note: str | None,
    now: datetime,
) -> Outcome:
    """`step_id` finished by `actor`: DONE, FAILED or SKIPPED, with `note`.

    Only the step's owner (or a human) finishes a held step; a step nobody holds may be
    finished by anyone (who is recorded as its owner). Parents follow their sub-steps.

    Raises:
        PlanError: the step is gone, held by someone else, blocked, or a parent with open
            sub-steps (the message says which).
    """
    if status.is_open:
        raise PlanError(f"finish with DONE, FAILED or SKIPPED, not {status.value}")
    step = _step(plan, step_id)
    number = plan.number_of(step)
    new = plan.with_status([number], status, note, now=now, actor=actor)
    events = lifecycle_events(plan, new)
    if actor.human:  # the record says who overrode whom
        events = [{**e, "by": "human"} if e.get("step_id") == step.id else e for e in events]
    return Outcome(new, tuple(events))


def backlog(plan: Plan, approved: Collection[str] = ()) -> Backlog:
    """What keeps workers from claiming: held steps, steps awaiting approval, open steps."""
    held = tuple(s for s in plan.steps if s.status is StepStatus.IN_PROGRESS)
    runnable = plan.runnable_steps()
    waiting = tuple(s for s in runnable if gated(plan, s, approved))
    open_steps = sum(s.status.is_open for s in plan.steps)
    return Backlog(held, waiting, open_steps, len(runnable) - len(waiting))


def gated(plan: Plan, step: Step, approved: Collection[str]) -> bool:
    """Whether `step` (or an open parent of it) needs an approval not yet given."""
    chain = [step, *(a for a in ancestors(step, {s.id: s for s in plan.steps}) if a.status.is_open)]
    return any(s.requires_approval and s.id not in approved for s in chain)


def _lapsed(step: Step, now: datetime) -> bool:
    return (
        step.status is StepStatus.IN_PROGRESS
        and step.owner is not None
        and step.lease_until is not None
        and step.lease_until <= now
    )


def _step(plan: Plan, step_id: str) -> Step:
    try:
        return plan.step(step_id)
    except KeyError:
        raise PlanError(f"the plan has no step {step_id!r}", "no_step") from None


def _check_actor(actor: Actor) -> None:
    if actor.name is None or not actor.lease_seconds or actor.lease_seconds <= 0:
        raise PlanError("a claim needs a named worker with a lease of more than 0 seconds")
