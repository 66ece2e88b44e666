"""Bounds on a plan, so a model (or a forged document) cannot grow it without end."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PlanLimits:
    """Bounds on a plan: steps, text and note length, retries of a failed step, nesting."""

    max_steps: int = 1000
    max_text: int = 500
    max_note: int = 500
    max_retries: int = 2
    max_depth: int = 5
    """Levels of sub-steps below a top-level step."""


DEFAULT_LIMITS = PlanLimits()
"""The limits the planner applies unless told otherwise."""
