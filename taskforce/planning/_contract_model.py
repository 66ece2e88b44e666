"""The values of the plan contract: its parameters, a validated step, a validated plan."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from taskforce.plan import Plan

STEP_FIELDS = ("step_id", "description", "tool", "depends_on", "deliverable")
OPTIONAL_STEP_FIELDS = ("requires_approval",)
PLAN_FIELDS = ("goal", "steps")
_STEP_ID = re.compile(r"step_([1-9][0-9]{0,5})")


@dataclass(frozen=True, slots=True)
class PlanContract:
    """The parameters of the contract.

    Attributes:
        tools: the tool whitelist.
        fallback_tool: the documented replacement for an unavailable tool (in `tools`).
        on_unknown_tool: ``"refuse"`` (a violation) or ``"fallback"`` (downgrade).
        max_steps: the most steps a plan may have.
        max_bytes: the largest payload accepted, in UTF-8 bytes.
        max_text: the longest text field, in characters.
    """

    tools: tuple[str, ...] = ("echo_tool", "get_time")
    fallback_tool: str = "echo_tool"
    on_unknown_tool: Literal["refuse", "fallback"] = "refuse"
    max_steps: int = 50
    max_bytes: int = 256_000
    max_text: int = 2_000

    def __post_init__(self) -> None:
        if self.fallback_tool not in self.tools:
            raise ValueError(f"fallback_tool {self.fallback_tool!r} must be one of the tools")
        if self.on_unknown_tool not in ("refuse", "fallback"):
            raise ValueError("on_unknown_tool must be 'refuse' or 'fallback'")


DEFAULT_CONTRACT = PlanContract()


@dataclass(frozen=True, slots=True)
class ContractStep:
    """One validated step."""

    step_id: str
    description: str
    tool: str
    depends_on: tuple[str, ...]
    deliverable: str
    requires_approval: bool = False

    def to_payload(self) -> dict[str, Any]:
        """The step as contract JSON data (fixed key order)."""
        return {
            "step_id": self.step_id,
            "description": self.description,
            "tool": self.tool,
            "depends_on": list(self.depends_on),
            "deliverable": self.deliverable,
            "requires_approval": self.requires_approval,
        }


@dataclass(frozen=True, slots=True)
class ValidatedPlan:
    """A payload that satisfies the contract; `downgrades` lists tool fallbacks applied."""

    goal: str
    steps: tuple[ContractStep, ...]
    downgrades: tuple[str, ...] = field(default=())

    def to_payload(self) -> dict[str, Any]:
        """The plan as contract JSON data (fixed key order)."""
        return {"goal": self.goal, "steps": [s.to_payload() for s in self.steps]}

    def to_json(self) -> str:
        """Canonical JSON: identical plans give byte-identical text."""
        return json.dumps(self.to_payload(), ensure_ascii=False, indent=2) + "\n"

    def tasks(self) -> list[str]:
        """Step descriptions, ready for ``planner.create_plan(tasks=...)``."""
        return [s.description for s in self.steps]

    def task_specs(self) -> list[dict[str, Any]]:
        """``create_plan`` task objects (description, 1-based depends_on, approval)."""
        numbers = {s.step_id: n for n, s in enumerate(self.steps, start=1)}
        return [
            {
                "description": s.description,
                "depends_on": [numbers[d] for d in s.depends_on],
                "requires_approval": s.requires_approval,
            }
            for s in self.steps
        ]

    def to_plan(self) -> Plan:
        """The plan this payload makes; each step keeps its ``tool`` and ``deliverable``.

        The planner's rules apply (a step's text is at most 500 characters).
        """
        extras = [{"tool": s.tool, "deliverable": s.deliverable} for s in self.steps]
        return Plan.of(self.task_specs(), extras)


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
