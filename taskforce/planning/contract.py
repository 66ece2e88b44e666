"""The plan contract: a validated, deterministic plan payload, or a hard failure.

A plan payload is **one JSON object**::

    {"goal": "Greet the user at the right time",
     "steps": [
       {"step_id": "step_1", "description": "Read the clock", "tool": "get_time",
        "depends_on": [], "deliverable": "the current time"},
       {"step_id": "step_2", "description": "Greet", "tool": "echo_tool",
        "depends_on": ["step_1"], "deliverable": "a greeting", "requires_approval": false}]}

Rules (each violation names its step and its :class:`Rule`; any violation is fatal):

* a single JSON object (no surrounding text, no duplicate keys, no NaN), of bounded size;
* exactly the fields above: no missing, no extra (``requires_approval`` is optional);
* steps numbered ``step_1..step_N``: start at 1, contiguous, ascending, no duplicates;
* when a count was requested (``expected_steps``, or :func:`requested_step_count` of the
  request text), exactly that many steps;
* ``depends_on`` lists only ids of *earlier* declared steps (no self, forward, unknown);
* ``tool`` comes from the whitelist. With ``on_unknown_tool="fallback"`` an unknown tool
  is replaced by the fallback tool and the downgrade is written into the step's
  description and deliverable (and listed in :attr:`ValidatedPlan.downgrades`);
  with the default ``"refuse"`` it is a violation.

The dependency rules are the plan's own (:mod:`taskforce.plan.checks`), shared with
every plan state. Output is deterministic: identical input gives
a byte-identical :meth:`ValidatedPlan.to_json`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

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

    def to_plan_state(self) -> dict[str, Any]:
        """A plan state (``s1..sN``; dependencies mapped; tool and deliverable kept)."""
        ids = {s.step_id: f"s{n}" for n, s in enumerate(self.steps, start=1)}
        tasks = [
            {
                "id": ids[s.step_id],
                "description": s.description,
                "status": "PENDING",
                "note": None,
                "depends_on": [ids[d] for d in s.depends_on],
                "requires_approval": s.requires_approval,
                "tool": s.tool,
                "deliverable": s.deliverable,
            }
            for s in self.steps
        ]
        return {"tasks": tasks, "version": 1, "next_id": len(tasks) + 1}


_NUMBER_TEXT = """one two three four five six seven eight nine ten eleven twelve thirteen
fourteen fifteen sixteen seventeen eighteen nineteen twenty"""
_NUMBER_WORDS = {w: n for n, w in enumerate(_NUMBER_TEXT.split(), start=1)}
_REQUESTED = re.compile(
    r"\b(\d{1,3}|" + "|".join(_NUMBER_WORDS) + r")[\s-]*(?:step|stage|phase)s?\b", re.I
)


def requested_step_count(request: str) -> int | None:
    """The step count a request asks for ("a 3-step plan", "in five steps"), if any."""
    match = _REQUESTED.search(request[:10_000]) if isinstance(request, str) else None
    if match is None:
        return None
    word = match.group(1).lower()
    return int(word) if word.isdigit() else _NUMBER_WORDS[word]


def validate_plan_payload(
    payload: str | bytes | Mapping[str, Any],
    *,
    expected_steps: int | None = None,
    contract: PlanContract = DEFAULT_CONTRACT,
    request: str | None = None,
) -> ValidatedPlan:
    """Validate a plan payload against the contract.

    Args:
        payload: the model's raw JSON text (or bytes), or an already decoded object.
        expected_steps: the step count the request asked for, if it asked.
        contract: whitelist, fallback policy and bounds.
        request: the user's request; when `expected_steps` is None, a count it asks
            for ("a 3-step plan") is enforced.

    Returns:
        The validated plan (with tool downgrades applied when the policy allows them).

    Raises:
        PlanContractError: any violation; ``violations`` names each step and rule.
    """
    from taskforce.planning._contract_checks import check_payload

    if expected_steps is None and request is not None:
        expected_steps = requested_step_count(request)
    return check_payload(payload, expected_steps, contract)


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
