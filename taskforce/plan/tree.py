"""Sub-steps: a step's `parent`, and the rule that a parent is done when its sub-steps are.

A plan lists its tree in order: every step's sub-steps follow it as one block (checked by
:func:`~taskforce.plan.checks.check_parents`), so step numbers stay flat (1..n) and the
checklist only indents. The rules, kept by every transition:

* a parent whose sub-steps are all finished is finished too: :func:`settle` marks it
  DONE when the last one finishes (SKIPPED when every one was skipped);
* a finished (or started) parent that gets an open sub-step (added, or reopened) is
  PENDING again: its work is now in its sub-steps;
* work happens in the leaves: a parent with open sub-steps is never runnable, cannot be
  started, and cannot be marked DONE unless those sub-steps finish in the same call.

Pure functions over a tuple of steps; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from taskforce.plan.step import Step, StepStatus

Children = Mapping[str, tuple[int, ...]]
"""Step id -> positions (0-based) of its direct sub-steps, in order."""


def children_map(steps: Sequence[Step]) -> dict[str, tuple[int, ...]]:
    """For each parent's id, the positions of its direct sub-steps."""
    found: dict[str, list[int]] = {}
    for position, step in enumerate(steps):
        if step.parent is not None:
            found.setdefault(step.parent, []).append(position)
    return {parent: tuple(kids) for parent, kids in found.items()}


def depths(steps: Sequence[Step]) -> dict[str, int]:
    """Each step's nesting depth (0 for a top-level step)."""
    depth: dict[str, int] = {}
    for step in steps:
        depth[step.id] = depth.get(step.parent, -1) + 1 if step.parent is not None else 0
    return depth


def subtree_end(steps: Sequence[Step], position: int, depth: Mapping[str, int]) -> int:
    """The position after the last sub-step (at any depth) of the step at `position`."""
    level = depth[steps[position].id]
    end = position + 1
    while end < len(steps) and depth[steps[end].id] > level:
        end += 1
    return end


def ancestors(step: Step, by_id: Mapping[str, Step]) -> list[Step]:
    """The step's parent, its parent's parent, and so on (nearest first)."""
    found: list[Step] = []
    parent = step.parent
    while parent is not None and parent in by_id:
        found.append(by_id[parent])
        parent = by_id[parent].parent
    return found


def open_children(step: Step, steps: Sequence[Step], children: Children) -> list[int]:
    """Positions of the step's direct sub-steps that are not finished."""
    return [p for p in children.get(step.id, ()) if not steps[p].status.is_finished]


def rollup(step: Step, steps: Sequence[Step], children: Children) -> tuple[int, int] | None:
    """(finished, all) direct sub-steps of a parent; None for a step without any."""
    kids = children.get(step.id)
    if not kids:
        return None
    return sum(steps[p].status.is_finished for p in kids), len(kids)


def settle(
    steps: Sequence[Step],
    touched: Iterable[str],
    now: datetime | None,
    children: Children | None = None,
    positions: Mapping[str, int] | None = None,
) -> tuple[Step, ...]:
    """`steps` with the parents of the `touched` step ids brought in line with their sub-steps.

    Walks up from each touched step: a parent whose sub-steps are all finished becomes
    DONE (SKIPPED if all were skipped) unless it already is finished; a finished or
    started parent with an open sub-step becomes PENDING. Steps not changed are returned
    as they were. `children` (the :func:`children_map` of `steps`) and `positions` (each
    step id's position), when already known.
    """
    children = children_map(steps) if children is None else children
    if not children:
        return tuple(steps)
    out = list(steps)
    if positions is None:
        positions = {s.id: i for i, s in enumerate(out)}
    todo = [positions[t] for t in touched if t in positions]
    seen: set[int] = set()
    while todo:
        step = out[todo.pop()]
        if step.parent is None or step.parent not in positions:
            continue
        position = positions[step.parent]
        parent = out[position]
        kids = [out[p] for p in children[parent.id]]
        moved = _settled(parent, kids, now)
        if moved is not parent:
            out[position] = moved
        if position not in seen:  # its own parent may change in turn
            seen.add(position)
            todo.append(position)
    return tuple(out)


def _settled(parent: Step, kids: Sequence[Step], now: datetime | None) -> Step:
    if all(k.status.is_finished for k in kids):
        if parent.status.is_finished:
            return parent
        skipped = all(k.status is StepStatus.SKIPPED for k in kids)
        return parent.moved(StepStatus.SKIPPED if skipped else StepStatus.DONE, now)
    if parent.status.is_finished or parent.status is StepStatus.IN_PROGRESS:
        return parent.moved(StepStatus.PENDING, now)
    return parent
