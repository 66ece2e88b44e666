"""What a changed plan takes over from the plan it was made from: lines, counts, blockers.

A change makes a new plan (plans are immutable), yet most of what the old plan computed
still holds. :func:`hand_down` gives the new plan a :class:`Hint`: the old plan's steps
and what it had computed, never the old plan itself, so no chain of old plans stays
alive. A change of statuses in place (same ids, parents and dependencies) also passes
the maps that depend only on those, and the positions whose step changed. The new plan
then redoes only what its changed steps touch: :func:`counts`, :func:`blocking` and
:func:`lines` give exactly what a plan built from scratch computes (tested against one).
Pure; the plan keeps what these return in its ``__dict__`` (see :mod:`.once`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import compress, count
from operator import is_not
from typing import TYPE_CHECKING, NamedTuple

from taskforce.plan.checklist import line_text, markdown_line
from taskforce.plan.step import Step, StepStatus
from taskforce.plan.tree import rollup

if TYPE_CHECKING:
    from taskforce.plan.plan import Plan

Counts = tuple[int, int, int]
"""(finished, failed, started) steps."""
Blocking = dict[str, tuple[int, ...]]
"""A blocked step's id -> the numbers of the unfinished steps it waits for."""
LineKeys = dict[str, tuple[tuple[int, ...], tuple[int, int] | None, int]]
"""A step's id -> what its line shows besides the step: blockers, sub-step count, depth."""

_TALLY: dict[StepStatus, Counts] = {
    status: (
        int(status.is_finished),
        int(status is StepStatus.FAILED),
        int(status is not StepStatus.PENDING),
    )
    for status in StepStatus
}
_SHAPE = ("_positions", "_children", "_depths", "_dependents")
"""The maps a status change in place leaves as they were (ids, parents, dependencies)."""


class Hint(NamedTuple):
    """What a new plan may reuse of the plan it was made from."""

    steps: tuple[Step, ...]
    line_keys: LineKeys
    lines: tuple[str, ...] | None
    counts: Counts | None
    blocking: Blocking | None


NO_HINT = Hint((), {}, None, None, None)


def hand_down(
    old: Plan, new: Plan, *, in_place: bool = False, changed: tuple[int, ...] | None = None
) -> Plan:
    """`new` (made from `old`), told what of `old` it may reuse.

    `in_place`: `new` only changed steps where they are (a status change); `changed`,
    when the caller knows them, the positions (ascending) whose step object differs.
    """
    if new is old:
        return new
    cache = old.__dict__
    new.__dict__["_hint"] = Hint(
        old.steps, old._line_keys, cache.get("_lines"), cache.get("_counts"), cache.get("_blocking")
    )
    if in_place:
        for name in _SHAPE:
            if name in cache:
                new.__dict__[name] = cache[name]
        if changed is None:
            changed = tuple(compress(count(), map(is_not, old.steps, new.steps)))
        new.__dict__["_changed"] = changed
    return new


def changed_from(plan: Plan, steps: tuple[Step, ...]) -> tuple[int, ...] | None:
    """Positions of `plan`'s steps that differ from `steps`, if changed in place from them."""
    hint = plan.__dict__.get("_hint")
    return plan.__dict__.get("_changed") if hint is not None and hint.steps is steps else None


def _hint(plan: Plan) -> Hint:
    hint: Hint = plan.__dict__.get("_hint", NO_HINT)
    return hint


def counts(plan: Plan) -> Counts:
    """(finished, failed, started) steps; from a derived plan's changed steps only."""
    hint, steps = _hint(plan), plan.steps
    old = hint.steps
    if hint.counts is None or len(old) != len(steps):
        return _tally(Counter(s.status for s in steps).items())
    moved = changed_from(plan, old)
    pairs: Iterable[tuple[Step, Step]]
    if moved is not None:
        pairs = ((old[p], steps[p]) for p in moved)
    else:
        pairs = ((a, b) for a, b in zip(old, steps, strict=True) if a is not b)
    finished, failed, started = hint.counts
    for before, after in pairs:
        if before.status is not after.status:
            (f0, x0, s0), (f1, x1, s1) = _TALLY[before.status], _TALLY[after.status]
            finished, failed, started = finished + f1 - f0, failed + x1 - x0, started + s1 - s0
    return finished, failed, started


def _tally(statuses: Iterable[tuple[StepStatus, int]]) -> Counts:
    finished = failed = started = 0
    for status, n in statuses:
        f, x, s = _TALLY[status]
        finished, failed, started = finished + f * n, failed + x * n, started + s * n
    return finished, failed, started


def dependents(steps: Iterable[Step]) -> dict[str, tuple[int, ...]]:
    """A step's id -> the positions of the steps that depend on it."""
    found: dict[str, list[int]] = {}
    for position, step in enumerate(steps):
        for dep in step.depends_on:
            found.setdefault(dep, []).append(position)
    return {dep: tuple(positions) for dep, positions in found.items()}


