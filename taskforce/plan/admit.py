"""A plan from outside (an imported document), held to the planner's own rules.

Loading a stored state is lenient (it was the planner's); a plan that arrives from a file
is not trusted: :func:`admit` builds it with the state reader (structure, dependencies,
unencodable text replaced) and then applies what the planner applies to every change:
the step count, each text and note cleaned to one safe line within its length limit
(measured before cleaning too), at most one step in progress, retries within the limit,
and ids that are short, printable words. Each refusal names the step. Pure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from taskforce.errors import PlanError
from taskforce.plan.limits import DEFAULT_LIMITS, PlanLimits
from taskforce.plan.plan import Plan
from taskforce.plan.specs import clean_note
from taskforce.plan.step import Step, StepStatus
from taskforce.plan.text import check_length, clean_text

MAX_ID = 64


def admit(state: Mapping[str, Any] | None, limits: PlanLimits = DEFAULT_LIMITS) -> Plan:
    """The plan of `state`, cleaned and checked as the planner checks a change.

    Raises:
        PlanError: the plan breaks a rule; the message names the step.
    """
    tasks = (state or {}).get("tasks")
    if isinstance(tasks, list) and len(tasks) > limits.max_steps:
        raise PlanError(f"the plan has {len(tasks)} steps; the limit is {limits.max_steps}")
    plan = Plan.from_state(state)
    steps = tuple(_step(number, step, limits) for number, step in enumerate(plan.steps, 1))
    working = [n for n, s in enumerate(steps, 1) if s.status is StepStatus.IN_PROGRESS]
    if len(working) > 1:
        raise PlanError(
            f"steps {working[0]} and {working[1]} are both IN_PROGRESS; a plan has at most "
            "one step in progress"
        )
    return dataclasses.replace(plan, steps=steps)


def _step(number: int, step: Step, limits: PlanLimits) -> Step:
    where = f"step {number} ({step.id})"
    if not step.id or len(step.id) > MAX_ID or not step.id.isprintable() or " " in step.id:
        raise PlanError(
            f"step {number}: the id {step.id[:40]!r} is not a printable word of at most "
            f"{MAX_ID} characters"
        )
    check_length(step.description, limits.max_text, f"{where}: the text")
    text = clean_text(step.description)
    if not text:
        raise PlanError(f"{where}: the text is empty")
    if len(text) > limits.max_text:
        raise PlanError(f"{where}: the text is {len(text)} characters; the limit is "
                        f"{limits.max_text}")  # fmt: skip
    note = clean_note(step.note, limits.max_note, f"{where}: the note")
    if step.retries > limits.max_retries:
        raise PlanError(f"{where}: {step.retries} retries; the limit is {limits.max_retries}")
    if text == step.description and note == step.note:
        return step
    return dataclasses.replace(step, description=text, note=note)
