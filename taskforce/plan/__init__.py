"""The plan domain: steps, the plan, new-step specs, checks, lifecycle events and formats.

One home for everything a plan is, pure (no I/O, no clock, no pydantic; it imports
nothing of taskforce but :mod:`taskforce.errors`):

* :mod:`~taskforce.plan.step` — :class:`StepStatus` (the only status vocabulary), :class:`Step`.
* :mod:`~taskforce.plan.plan` — :class:`Plan`, an immutable value: queries, transitions.
* :mod:`~taskforce.plan.changes` — the transitions (copy-on-write).
* :mod:`~taskforce.plan.specs` — new steps as callers give them (:class:`StepSpec`).
* :mod:`~taskforce.plan.limits` — :class:`PlanLimits`.
* :mod:`~taskforce.plan.state` — the JSON state, both ways (the one plan-state builder).
* :mod:`~taskforce.plan.admit` — a plan from outside, held to the planner's rules.
* :mod:`~taskforce.plan.checks` — structural checks (ids, dependencies, approval flags).
* :mod:`~taskforce.plan.events` — lifecycle events: the one history vocabulary.
* :mod:`~taskforce.plan.checklist` — the Markdown checklist: one renderer, one parser.
* :mod:`~taskforce.plan.text` — text hygiene: one normaliser, one cleaner.
* :mod:`~taskforce.plan.formats` — Markdown task lists, Codex, TodoWrite, ACP.
"""

from __future__ import annotations

from taskforce.plan.admit import admit
from taskforce.plan.checklist import NO_PLAN, ChecklistItem, ChecklistLine, parse_checklist
from taskforce.plan.checks import PlanContractError, Rule, Violation
from taskforce.plan.events import Event, lifecycle_events
from taskforce.plan.limits import DEFAULT_LIMITS, PlanLimits
from taskforce.plan.plan import Plan, lifecycle_status
from taskforce.plan.specs import NewStep, StepSpec
from taskforce.plan.step import Step, StepStatus
from taskforce.plan.text import clean_text, scrub, scrub_data

__all__ = [
    "DEFAULT_LIMITS",
    "NO_PLAN",
    "ChecklistItem",
    "ChecklistLine",
    "Event",
    "NewStep",
    "Plan",
    "PlanContractError",
    "PlanLimits",
    "Rule",
    "Step",
    "StepSpec",
    "StepStatus",
    "Violation",
    "admit",
    "clean_text",
    "lifecycle_events",
    "lifecycle_status",
    "parse_checklist",
    "scrub",
    "scrub_data",
]
