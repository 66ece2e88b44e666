"""The plan: an immutable value holding steps, with queries and transitions.

Pure domain code with no I/O and no hidden clock: transitions that record times take
`now`. A transition validates all of its inputs, and the resulting plan's invariants,
then returns a *new* plan (steps it did not touch are shared, not copied); a refused
change raises :class:`~taskforce.errors.PlanError` naming the problem and leaves nothing
changed, because nothing can change a plan.

Invariants: step ids are unique and never reused within a plan; a step depends only on
steps before it (so there are no cycles); a sub-step follows its parent, with its
siblings, as one block (see :mod:`~taskforce.plan.tree`); at most one step is
IN_PROGRESS per owner (the session's own agent, owner None, is one owner).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from taskforce.plan import derive
from taskforce.plan.changes import edit_steps, replace_steps, set_status
from taskforce.plan.checklist import ChecklistLine, checklist, render
from taskforce.plan.limits import DEFAULT_LIMITS, PlanLimits
from taskforce.plan.once import once
from taskforce.plan.specs import NewStep
from taskforce.plan.state import STEP_KEYS, read_state, write_state
from taskforce.plan.step import AGENT, NO_EXTRA, Actor, Step, StepStatus
from taskforce.plan.tree import ancestors, children_map, depths, rollup

_NOTHING: Any = object()


def lifecycle_status(done: int, total: int, *, started: bool, stuck: bool = False) -> str:
    """The status of a piece of work from its progress: the one derivation.

    ``completed`` (every step finished), ``failed`` (`stuck`: a failed step leaves
    nothing else to run), ``in_progress`` (`started`) or ``pending``.
    """
    if total and done >= total:
        return "completed"
    if stuck:
        return "failed"
    return "in_progress" if started else "pending"


@dataclass(frozen=True)
class Plan:
    """An ordered tuple of steps; `version` counts every change, `revision` every replan.

    Immutable: :meth:`replaced`, :meth:`with_status` and :meth:`edited` return new plans.
    Unknown keys of the stored state are kept in `extra`.
    """

    steps: tuple[Step, ...] = ()
    version: int = 0
    revision: int = 0
    next_id: int = 1
    extra: Mapping[str, Any] = field(default_factory=lambda: NO_EXTRA)

    # ---- the stored form -------------------------------------------------------------

    @classmethod
    def from_state(cls, state: Mapping[str, Any] | None) -> Plan:
        """Build a plan from its JSON state (None or ``{}`` gives an empty plan).

        Raises:
            PlanError: the state is malformed (``error_type`` ``corrupt``), naming why.
        """
        parts = read_state(state)
        return cls(parts.steps, parts.version, parts.revision, parts.next_id, parts.extra)

    @classmethod
    def of(
        cls,
        tasks: Sequence[NewStep],
        extras: Sequence[Mapping[str, Any] | None] = (),
        limits: PlanLimits = DEFAULT_LIMITS,
    ) -> Plan:
        """A new plan of `tasks` (the planner's rules apply); step n also keeps `extras[n]`.

        The one way a plan is built from what a planner produced (a parsed reply, a
        contract payload, planned goals): keys of an extra that a step already has
        (``description``, ``status``...) are not taken.
        """
        plan = cls().replaced(tasks, limits)
        if not extras:
            return plan
        steps = tuple(
            dataclasses.replace(step, extra=MappingProxyType(kept))
            if (kept := {k: v for k, v in (extra or {}).items() if k not in STEP_KEYS})
            else step
            for step, extra in zip(plan.steps, extras, strict=False)
        )
        return dataclasses.replace(plan, steps=steps + plan.steps[len(steps) :])

    def to_state(self) -> dict[str, Any]:
        """The plan as plain JSON data (a fresh copy); optional step keys only when set."""
        return write_state(self.steps, self.version, self.revision, self.next_id, self.extra)

    # ---- reading ---------------------------------------------------------------------

    def render(self) -> str:
        """The plan as a Markdown checklist (or ``No active plan.``), computed once."""
        return self._rendered

    def checklist(self) -> tuple[ChecklistLine, ...]:
        """The checklist lines (number, status, text) that :meth:`render` joins."""
        return checklist(self)

    def step(self, step_id: str) -> Step:
        """The step with id `step_id` (KeyError when there is none)."""
        return self.steps[self._positions[step_id]]

    def number_of(self, step: Step) -> int:
        """The 1-based number of `step` in this plan."""
        return self._positions[step.id] + 1

    def open_steps(self) -> list[Step]:
        """Steps still pending or in progress."""
        return [s for s in self.steps if s.status.is_open]

    def in_progress(self, owner: str | None = None) -> Step | None:
        """The step `owner` has in progress, if any (at most one per owner; None: the agent)."""
        return next(
            (s for s in self.steps if s.status is StepStatus.IN_PROGRESS and s.owner == owner),
            None,
        )

    def blocked_by(self, step: Step) -> list[int]:
        """Numbers of the unfinished steps `step` itself depends on."""
        return list(self._blocking.get(step.id, ()))

    def waiting_for(self, step: Step) -> list[int]:
        """Numbers of the unfinished steps `step` or any of its parents depends on."""
        numbers = list(self._blocking.get(step.id, ()))
        if step.parent is not None:
            for parent in ancestors(step, self._by_id):
                numbers += [n for n in self._blocking.get(parent.id, ()) if n not in numbers]
        return numbers

    def children(self, step: Step) -> tuple[Step, ...]:
        """The direct sub-steps of `step`, in order."""
        return tuple(self.steps[p] for p in self._children.get(step.id, ()))

    def parent_of(self, step: Step) -> Step | None:
        """The step `step` is a sub-step of, if any."""
        return self._by_id.get(step.parent) if step.parent is not None else None

    def depth(self, step: Step) -> int:
        """How deep `step` is nested (0: a top-level step)."""
        return self._depths[step.id]

    def rollup(self, step: Step) -> tuple[int, int] | None:
        """(finished, all) direct sub-steps of `step`; None when it has none."""
        return rollup(step, self.steps, self._children)

    def runnable_steps(self) -> list[Step]:
        """Pending steps ready for work, in order.

        Not waiting for unfinished steps (their own or their parents' dependencies), and
        without open sub-steps.
        """
        return list(self.runnable())

    def runnable(self) -> Iterator[Step]:
        """:meth:`runnable_steps`, one at a time (taking the first looks no further)."""
        return (s for s in self.steps if self._runnable(s))

    def next_step(self, owner: str | None = None) -> Step | None:
        """The step to work on: `owner`'s step in progress, else the first runnable one."""
        known: dict[str | None, Step | None] = self.__dict__.setdefault("_next", {})
        if owner not in known:  # computed once per plan and owner (a plan never changes)
            current = self.in_progress(owner)
            known[owner] = current if current is not None else next(self.runnable(), None)
        return known[owner]

    def _runnable(self, step: Step) -> bool:
        if step.status is not StepStatus.PENDING or step.id in self._blocking:
            return False
        if step.parent is not None and any(
            a.id in self._blocking for a in ancestors(step, self._by_id)
        ):
            return False
        return not any(
            not self.steps[p].status.is_finished for p in self._children.get(step.id, ())
        )

    def progress(self) -> tuple[int, int]:
        """(finished steps, total steps); done and skipped count as finished."""
        return self._counts[0], len(self.steps)

    def status(self) -> str:
        """The plan's lifecycle status (see :func:`lifecycle_status`), computed once."""
        return self._status

    @once
    def _status(self) -> str:
        done, failed, started = self._counts
        stuck = failed > 0 and not any(
            s.status is StepStatus.IN_PROGRESS or self._runnable(s) for s in self.steps
        )
        return lifecycle_status(done, len(self.steps), started=started > 0, stuck=stuck)

    # ---- transitions (each returns a new plan) ---------------------------------------

    def replaced(self, tasks: Sequence[NewStep], limits: PlanLimits = DEFAULT_LIMITS) -> Plan:
        """A plan of `tasks` (pending, fresh ids) instead of the unfinished steps.

        Finished steps stay first; a task restating one of them is that step.

        A task is a description or ``{"description", "depends_on", "requires_approval"}``,
        where ``depends_on`` lists numbers of earlier tasks in the same list.
        """
        return replace_steps(self, tasks, limits)

    def with_status(
        self,
        indices: Sequence[int],
        status: StepStatus,
        note: str | None = None,
        limits: PlanLimits = DEFAULT_LIMITS,
        *,
        now: datetime | None = None,
        actor: Actor = AGENT,
    ) -> Plan:
        """This plan with the steps at 1-based `indices` set to `status` (and `note`).

        `actor` may change only steps nobody else holds; a named actor that starts a step
        owns it. Parents follow their sub-steps (see :mod:`~taskforce.plan.tree`). This
        plan itself (the same version) when every step already is so.
        """
        new, changed = set_status(self, indices, status, note, limits, now, actor)
        if new is self:  # already so
            return self
        return derive.hand_down(self, new, in_place=True, changed=changed)

    def edited(
        self,
        *,
        add: Sequence[NewStep] = (),
        insert_at: int | None = None,
        remove: Sequence[int] = (),
        reword: tuple[int, str] | None = None,
        limits: PlanLimits = DEFAULT_LIMITS,
        now: datetime | None = None,
        actor: Actor = AGENT,
    ) -> Plan:
        """This plan with steps added, inserted, removed and reworded in one replan.

        Every index (including an added step's ``depends_on``) refers to the plan as it
        is. New steps go before the step numbered `insert_at` (1..n+1), or at the end
        (of their parent's sub-steps, for a new step with a ``parent``). Removing a step
        removes its sub-steps. Completed steps are never removed; a step others depend on
        is not removed; a step held by another owner is not removed.
        """
        edit = edit_steps(self, add, insert_at, remove, reword, limits, now, actor)
        return derive.hand_down(self, edit)

    # ---- computed once per plan (see plan/derive.py) ---------------------------------

    def changed_from(self, steps: tuple[Step, ...]) -> tuple[int, ...] | None:
        """Positions of the steps that differ from `steps`, if changed in place from them.

        None unless this plan was made from a plan of `steps` by changing steps in place.
        """
        return derive.changed_from(self, steps)

    @once
    def _counts(self) -> derive.Counts:
        """(finished, failed, started) step counts."""
        return derive.counts(self)

    @once
    def _lines(self) -> tuple[str, ...]:
        """The checklist's Markdown lines."""
        return derive.lines(self)

    @once
    def _line_keys(self) -> derive.LineKeys:
        """What a step's line shows besides the step: its blockers, sub-step count, depth."""
        return derive.line_keys(self)

    @once
    def _rendered(self) -> str:
        return "\n".join(self._lines) if self.steps else render(self)

    @once
    def _positions(self) -> dict[str, int]:
        return {step.id: index for index, step in enumerate(self.steps)}

    @once
    def _by_id(self) -> dict[str, Step]:
        return {step.id: step for step in self.steps}

    @once
    def _children(self) -> dict[str, tuple[int, ...]]:
        return children_map(self.steps)

    @once
    def _depths(self) -> dict[str, int]:
        return depths(self.steps)

    @once
    def _blocking(self) -> derive.Blocking:
        """For each blocked step's id, the numbers of the unfinished steps it waits for."""
        return derive.blocking(self)

    @once
    def _dependents(self) -> dict[str, tuple[int, ...]]:
        return derive.dependents(self.steps)
