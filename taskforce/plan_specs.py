"""New steps as callers describe them: a text, or a text with dependencies and an approval flag.

Pure validation and cleaning, shared by `create_plan` and `update_plan`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from taskforce.checklist import clean_text
from taskforce.errors import PlanError

_SPEC_KEYS = frozenset({"description", "depends_on", "requires_approval"})
_STEP_REF = re.compile(r"^\s*(?:step[_ ]?)?(\d{1,7})\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class StepSpec:
    """A step to create: `depends_on` holds 1-based numbers of the steps it waits for."""

    description: str
    depends_on: list[int] = field(default_factory=list)
    requires_approval: bool = False


def clean_specs(
    items: Sequence[str | StepSpec | dict[str, Any]], what: str, max_text: int
) -> list[StepSpec]:
    """Validate and clean new steps; raise :class:`PlanError` naming the first bad one."""
    specs: list[StepSpec] = []
    for number, item in enumerate(items, start=1):
        spec = _to_spec(item, f"{what} {number}")
        text = clean_text(spec.description)
        if not text:
            raise PlanError(f"{what} {number} is empty")
        if len(text) > max_text:
            raise PlanError(f"{what} {number} is {len(text)} characters; the limit is {max_text}")
        specs.append(StepSpec(text, list(dict.fromkeys(spec.depends_on)), spec.requires_approval))
    return specs


def clean_note(note: str | None, max_note: int) -> str | None:
    """A cleaned one-line note, None for no note; raise when it is too long."""
    if note is None:
        return None
    text = clean_text(note)
    if len(text) > max_note:
        raise PlanError(f"note is {len(text)} characters; the limit is {max_note}")
    return text or None


def _to_spec(item: object, name: str) -> StepSpec:
    if isinstance(item, StepSpec):
        return item
    if isinstance(item, str):
        return StepSpec(item)
    if not isinstance(item, dict):
        raise PlanError(f"{name} must be a text or an object with a description")
    unknown = sorted(str(k) for k in item if k not in _SPEC_KEYS)
    if unknown:
        raise PlanError(f"{name} has an unknown field {unknown[0]!r}")
    description = item.get("description")
    if not isinstance(description, str):
        raise PlanError(f"{name} needs a text description")
    approval = item.get("requires_approval", False)
    if not isinstance(approval, bool):
        raise PlanError(f"{name}: requires_approval must be true or false")
    return StepSpec(description, _step_numbers(item.get("depends_on"), name), approval)


def _step_numbers(value: object, name: str) -> list[int]:
    if value is None:
        return []
    raw = value if isinstance(value, list) else [value]
    numbers: list[int] = []
    for ref in raw:
        if isinstance(ref, int) and not isinstance(ref, bool):
            numbers.append(ref)
            continue
        match = _STEP_REF.match(ref) if isinstance(ref, str) else None
        if match is None:
            raise PlanError(f"{name}: depends_on must list step numbers, got {ref!r:.40}")
        numbers.append(int(match.group(1)))
    return numbers
