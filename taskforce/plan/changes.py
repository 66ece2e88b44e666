"""The transitions of a plan: replace its steps, set statuses, edit (add, remove, reword).

Each function checks every input and the resulting invariants first, then builds a new
plan with :func:`dataclasses.replace`; steps it does not touch are shared with the old
plan (copy-on-write), so marking one step of a 1,000-step plan makes one new step.
Pure; errors are :class:`~taskforce.errors.PlanError` naming the problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from taskforce.errors import PlanError
from taskforce.plan.limits import PlanLimits
from taskforce.plan.specs import NewStep, clean_note, clean_specs
from taskforce.plan.step import Step, StepStatus
from taskforce.plan.text import check_length, clean_text

if TYPE_CHECKING:
    from taskforce.plan.plan import Plan

NO_PLAN_ERROR = "No active plan: create one with create_plan first"


def replace_steps(plan: Plan, tasks: Sequence[NewStep], limits: PlanLimits) -> Plan:
    """`plan` with `tasks` (all pending, fresh ids) instead of its steps."""
    if not tasks:
        raise PlanError("tasks must be a non-empty list of step descriptions")
    if len(tasks) > limits.max_steps:
        raise PlanError(f"{len(tasks)} tasks is too many; the limit is {limits.max_steps}")
    specs = clean_specs(tasks, "task", limits.max_text)
    ids = [f"s{plan.next_id + i}" for i in range(len(specs))]
    for number, spec in enumerate(specs, start=1):
        for dep in spec.depends_on:
            if not 1 <= dep < number:
                raise PlanError(
                    f"task {number} depends on {dep!r}: a task may depend only on "
                    f"earlier tasks (1 to {number - 1})"
                )
    steps = tuple(
        Step(
            id=ids[i],
            description=spec.description,
            depends_on=tuple(ids[d - 1] for d in spec.depends_on),
            requires_approval=spec.requires_approval,
        )
        for i, spec in enumerate(specs)
    )
    return replace(
        plan,
        steps=steps,
        next_id=plan.next_id + len(specs),
        version=plan.version + 1,
        revision=plan.revision + 1,
    )


def set_status(
    plan: Plan,
    indices: Sequence[int],
    status: StepStatus,
    note: str | None,
    limits: PlanLimits,
    now: datetime | None,
) -> tuple[Plan, tuple[int, ...]]:
    """`plan` with the steps at 1-based `indices` moved to `status`; and their positions."""
    positions = positions_of(plan, indices, "step_index")
    new_note = clean_note(note, limits.max_note)
    targets = [plan.steps[p] for p in positions]
    if status is StepStatus.IN_PROGRESS:
        current = plan.in_progress()
        if len(targets) > 1:
            raise PlanError("only one step can be IN_PROGRESS at a time")
        if current is not None and current.id != targets[0].id:
            raise PlanError(
                f"step {plan.number_of(current)} is already IN_PROGRESS; "
                "finish it (mark_done) or change its status first"
            )
    batch = {t.id for t in targets}
    for step in targets:
        if status in (StepStatus.IN_PROGRESS, StepStatus.DONE):
            waiting = [n for n in plan.blocked_by(step) if plan.steps[n - 1].id not in batch]
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
    steps = list(plan.steps)
    for position in positions:
        steps[position] = steps[position].moved(status, now, new_note)
    return replace(plan, steps=tuple(steps), version=plan.version + 1), positions


def edit_steps(
    plan: Plan,
    add: Sequence[NewStep],
    insert_at: int | None,
    remove: Sequence[int],
    reword: tuple[int, str] | None,
    limits: PlanLimits,
) -> Plan:
    """`plan` with steps added, inserted, removed and reworded, all or nothing."""
    old = plan.steps
    n = len(old)
    removed = set(positions_of(plan, remove, "remove_indices")) if remove else set()
    if n - len(removed) + len(add) > limits.max_steps:
        raise PlanError(
            f"the plan would have {n - len(removed) + len(add)} steps; "
            f"the limit is {limits.max_steps}"
        )
    for pos in sorted(removed):
        if old[pos].status is StepStatus.DONE:
            raise PlanError(f"step {pos + 1} is DONE: completed steps are kept")
    specs = clean_specs(add, "add_steps item", limits.max_text)
    if insert_at is not None and not 1 <= insert_at <= n + 1:
        raise PlanError(f"insert_at {insert_at} is out of bounds: use 1 to {n + 1}")
    new_text: tuple[int, str] | None = None
    if reword is not None:
        (pos,) = positions_of(plan, [reword[0]], "step_index")
        if pos in removed:
            raise PlanError(f"step {reword[0]} cannot be both reworded and removed")
        check_length(reword[1], limits.max_text, "text")
        text = clean_text(reword[1])
        if not text:
            raise PlanError("text is empty")
        if len(text) > limits.max_text:
            raise PlanError(f"text is {len(text)} characters; the limit is {limits.max_text}")
        new_text = (pos, text)
    if not (specs or removed or new_text):
        raise PlanError("update_plan needs add_steps, remove_indices or step_index with text")
    fresh = [
        Step(
            id=f"s{plan.next_id + offset}",
            description=spec.description,
            depends_on=tuple(
                old[positions_of(plan, [d], f"add_steps item {offset + 1} depends_on")[0]].id
                for d in spec.depends_on
            ),
            requires_approval=spec.requires_approval,
        )
        for offset, spec in enumerate(specs)
    ]
    kept = list(old)
    if new_text is not None:
        kept[new_text[0]] = replace(kept[new_text[0]], description=new_text[1])
    at = (insert_at or n + 1) - 1
    order = [s for pos, s in enumerate(kept) if pos < at and pos not in removed]
    order += fresh + [s for pos, s in enumerate(kept) if pos >= at and pos not in removed]
    _check_order(order, {old[p].id for p in removed}, old)
    return replace(
        plan,
        steps=tuple(order),
        next_id=plan.next_id + len(fresh),
        version=plan.version + 1,
        revision=plan.revision + 1,
    )


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


def _check_order(order: list[Step], removed: set[str], before: Sequence[Step]) -> None:
    """Every dependency must stay, and stand earlier in `order`."""
    numbers = {s.id: i for i, s in enumerate(before, start=1)}
    seen: set[str] = set()
    for position, step in enumerate(order, start=1):
        for dep in step.depends_on:
            if dep in removed:
                raise PlanError(
                    f"step {numbers.get(step.id, position)} depends on step {numbers[dep]}, "
                    "which would be removed: change or remove the dependent step too"
                )
            if dep not in seen:
                raise PlanError(
                    f"new step at position {position} would come before its dependency "
                    f"(step {numbers[dep]}): insert it later"
                )
        seen.add(step.id)
