"""Setting step statuses: who may, which steps are ready, and what parents do meanwhile.

The rules of one status change (all checked before anything changes):

* a step held by a worker (IN_PROGRESS with an owner) is changed only by that owner or a
  human (:class:`~taskforce.plan.step.Actor`);
* each owner has at most one step IN_PROGRESS (the session's own agent is one owner), and
  a named actor that starts a step owns it, with a lease when it has one;
* a step starts or is done only when the steps it (or any of its parents) depends on are
  finished, unless they are finished in the same call;
* a parent with open sub-steps cannot be started, nor marked DONE unless they are done in
  the same call; skipping it skips its open sub-steps;
* a failed step is retried at most ``max_retries`` times.

Afterwards parents follow their sub-steps (:func:`~taskforce.plan.tree.settle`). Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from taskforce.errors import PlanError
from taskforce.plan.limits import PlanLimits
from taskforce.plan.specs import clean_note
from taskforce.plan.step import Actor, Step, StepStatus
from taskforce.plan.tree import settle

if TYPE_CHECKING:
    from taskforce.plan.plan import Plan

NO_PLAN_ERROR = "No active plan: create one with create_plan first"


def set_status(
    plan: Plan,
    indices: Sequence[int],
    status: StepStatus,
    note: str | None,
    limits: PlanLimits,
    now: datetime | None,
    actor: Actor,
) -> tuple[Plan, tuple[int, ...] | None]:
    """`plan` with the steps at 1-based `indices` moved to `status`.

    `plan` itself when every step already is so (marking a done step done again changes
    nothing, not even its completion time). And the positions (ascending) of the steps it
    replaced, when known without a scan (None when parents may have followed their
    sub-steps).
    """
    positions = positions_of(plan, indices, "step_index")
    new_note = clean_note(note, limits.max_note)
    targets = [plan.steps[p] for p in positions]
    for step in targets:
        check_holder(plan, step, actor)
    if status is StepStatus.IN_PROGRESS:
        _check_start(plan, targets, actor)
    batch = {t.id for t in targets}
    cascade = _skipped_with(plan, targets, batch) if status is StepStatus.SKIPPED else []
    for step in targets:
        if status is StepStatus.DONE:
            _check_children_done(plan, step, batch)
        if status in (StepStatus.IN_PROGRESS, StepStatus.DONE):
            waiting = [n for n in plan.waiting_for(step) if plan.steps[n - 1].id not in batch]
            if waiting:
                raise PlanError(
                    f"step {plan.number_of(step)} is blocked by step "
                    f"{', '.join(map(str, waiting))}: finish that first",
                    "blocked",
                )
        retrying = step.status is StepStatus.FAILED and status.is_open
        if retrying and step.retries >= limits.max_retries:
            raise PlanError(
                f"step {plan.number_of(step)} failed and was retried {step.retries} "
                f"times; the limit is {limits.max_retries}: skip it or replan",
                "retry_limit",
            )
    if not cascade and all(_has(step, status, new_note, actor) for step in targets):
        return plan, ()  # set again: nothing changes, so no new version and nothing to save
    steps = list(plan.steps)
    for position in positions:
        steps[position] = moved_by(steps[position], status, now, new_note, actor)
    for position in cascade:
        steps[position] = steps[position].moved(StepStatus.SKIPPED, now)
    if plan._children:  # statuses only: the same tree
        touched = [steps[p].id for p in (*positions, *cascade)]
        settled, changed = settle(steps, touched, now, plan._children, plan._positions), None
    else:  # no parents to follow: only the steps at `positions` were replaced
        settled, changed = tuple(steps), tuple(sorted(positions))
    new = type(plan)(  # every field named: 2/3 of dataclasses.replace's cost (tested)
        steps=settled,
        version=plan.version + 1,
        revision=plan.revision,
        next_id=plan.next_id,
        extra=plan.extra,
    )
    return new, changed


def _has(step: Step, status: StepStatus, note: str | None, actor: Actor) -> bool:
    """Whether `step` already is as `actor` would set it: `status`, `note` (None: any), holder."""
    return (
        step.status is status
        and (note is None or note == step.note)
        and (actor.name is None or step.owner == actor.name)
    )


def moved_by(
    step: Step, status: StepStatus, now: datetime | None, note: str | None, actor: Actor
) -> Step:
    """`step` moved to `status` by `actor`: a named actor owns what it starts or finishes."""
    moved = step.moved(status, now, note)
    if actor.name is None or status is StepStatus.PENDING:
        return moved
    if status is StepStatus.IN_PROGRESS:
        lease = actor.lease_seconds
        until = now + timedelta(seconds=lease) if lease is not None and now is not None else None
        return replace(moved, owner=actor.name, lease_until=until)
    return moved if moved.owner is not None else replace(moved, owner=actor.name)


def check_holder(plan: Plan, step: Step, actor: Actor) -> None:
    """Refuse a change to `step` while another owner holds it."""
    if not actor.may_change(step):
        raise PlanError(
            f"step {plan.number_of(step)} is held by {step.owner}: only its owner "
            "(or a human) can change it",
            "held",
        )


def _check_start(plan: Plan, targets: Sequence[Step], actor: Actor) -> None:
    if len(targets) > 1:
        raise PlanError("only one step can be IN_PROGRESS at a time")
    target = targets[0]
    waiting = [s for s in plan.children(target) if not s.status.is_finished]
    if waiting:
        raise PlanError(
            f"step {plan.number_of(target)} has sub-steps: start one of them "
            f"(step {plan.number_of(waiting[0])}) instead",
            "has_substeps",
        )
    current = plan.in_progress(actor.name)
    if current is not None and current.id != target.id:
        raise PlanError(
            f"step {plan.number_of(current)} is already IN_PROGRESS; "
            "finish it (mark_done) or change its status first"
        )


def _check_children_done(plan: Plan, step: Step, batch: set[str]) -> None:
    open_kids = [
        plan.number_of(s)
        for s in plan.children(step)
        if not s.status.is_finished and s.id not in batch
    ]
    if open_kids:
        raise PlanError(
            f"step {plan.number_of(step)} has open sub-steps "
            f"{', '.join(map(str, open_kids))}: a parent is done when its sub-steps are",
            "open_substeps",
        )


def _skipped_with(plan: Plan, targets: Sequence[Step], batch: set[str]) -> list[int]:
    """Positions of the open sub-steps (at any depth) skipped along with `targets`."""
    found: list[int] = []
    todo = list(targets)
    while todo:
        for child in plan.children(todo.pop()):
            if child.id in batch or child.status.is_finished:
                continue
            if child.status is StepStatus.IN_PROGRESS:
                raise PlanError(
                    f"step {plan.number_of(child)}, a sub-step of what you skip, is in "
                    "progress: finish or stop it first",
                    "open_substeps",
                )
            found.append(plan.number_of(child) - 1)
            todo.append(child)
    return found


def positions_of(plan: Plan, indices: Sequence[int], name: str) -> tuple[int, ...]:
    """0-based positions for 1-based `indices`, de-duplicated in order; range-checked."""
    n = len(plan.steps)
    if n == 0:
        raise PlanError(NO_PLAN_ERROR, "no_plan")
    unique = list(dict.fromkeys(indices))
    if not unique:
        raise PlanError(f"{name} must name at least one step")
    bad = [i for i in unique if not 1 <= i <= n]
    if bad:
        raise PlanError(
            f"{name} {bad[0]} is out of bounds: the plan has steps 1 to {n}", "out_of_range"
        )
    return tuple(i - 1 for i in unique)
