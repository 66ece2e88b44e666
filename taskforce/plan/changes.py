"""The transitions of a plan: replace its steps, edit them (add, remove, reword).

Status changes are in :mod:`~taskforce.plan.status`. Each function checks every input
and the resulting invariants first, then builds a new plan with
:func:`dataclasses.replace`; steps it does not touch are shared with the old plan
(copy-on-write), so marking one step of a 1,000-step plan makes one new step.
Pure; errors are :class:`~taskforce.errors.PlanError` naming the problem.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from taskforce.errors import PlanError
from taskforce.plan.checks import check_parents
from taskforce.plan.limits import PlanLimits
from taskforce.plan.specs import NewStep, StepSpec, clean_specs
from taskforce.plan.status import NO_PLAN_ERROR, check_holder, positions_of, set_status
from taskforce.plan.step import Actor, Step, StepStatus
from taskforce.plan.text import check_length, clean_text
from taskforce.plan.tree import depths, settle, subtree_end

if TYPE_CHECKING:
    from taskforce.plan.plan import Plan

__all__ = ["NO_PLAN_ERROR", "edit_steps", "positions_of", "replace_steps", "set_status"]


def replace_steps(plan: Plan, tasks: Sequence[NewStep], limits: PlanLimits) -> Plan:
    """`plan` with `tasks` (pending, fresh ids) instead of its unfinished steps.

    Finished steps (done or skipped) are never dropped: they stay first, in order (a
    sub-step whose parent goes becomes a top-level step). A flat task with the same text
    as one of them (ignoring case) is that step, not a new one, so a model restating its
    whole plan does not redo finished work. Numbers in ``depends_on`` and ``parent`` refer
    to positions in `tasks`.
    """
    if not tasks:
        raise PlanError("tasks must be a non-empty list of step descriptions")
    if len(tasks) > limits.max_steps:
        raise PlanError(f"{len(tasks)} tasks is too many; the limit is {limits.max_steps}")
    specs = clean_specs(tasks, "task", limits.max_text)
    for number, spec in enumerate(specs, start=1):
        for dep in spec.depends_on:
            if not 1 <= dep < number:
                raise PlanError(
                    f"task {number} depends on {dep!r}: a task may depend only on "
                    f"earlier tasks (1 to {number - 1})"
                )
        if spec.parent is not None and not 1 <= spec.parent < number:
            raise PlanError(
                f"task {number} has parent {spec.parent!r}: a sub-step's parent is an "
                f"earlier task (1 to {number - 1})"
                if number > 1
                else "task 1 cannot have a parent: it is the first task"
            )
    finished = _finished_steps(plan)
    parents = {spec.parent for spec in specs}
    unmatched: dict[str, str] = {}
    for step in reversed(finished):
        if step.parent is None:
            unmatched[step.description.casefold()] = step.id  # the first of equal texts
    ids: list[str] = []
    fresh: list[int] = []
    for number, spec in enumerate(specs, start=1):
        flat = spec.parent is None and number not in parents
        same = unmatched.pop(spec.description.casefold(), None) if flat else None
        if same is None:
            same = f"s{plan.next_id + len(fresh)}"
            fresh.append(number - 1)
        ids.append(same)
    if len(finished) + len(fresh) > limits.max_steps:
        raise PlanError(
            f"{len(finished)} finished steps and {len(fresh)} new tasks is too many; "
            f"the limit is {limits.max_steps} steps"
        )
    steps = finished + tuple(
        Step(
            id=ids[i],
            description=spec.description,
            depends_on=tuple(ids[d - 1] for d in spec.depends_on),
            requires_approval=spec.requires_approval,
            parent=ids[spec.parent - 1] if spec.parent is not None else None,
        )
        for i, spec in ((i, specs[i]) for i in fresh)
    )
    numbers = {s.id: f"finished step {n}" for n, s in enumerate(finished, start=1)}
    numbers.update({ids[i]: f"task {i + 1}" for i in fresh})
    check_tree(steps, limits, numbers.__getitem__)
    return replace(
        plan,
        steps=steps,
        next_id=plan.next_id + len(fresh),
        version=plan.version + 1,
        revision=plan.revision + 1,
    )


def _finished_steps(plan: Plan) -> tuple[Step, ...]:
    """The finished steps a new plan keeps, without links to steps it drops."""
    kept = {s.id for s in plan.steps if s.status.is_finished}
    return tuple(
        replace(
            s,
            depends_on=tuple(d for d in s.depends_on if d in kept),
            parent=s.parent if s.parent in kept else None,
        )
        for s in plan.steps
        if s.id in kept
    )


def edit_steps(
    plan: Plan,
    add: Sequence[NewStep],
    insert_at: int | None,
    remove: Sequence[int],
    reword: tuple[int, str] | None,
    limits: PlanLimits,
    now: datetime | None,
    actor: Actor,
) -> Plan:
    """`plan` with steps added, inserted, removed and reworded, all or nothing."""
    old = plan.steps
    n = len(old)
    removed = _removed_with_substeps(plan, remove)
    if n - len(removed) + len(add) > limits.max_steps:
        raise PlanError(
            f"the plan would have {n - len(removed) + len(add)} steps; "
            f"the limit is {limits.max_steps}"
        )
    for pos in sorted(removed):
        if old[pos].status is StepStatus.DONE:
            raise PlanError(f"step {pos + 1} is DONE: completed steps are kept")
        check_holder(plan, old[pos], actor)
    specs = clean_specs(add, "add_steps item", limits.max_text)
    for number, spec in enumerate(specs, start=1):
        if spec.parent is not None:
            (where,) = positions_of(plan, [spec.parent], f"add_steps item {number} parent")
            if where in removed:
                raise PlanError(f"add_steps item {number}: its parent {spec.parent} is removed")
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
            parent=old[spec.parent - 1].id if spec.parent is not None else None,
        )
        for offset, spec in enumerate(specs)
    ]
    kept = list(old)
    if new_text is not None:
        kept[new_text[0]] = replace(kept[new_text[0]], description=new_text[1])
    order = _placed(kept, removed, fresh, specs, insert_at)
    _check_order(order, {old[p].id for p in removed}, old)
    names = {s.id: f"step {i}" for i, s in enumerate(old, start=1)}
    names.update({s.id: f"added step {i}" for i, s in enumerate(fresh, start=1)})
    check_tree(order, limits, names.__getitem__)
    gone = {old[pos].id for pos in removed}
    bereaved = {old[pos].parent for pos in removed} - gone - {None}  # lost sub-steps
    touched = [s.id for s in fresh] + [s.id for s in order if s.parent in bereaved]
    return replace(
        plan,
        steps=settle(order, touched, now),
        next_id=plan.next_id + len(fresh),
        version=plan.version + 1,
        revision=plan.revision + 1,
    )


def check_tree(steps: Sequence[Step], limits: PlanLimits, name: Callable[[str], str]) -> None:
    """Refuse misplaced sub-steps, a dependency on a parent, or nesting beyond the limit."""
    found = check_parents(((s.id, s.parent, list(s.depends_on)) for s in steps), name)
    if found:
        raise PlanError(f"{found[0].step} {found[0].message}", "bad_parent")
    if any(s.parent is not None for s in steps):
        deep = depths(steps)
        for step in steps:
            if deep[step.id] > limits.max_depth:
                raise PlanError(
                    f"{name(step.id)} is nested {deep[step.id]} levels deep; "
                    f"the limit is {limits.max_depth}"
                )


def _removed_with_substeps(plan: Plan, remove: Sequence[int]) -> set[int]:
    """Positions of the steps to remove, each with its sub-steps."""
    if not remove:
        return set()
    removed: set[int] = set()
    deep = depths(plan.steps)
    for pos in positions_of(plan, remove, "remove_indices"):
        removed.update(range(pos, subtree_end(plan.steps, pos, deep)))
    return removed


def _placed(
    kept: list[Step],
    removed: set[int],
    fresh: list[Step],
    specs: Sequence[StepSpec],
    insert_at: int | None,
) -> list[Step]:
    """The new order with the new steps in.

    They go before `insert_at`, or each after its parent's sub-steps (at the end of the
    plan when it has no parent).
    """
    if insert_at is not None:
        at = insert_at - 1
        order = [s for pos, s in enumerate(kept) if pos < at and pos not in removed]
        return order + fresh + [s for pos, s in enumerate(kept) if pos >= at and pos not in removed]
    order = [s for pos, s in enumerate(kept) if pos not in removed]
    for step, spec in zip(fresh, specs, strict=True):
        if spec.parent is None:
            order.append(step)
            continue
        deep = depths(order)
        where = next(i for i, s in enumerate(order) if s.id == step.parent)
        order.insert(subtree_end(order, where, deep), step)
    return order


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
