"""A plan's JSON state, both ways: the one place plans are built from stored data.

The state is the contract of ``docs/architecture.md``::

    {"tasks": [{"id": "s1", "description": "Research", "status": "DONE", "note": null,
                "depends_on": [], "requires_approval": false, "retries": 0,
                "started_at": "...", "completed_at": "..."}],
     "version": 4, "revision": 1, "next_id": 2}

Optional step keys are written only when set; unknown keys (of a step or of the plan) are
kept. Reading checks the structure (:func:`~taskforce.plan.checks.check_plan_state`),
turns lone surrogates into U+FFFD (:func:`~taskforce.plan.text.scrub`) and gives id-less
steps of the original taskforce format ids. Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Any

from taskforce.errors import PlanError
from taskforce.plan.checks import PlanContractError, check_plan_state
from taskforce.plan.step import NO_EXTRA, Step, StepStatus
from taskforce.plan.text import scrub, scrub_data

STEP_KEYS = (
    "id",
    "description",
    "status",
    "note",
    "depends_on",
    "requires_approval",
    "retries",
    "started_at",
    "completed_at",
    "parent",
    "owner",
    "lease_until",
)
PLAN_KEYS = ("tasks", "version", "revision", "next_id")
_DEFAULTS = (("version", 0), ("revision", 0), ("next_id", 1))


@dataclass(frozen=True, slots=True)
class StateParts:
    """What a plan state holds, validated."""

    steps: tuple[Step, ...]
    version: int
    revision: int
    next_id: int
    extra: Mapping[str, Any]


def read_state(state: Mapping[str, Any] | None) -> StateParts:
    """Validate a plan state; raise :class:`PlanError` (``corrupt``) naming the problem.

    A task may also be given as the :class:`Step` that :func:`read_step` made of that very
    task before (a store keeps the steps it decoded, so an unchanged row is not parsed
    again); the plan-wide rules (ids, dependencies, sub-steps) are checked all the same.
    """
    if not state:
        return StateParts((), 0, 0, 1, MappingProxyType({}))
    if not isinstance(state, Mapping):
        raise _corrupt(f"a plan state is an object, not {type(state).__name__}")
    tasks = state.get("tasks", [])
    if not isinstance(tasks, list | tuple):
        raise _corrupt("tasks must be a list")
    version, revision, next_id = (_counter(state, key, default) for key, default in _DEFAULTS)
    tasks, next_id = _with_ids(tasks, next_id)
    try:
        check_plan_state({"tasks": [_shape(t) if type(t) is Step else t for t in tasks]})
    except PlanContractError as exc:
        raise _corrupt(str(exc)) from exc
    steps = tuple(
        task if type(task) is Step else read_step(task, number)
        for number, task in enumerate(tasks, start=1)
    )
    numbers = [int(s.id[1:]) for s in steps if s.id[:1] == "s" and s.id[1:].isdigit()]
    next_id = max([next_id, *(n + 1 for n in numbers)])
    extra = {scrub(str(k)): scrub_data(v) for k, v in state.items() if k not in PLAN_KEYS}
    return StateParts(steps, version, revision, next_id, MappingProxyType(extra))


def write_state(
    steps: Sequence[Step], version: int, revision: int, next_id: int, extra: Mapping[str, Any]
) -> dict[str, Any]:
    """The plan as plain JSON data (a fresh copy); optional step keys only when set."""
    state: dict[str, Any] = {"tasks": [step_state(s) for s in steps], "version": version}
    if revision:
        state["revision"] = revision
    state["next_id"] = next_id
    state.update(_copy(dict(extra)))
    return state


def step_state(step: Step) -> dict[str, Any]:
    """One step as plain JSON data (a fresh copy)."""
    data: dict[str, Any] = {
        "id": step.id,
        "description": step.description,
        "status": step.status.value,
        "note": step.note,
    }
    if step.depends_on:
        data["depends_on"] = list(step.depends_on)
    if step.requires_approval:
        data["requires_approval"] = True
    if step.retries:
        data["retries"] = step.retries
    if step.started_at is not None:
        data["started_at"] = iso_time(step.started_at)
    if step.completed_at is not None:
        data["completed_at"] = iso_time(step.completed_at)
    if step.parent is not None:
        data["parent"] = step.parent
    if step.owner is not None:
        data["owner"] = step.owner
    if step.lease_until is not None:
        data["lease_until"] = iso_time(step.lease_until)
    if step.extra:
        data.update(_copy(dict(step.extra)))
    return data


def iso_time(value: datetime) -> str:
    """ISO 8601, with ``Z`` for UTC (as pydantic and JavaScript write it)."""
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def read_step(task: Mapping[str, Any], number: int) -> Step:
    """Step `number` (1-based, for messages) of a plan state.

    The plan-wide rules are not checked here (:func:`read_state` does).
    """
    where = f"step {number}"
    description = task.get("description")
    if not isinstance(description, str):
        raise _corrupt(f"{where} needs a text description")
    note = task.get("note")
    if note is not None and not isinstance(note, str):
        raise _corrupt(f"{where}: note must be text or null")
    try:
        status = StepStatus.parse(task.get("status", StepStatus.PENDING.value))
    except ValueError as exc:
        raise _corrupt(f"{where}: {exc}") from None
    retries = task.get("retries", 0)
    if type(retries) is not int or retries < 0:
        raise _corrupt(f"{where}: retries must be a whole number >= 0")
    extra = {scrub(str(k)): scrub_data(v) for k, v in task.items() if k not in STEP_KEYS}
    parent, owner = (_text_or_none(task.get(key), where, key) for key in ("parent", "owner"))
    return Step(
        id=scrub(task["id"]),
        description=scrub(description),
        status=status,
        note=scrub(note) if note is not None else None,
        depends_on=tuple(scrub(d) for d in task.get("depends_on") or ()),
        requires_approval=task.get("requires_approval") is True,
        retries=retries,
        started_at=_time(task.get("started_at"), where, "started_at"),
        completed_at=_time(task.get("completed_at"), where, "completed_at"),
        parent=parent,
        owner=owner,
        lease_until=_time(task.get("lease_until"), where, "lease_until"),
        extra=MappingProxyType(extra) if extra else NO_EXTRA,
    )


def _shape(step: Step) -> dict[str, Any]:
    """What :func:`check_plan_state` looks at, of a step already read."""
    deps = list(step.depends_on) if step.depends_on else None
    return {"id": step.id, "depends_on": deps, "parent": step.parent}


def _text_or_none(value: Any, where: str, key: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise _corrupt(f"{where}: {key} must be a non-empty text or null")
    return scrub(value)


def _time(value: Any, where: str, key: str) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            pass
    raise _corrupt(f"{where}: {key} must be an ISO 8601 time")


def _counter(state: Mapping[str, Any], key: str, default: int) -> int:
    value = state.get(key, default)
    if value is None:
        return default
    if type(value) is not int or value < 0:
        raise _corrupt(f"{key} must be a whole number >= 0")
    return value


def _with_ids(tasks: Sequence[Any], next_id: int) -> tuple[list[Any], int]:
    """Give id-less steps (the original taskforce format) ids, without touching the input."""
    filled: list[Any] = []
    for task in tasks:
        if type(task) is Step:
            filled.append(task)
            continue
        if not isinstance(task, Mapping):
            raise _corrupt(f"step {len(filled) + 1} is not an object")
        if "id" not in task:
            task = {**task, "id": f"s{next_id}"}
            next_id += 1
        filled.append(task)
    return filled, next_id


def _copy(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts and lists rebuilt, scalars shared)."""
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_copy(v) for v in value]
    return value


def _corrupt(message: str) -> PlanError:
    return PlanError(f"invalid plan state: {message}", "corrupt")
