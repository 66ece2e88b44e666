"""New steps as callers describe them: a text, or a text with dependencies, a parent and a flag.

Pure validation and cleaning, shared by every way a plan gets new steps (``create_plan``,
``update_plan``, the converters, a Plan.md import). Raw lengths are checked before any
cleaning (:func:`~taskforce.plan.text.check_length`), and cleaning is linear.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from taskforce.errors import PlanError
from taskforce.plan.text import check_length, clean_text

SPEC_KEYS = ("description", "depends_on", "requires_approval", "parent")
_STEP_REF = re.compile(r"^\s*(?:step[_ ]?)?(\d{1,7})\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class StepSpec:
    """A step to create.

    `depends_on` holds 1-based numbers of the steps it waits for, `parent` the number of
    the step it is a sub-step of.
    """

    description: str
    depends_on: tuple[int, ...] = ()
    requires_approval: bool = False
    parent: int | None = None


NewStep = str | StepSpec | Mapping[str, Any]
"""What a caller may give for a new step: its text, a :class:`StepSpec`, or an object
``{"description", "depends_on", "requires_approval", "parent"}``."""


def clean_specs(items: Sequence[NewStep], what: str, max_text: int) -> list[StepSpec]:
    """Validate and clean new steps; raise :class:`PlanError` naming the first bad one."""
    specs: list[StepSpec] = []
    for number, item in enumerate(items, start=1):
        name = f"{what} {number}"
        spec = to_spec(item, name)
        check_length(spec.description, max_text, name)
        text = clean_text(spec.description)
        if not text:
            raise PlanError(f"{name} is empty")
        if len(text) > max_text:
            raise PlanError(f"{name} is {len(text)} characters; the limit is {max_text}")
        deps = tuple(dict.fromkeys(spec.depends_on))
        specs.append(StepSpec(text, deps, spec.requires_approval, spec.parent))
    return specs


def repeats(specs: Sequence[StepSpec]) -> dict[int, int]:
    """The tasks of one new plan that only repeat the task before them: position -> the first.

    Positions are 0-based; a run of equal tasks maps to its first. A task repeats the one
    before it when both are top-level steps with no sub-steps, their texts are equal
    (ignoring case), their approval flags too, and it waits for nothing that one does not
    (or for that one itself). A small model sometimes gives its whole mission as every
    step; such a plan is one step. Equal tasks with others between them stay apart ("run
    the tests", "fix", "run the tests").
    """
    backward = all(  # every number names an earlier task (1-based: 1 to `position`)
        all(0 < n <= position for n in spec.depends_on)
        and (spec.parent is None or 0 < spec.parent <= position)
        for position, spec in enumerate(specs)
    )
    if not backward:
        return {}  # a step waits for a later one: the plan refuses it, numbered as given
    parents = {spec.parent for spec in specs}
    found: dict[int, int] = {}
    for position in range(1, len(specs)):
        spec, before = specs[position], specs[position - 1]
        first = found.get(position - 1, position - 1)
        if (
            spec.parent is None
            and before.parent is None
            and not {position, position + 1} & parents
            and spec.description.casefold() == before.description.casefold()
            and spec.requires_approval == before.requires_approval
            and set(spec.depends_on) <= {*specs[first].depends_on, first + 1}
        ):
            found[position] = first
    return found


def once(specs: Sequence[StepSpec]) -> tuple[StepSpec, ...]:
    """`specs` without the tasks that only repeat the one before them (:func:`repeats`).

    The numbers in ``depends_on`` and ``parent`` are renumbered to the tasks kept; a
    step that waited for a repeat waits for the task it repeated.
    """
    again = repeats(specs)
    if not again:
        return tuple(specs)
    number: dict[int, int] = {}  # a task's number in `specs` -> its number in the result
    kept = 0
    for position in range(len(specs)):
        if position in again:
            number[position + 1] = number[again[position] + 1]
        else:
            kept += 1
            number[position + 1] = kept
    return tuple(
        StepSpec(
            spec.description,
            tuple(dict.fromkeys(number[d] for d in spec.depends_on)),
            spec.requires_approval,
            None if spec.parent is None else number[spec.parent],
        )
        for position, spec in enumerate(specs)
        if position not in again
    )


def clean_note(note: str | None, max_note: int, what: str = "note") -> str | None:
    """A cleaned one-line note, None for no note; raise when it is too long."""
    if note is None:
        return None
    check_length(note, max_note, what)
    text = clean_text(note)
    if len(text) > max_note:
        raise PlanError(f"{what} is {len(text)} characters; the limit is {max_note}")
    return text or None


def to_spec(item: object, name: str) -> StepSpec:
    """`item` as a :class:`StepSpec` (not yet cleaned); the message names what is wrong."""
    if isinstance(item, StepSpec):
        return item
    if isinstance(item, str):
        return StepSpec(item)
    if not isinstance(item, Mapping):
        raise PlanError(
            f"{name} must be a text or an object with a description, not {type(item).__name__}"
        )
    unknown = sorted(str(k) for k in item if k not in SPEC_KEYS)
    if unknown:
        raise PlanError(
            f"{name} has an unknown field {unknown[0]!r} (a step object has {', '.join(SPEC_KEYS)})"
        )
    description = item.get("description")
    if not isinstance(description, str):
        got = "none" if description is None else type(description).__name__
        raise PlanError(f"{name} needs a text description (got {got})")
    approval = item.get("requires_approval")
    if approval is None:  # absent, or null from a strict model
        approval = False
    if not isinstance(approval, bool):
        raise PlanError(f"{name}: requires_approval must be true or false")
    parent = step_numbers(item.get("parent"), name, "parent")
    if len(parent) > 1:
        raise PlanError(f"{name}: parent is one step number")
    if parent == (0,):  # steps count from 1: a model filling every field sends 0 for "none"
        parent = ()
    deps = step_numbers(item.get("depends_on"), name)
    return StepSpec(description, deps, approval, parent[0] if parent else None)


def step_numbers(value: object, name: str, key: str = "depends_on") -> tuple[int, ...]:
    """1-based step numbers from ``2``, ``"2"``, ``"step 2"``, ``"step_2"`` or a list of them."""
    if value is None:
        return ()
    raw = value if isinstance(value, list | tuple) else [value]
    numbers: list[int] = []
    for ref in raw:
        if isinstance(ref, int) and not isinstance(ref, bool):
            numbers.append(ref)
            continue
        match = _STEP_REF.match(ref) if isinstance(ref, str) else None
        if match is None:
            raise PlanError(
                f'{name}: {key} must list step numbers (like 1 or "step 1"), got {ref!r:.40}'
            )
        numbers.append(int(match.group(1)))
    return tuple(numbers)
