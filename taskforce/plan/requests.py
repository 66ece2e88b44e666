"""What one planner call asks of a plan, as a value: a new plan, status changes, an edit, a read.

The planner tool decodes a call's arguments into one of these once; applying it is one
transition of the plan (:meth:`apply`), made by an :class:`~taskforce.plan.step.Actor`
(the session's agent unless told otherwise). Callers that need to know what a call does (the
agent's approvals and guards) look at the request's type and fields, never at the tool's
action names. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from taskforce.plan.limits import PlanLimits
from taskforce.plan.specs import StepSpec, once
from taskforce.plan.step import AGENT, Actor, StepStatus

if TYPE_CHECKING:
    from taskforce.plan.plan import Plan


@dataclass(frozen=True, slots=True)
class NewPlan:
    """Replace the plan with these steps (all pending).

    A task that only repeats the one before it is that step (:func:`~taskforce.plan.specs.once`).
    """

    tasks: tuple[StepSpec, ...]

    def apply(
        self, plan: Plan, limits: PlanLimits, now: datetime | None = None, actor: Actor = AGENT
    ) -> Plan:
        """The new plan."""
        return plan.replaced(once(self.tasks), limits)


@dataclass(frozen=True, slots=True)
class SetStatus:
    """Set the status (and optionally the note) of the steps numbered `indices` (from 1)."""

    indices: tuple[int, ...]
    status: StepStatus = StepStatus.DONE
    note: str | None = None

    def apply(
        self, plan: Plan, limits: PlanLimits, now: datetime | None = None, actor: Actor = AGENT
    ) -> Plan:
        """The plan with the statuses set (times recorded from `now`) by `actor`."""
        return plan.with_status(self.indices, self.status, self.note, limits, now=now, actor=actor)


@dataclass(frozen=True, slots=True)
class EditPlan:
    """Add, insert, remove and reword steps in one replan (numbers refer to the plan as is)."""

    add: tuple[StepSpec, ...] = ()
    insert_at: int | None = None
    remove: tuple[int, ...] = ()
    reword: tuple[int, str] | None = None

    def apply(
        self, plan: Plan, limits: PlanLimits, now: datetime | None = None, actor: Actor = AGENT
    ) -> Plan:
        """The revised plan."""
        return plan.edited(
            add=self.add,
            insert_at=self.insert_at,
            remove=self.remove,
            reword=self.reword,
            limits=limits,
            now=now,
            actor=actor,
        )


@dataclass(frozen=True, slots=True)
class ReadPlan:
    """Read the plan; changes nothing."""

    def apply(
        self, plan: Plan, limits: PlanLimits, now: datetime | None = None, actor: Actor = AGENT
    ) -> Plan:
        """The same plan."""
        return plan


PlanRequest = NewPlan | SetStatus | EditPlan | ReadPlan
"""One planner call, decoded."""
