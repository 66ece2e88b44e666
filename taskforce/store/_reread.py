"""A session's plan from its step rows, reusing what the last transaction decoded.

The claims path (``_claims``) keeps, in the session's cache entry, a memo (``Memo``
with ``decoded``) of the steps its rows read as, and the plan they make (``Memo.plan``).
Each read gives exactly what a fresh read (:meth:`~taskforce.plan.Plan.from_state` of the
stored state) gives, and fails the same way:

* the stored rows are the cached ones (same version and token): the cached plan;
* a few rows changed (another worker's claim): only those are decoded, provided their
  ids, dependencies and parents are the ones they replace (so the plan-wide rules hold as
  before) and the plan-level JSON changed only in its counters (``version``, ``revision``:
  a replan bumps the revision);
* otherwise every row whose body equals the memo's gives the memo's step; the others are
  decoded; the plan-wide rules are checked on them all (``plan.state.read_state``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from itertools import compress, count
from operator import attrgetter, is_not, ne
from typing import Any

from taskforce.errors import PlanError, StateCorruptError
from taskforce.plan import Plan
from taskforce.plan.state import read_step
from taskforce.plan.step import Step
from taskforce.store._codec import EncodedState, Memo, StepRow, loads, rows_size
from taskforce.store._write import Cached

Rows = tuple[StepRow, ...]
_COUNTERS = ("version", "revision")
_BODY = attrgetter("body")


def read_plan(
    session_id: str, state: dict[str, Any], plan_meta: str | None, rows: Rows, cached: Cached | None
) -> tuple[Plan, Memo, Rows]:
    """The stored plan, a decoded memo of its rows, and the rows (equal to `rows`).

    Raises:
        StateCorruptError: a stored row is not JSON or not an object.
        PlanError: the stored plan breaks a rule (``corrupt``).
    """
    if plan_meta is None:  # no plan, or one kept whole in the state
        return Plan.from_state(state.get("plan")), _memo(()), rows
    old = cached.memo if cached is not None and cached.memo.decoded else Memo()
    if old.plan is not None and old.last is not None:
        if old.plan[0] == plan_meta and old.last[1] is rows:
            plan: Plan = old.plan[1]  # what these very rows read as
            return plan, old, rows
        moved = _few_moved(session_id, plan_meta, rows, old)
        if moved is not None:
            return moved
    tasks: list[Any] = []
    for row in rows:
        seen = old.get(row.step_id)
        if seen is not None and (seen[1] is row or seen[1].body == row.body):
            tasks.append(seen[0])
            continue
        task = loads(row.body, session_id, "plan step")
        if not isinstance(task, dict):
            raise StateCorruptError(f"session {session_id!r}: a stored plan step is not an object")
        tasks.append(task)
    plan = Plan.from_state(_plan_state(session_id, plan_meta, tasks))
    memo = _memo(zip(plan.steps, rows, strict=True))
    same = old.last is not None and old.last[1] is rows  # the rows that memo was made for
    memo.last = (plan.steps, rows, old.last[2] if same and old.last else rows_size(rows))
    memo.plan = (plan_meta, plan)
    return plan, memo, rows


def _few_moved(
    session_id: str, plan_meta: str, rows: Rows, old: Memo
) -> tuple[Plan, Memo, Rows] | None:
    """The memo's plan with only the changed rows decoded; None: read every row."""
    assert old.plan is not None and old.last is not None
    meta_before, base = old.plan
    steps_before, rows_before, size = old.last
    if len(rows) != len(rows_before) or steps_before is not base.steps or meta_before is None:
        return None
    meta, before = loads(plan_meta, session_id, "plan"), loads(meta_before, session_id, "plan")
    if not isinstance(meta, dict) or not isinstance(before, dict):
        return None
    counters = {key: meta.pop(key) for key in _COUNTERS if key in meta}
    for key in _COUNTERS:
        before.pop(key, None)
    changed = list(compress(count(), map(ne, map(_BODY, rows_before), map(_BODY, rows))))
    if meta != before or len(changed) * 4 > len(rows):
        return None
    steps, kept, memo = list(base.steps), list(rows_before), Memo(old)
    for position in changed:
        row = rows[position]
        try:
            step = read_step(row.values(), position + 1)
        except (PlanError, ValueError, AttributeError):  # read every row: it fails there
            return None
        if _shape(step) != _shape(steps[position]) or step.id != row.step_id:
            return None
        size += rows_size((row,)) - rows_size((kept[position],))
        steps[position], kept[position], memo[row.step_id] = step, row, (step, row)
    read = Plan.from_state(counters)  # the counters checked as a read checks them
    plan = dataclasses.replace(
        base, steps=tuple(steps), version=read.version, revision=read.revision
    )
    memo.decoded, memo.last, memo.plan = True, (plan.steps, tuple(kept), size), (plan_meta, plan)
    return plan, memo, memo.last[1]


