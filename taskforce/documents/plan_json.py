"""Plans written as JSON, imported like a Plan.md: a contract payload, or parametric goals.

``taskforce plan import FILE`` (and :func:`~taskforce.documents.import_plan_md`) read a
JSON object as one of two plan sources the design documents specify:

* a **plan contract payload** ``{"goal", "steps": [{"step_id", "description", "tool",
  "depends_on", "deliverable"}]}``, held to the contract
  (:func:`taskforce.planning.validate_plan_payload`: numbering, dependencies, the tool
  whitelist given as ``"tools"`` next to the payload, else the default one);
* **parametric goals** ``{"goals": [{"domain", "verb", "params", "goal_id"?, "scope"?}],
  "rules"?: [...], "objective"?: "..."}``, planned by the table-driven goal planner
  (:func:`taskforce.planning.plan_goals`) with the rules given, else the example table.

Either way the plan is built by the plan's own rules (:meth:`taskforce.plan.Plan.of`),
so an import through JSON is held to what the planner holds every plan to. Pure.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from taskforce.documents.plan_md import PlanDocument
from taskforce.errors import PlanError, UserError
from taskforce.planning import (
    Goal,
    RuleTable,
    example_rules,
    load_rules,
    plan_goals,
    results_to_plan,
    validate_plan_payload,
)
from taskforce.planning.contract import PlanContract

_GOAL_KEYS = frozenset({"domain", "verb", "params", "object", "goal_id", "scope"})


def is_plan_json(text: str) -> bool:
    """Whether `text` is a JSON plan source (a JSON object) rather than a Plan.md."""
    return text.lstrip("\ufeff \t\r\n").startswith("{")


def read_plan_json(text: str) -> PlanDocument:
    """The document a JSON plan source becomes (see the module docstring).

    Raises:
        UserError: not a JSON object, neither source, or a plan the rules refuse (the
            message names the step, the goal or the contract rule).
    """
    try:
        data = json.loads(text.lstrip("\ufeff"))
    except (ValueError, RecursionError) as exc:
        raise UserError(f"the plan file is not valid JSON: {str(exc)[:120]}") from exc
    if not isinstance(data, dict):
        raise UserError("a JSON plan file holds one object")
    try:
        if "goals" in data:
            objective, plan_doc = _from_goals(data)
        elif "steps" in data:
            objective, plan_doc = _from_payload(data)
        else:
            raise UserError('a JSON plan file has "steps" (a plan contract) or "goals"')
    except PlanError as exc:
        raise UserError(f"the plan file: {exc}") from exc
    digest = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:10]
    return PlanDocument(id=f"plan-{digest}", objective=objective, status="pending", plan=plan_doc)


def _from_payload(data: dict[str, Any]) -> tuple[str, Any]:
    tools = data.pop("tools", None)
    contract = PlanContract()
    if tools is not None:
        if not isinstance(tools, list) or not tools or not all(isinstance(t, str) for t in tools):
            raise UserError('"tools" must be a non-empty list of tool names')
        contract = PlanContract(tools=tuple(tools), fallback_tool=tools[0])
    validated = validate_plan_payload(data, contract=contract)
    return validated.goal, validated.to_plan()


def _from_goals(data: dict[str, Any]) -> tuple[str, Any]:
    unknown = sorted(set(data) - {"goals", "rules", "objective"})
    if unknown:
        raise UserError(f"a goals file has an unknown key {unknown[0]!r}")
    raw = data["goals"]
    if not isinstance(raw, list) or not raw:
        raise UserError('"goals" must be a non-empty list of goals')
    goals = [_goal(item, number) for number, item in enumerate(raw, start=1)]
    rules: RuleTable = load_rules({"rules": data["rules"]}) if "rules" in data else example_rules()
    results = plan_goals(goals, rules)
    failed = [(n, r) for n, r in enumerate(results, start=1) if not r.ok]
    if failed:
        number, result = failed[0]
        raise UserError(f"goal {number} was not planned ({result.status}): {result.reason}")
    plan = results_to_plan(results)
    objective = data.get("objective")
    if not isinstance(objective, str) or not objective.strip():
        objective = "; ".join(step.description for step in plan.steps)[:500]
    return objective, plan


def _goal(item: Any, number: int) -> Goal:
    if not isinstance(item, dict):
        raise UserError(f"goal {number} must be an object")
    unknown = sorted(set(item) - _GOAL_KEYS)
    if unknown:
        raise UserError(f"goal {number} has an unknown key {unknown[0]!r}")
    for key in ("domain", "verb"):
        if not isinstance(item.get(key), str):
            raise UserError(f"goal {number} needs a text {key!r}")
    params = item.get("params", {})
    if not isinstance(params, dict):
        raise UserError(f"goal {number}: params must be an object")
    return Goal(
        domain=item["domain"],
        verb=item["verb"],
        params=params,
        object=item.get("object") if isinstance(item.get("object"), str) else None,
        goal_id=str(item.get("goal_id") or f"g{number - 1}"),
        scope=str(item.get("scope") or "root"),
    )