def blocking(plan: Plan) -> Blocking:
    """For each blocked step's id, the numbers of the unfinished steps it waits for.

    A plan changed in place redoes only the steps that depend on a changed step.
    """
    hint = _hint(plan)
    moved = changed_from(plan, hint.steps)
    if hint.blocking is None or moved is None:
        return {s.id: w for s in plan.steps if s.depends_on and (w := _waits(plan, s))}
    found, steps, dependent = hint.blocking, plan.steps, plan._dependents
    redone: list[str] = []  # ids whose blockers changed
    for position in moved:
        for other in dependent.get(steps[position].id, ()):
            step = steps[other]
            waits = _waits(plan, step)
            if found.get(step.id) != (waits or None):
                if not redone:  # the old plan's map stays as it was
                    found = dict(found)
                redone.append(step.id)
                if waits:
                    found[step.id] = waits
                else:
                    del found[step.id]
    plan.__dict__["_reblocked"] = tuple(redone)
    return found


def line_keys(plan: Plan) -> LineKeys:
    """What each step's line shows besides the step: blockers, sub-step count, depth.

    Without sub-steps only blocked steps have keys. When the blockers were redone from
    the parent's (a change in place: the same tree, so the parent's keys have the same
    form), only the keys that can have changed are redone: those of the steps whose
    blockers changed and of the parents of changed steps (their sub-step counts);
    ``_rekeyed`` then names them, for :func:`lines`.
    """
    blocking = plan._blocking  # first: it says whether it was redone from the parent's
    redone: tuple[str, ...] | None = plan.__dict__.get("_reblocked")
    if redone is None:
        return _all_keys(plan)
    hint, steps, children = _hint(plan), plan.steps, plan._children
    ids = set(redone)
    if children:
        parents = (steps[position].parent for position in plan.__dict__["_changed"])
        ids.update(parent for parent in parents if parent is not None)
    if not ids:
        return hint.line_keys  # nothing a line shows besides its step changed
    keys = dict(hint.line_keys)
    for sid in ids:
        if children:
            step = steps[plan._positions[sid]]
            keys[sid] = (blocking.get(sid, ()), rollup(step, steps, children), plan._depths[sid])
        elif sid in blocking:
            keys[sid] = (blocking[sid], None, 0)
        else:
            del keys[sid]
    plan.__dict__["_rekeyed"] = tuple(ids)
    return keys


def _all_keys(plan: Plan) -> LineKeys:
    blocking, children, steps = plan._blocking, plan._children, plan.steps
    if not children:
        return {sid: (waits, None, 0) for sid, waits in blocking.items()}
    deep = plan._depths
    return {s.id: (blocking.get(s.id, ()), rollup(s, steps, children), deep[s.id]) for s in steps}


def _waits(plan: Plan, step: Step) -> tuple[int, ...]:
    positions, steps = plan._positions, plan.steps
    return tuple(
        positions[d] + 1
        for d in step.depends_on
        if d in positions and not steps[positions[d]].status.is_finished
    )


def lines(plan: Plan) -> tuple[str, ...]:
    """The checklist's Markdown lines, reusing those that cannot have changed.

    A step that is the same object at the same number, waiting for the same steps,
    keeps its line from the plan this one was derived from: marking one step done
    re-renders one line (and those of the steps that waited for it).
    """
    hint = _hint(plan)
    old_steps, old_keys, old_lines = hint.steps, hint.line_keys, hint.lines
    keys, moved = plan._line_keys, changed_from(plan, old_steps)
    if old_lines is not None and moved is not None:  # only the changed lines
        positions, redone = plan._positions, list(old_lines)
        shifted: Iterable[str] = plan.__dict__.get("_rekeyed", ())
        if keys is not old_keys and not shifted:
            shifted = keys.keys() | old_keys.keys()
        changed = {*moved, *(positions[s] for s in shifted if keys.get(s) != old_keys.get(s))}
        for index in changed:
            redone[index] = line(plan, index, keys)
        return tuple(redone)
    kept = old_lines if old_lines is not None else ()
    reuse = len(old_steps) if old_lines is not None else 0
    return tuple(
        kept[index]
        if index < reuse and old_steps[index] is step and old_keys.get(step.id) == keys.get(step.id)
        else line(plan, index, keys)
        for index, step in enumerate(plan.steps)
    )


def line(plan: Plan, index: int, keys: LineKeys) -> str:
    """The Markdown line of the step at `index`."""
    step = plan.steps[index]
    waits, done, depth = keys.get(step.id) or ((), None, 0)
    return markdown_line(index + 1, step.status, line_text(step, waits, rollup=done), depth)
