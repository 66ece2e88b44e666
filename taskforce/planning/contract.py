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

import re
from collections.abc import Mapping
from typing import Any

from taskforce.plan.checks import PlanContractError, Rule, Violation
from taskforce.planning._contract_checks import check_payload
from taskforce.planning._contract_model import (
    DEFAULT_CONTRACT,
    ContractStep,
    PlanContract,
    ValidatedPlan,
)

__all__ = [
    "DEFAULT_CONTRACT",
    "ContractStep",
    "PlanContract",
    "PlanContractError",
    "Rule",
    "ValidatedPlan",
    "Violation",
    "requested_step_count",
    "validate_plan_payload",
]


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
    if expected_steps is None and request is not None:
        expected_steps = requested_step_count(request)
    return check_payload(payload, expected_steps, contract)