def written(encoded: EncodedState, read: Memo, base: Plan, new: Plan) -> Memo:
    """The decoded memo of the rows just written (`base` read, `new` written).

    New and changed rows are decoded here, so the memo holds exactly what a fresh read
    gives; only the rows that changed are looked at when the plan kept its length (a
    claim, a finish). When each changed row reads back as the step written, with the same
    id, dependencies and parent, and the plan-level fields are the read ones, `new` is
    what a fresh read gives (same values, same structure, so the same checks pass): it
    is kept as the memo's plan.
    """
    rows = encoded.steps
    before = read.last[1] if read.last is not None else ()
    exact = len(before) == len(rows) == len(base.steps)
    exact = exact and new.next_id == base.next_id and new.extra is base.extra
    if len(before) == len(rows):
        memo = Memo(read)
        changed: Iterable[int] = compress(count(), map(is_not, before, rows))
    else:
        memo, changed = Memo(), range(len(rows))
    for position in changed:
        row = rows[position]
        memo.pop(row.step_id, None)
        try:
            step = read_step(row.values(), position + 1)
        except (
            PlanError,
            ValueError,
            AttributeError,
        ):  # unreadable: decoded (and refused) next time
            exact = False
            continue
        if exact and step == new.steps[position] and _shape(step) == _shape(base.steps[position]):
            step = new.steps[position]
        else:
            exact = False
        memo[row.step_id] = (step, row)
    memo.decoded = True
    memo.last = encoded.memo.last  # the steps the rows were made from (for the next encode)
    memo.plan = (encoded.plan_meta, new) if exact else None
    return memo


def after_save(cached: Cached | None, encoded: EncodedState, plan: object) -> Memo:
    """The memo to keep after a save of `plan` encoded over `cached`'s memo.

    Decoded (:func:`written`: only the changed rows are decoded) when `cached`'s was and
    `plan` is a :class:`Plan`, so a session that a claim or a re-applied change has read
    stays cheap to read after this manager's own saves; otherwise the encode's memo.
    """
    memo = cached.memo if cached is not None else None
    if memo is None or not memo.decoded or memo.plan is None or not isinstance(plan, Plan):
        return encoded.memo
    return written(encoded, memo, memo.plan[1], plan)


def _plan_state(session_id: str, plan_meta: str, tasks: list[Any]) -> dict[str, Any]:
    plan = loads(plan_meta, session_id, "plan")
    if not isinstance(plan, dict):
        raise StateCorruptError(f"session {session_id!r}: stored plan is not a JSON object")
    plan["tasks"] = tasks
    return plan


def _memo(pairs: Iterable[tuple[object, StepRow]]) -> Memo:
    memo = Memo((row.step_id, (step, row)) for step, row in pairs)
    memo.decoded = True
    return memo


def _shape(step: Step) -> tuple[str, tuple[str, ...], str | None]:
    return step.id, step.depends_on, step.parent
