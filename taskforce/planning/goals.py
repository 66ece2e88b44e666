"""The table-driven goal planner: an immutable parametric goal in, a :class:`PlanResult` out.

``(Goal, world) -> rules[(domain, verb)] -> PlanResult``. For each goal the planner

1. looks up the rule for ``(domain, verb)`` (``rule_not_found`` when there is none);
2. checks that every required parameter is present and no undeclared one is
   (``validation_failed``: fail fast, never guess);
3. checks values against ``allowed_values`` (``blocked`` when one is not allowed), and
   honours a world state that blocks a domain or a (domain, verb);
4. applies ``default_params``;
5. formats the description from the template, using only the validated arguments.

The validated ``args`` are the single source of truth for execution: they are frozen,
and the description is derived from them, never the other way round. Successful results
become a plan with :func:`results_to_plan` (or their descriptions,
for ``planner.create_plan``, with :func:`results_to_tasks`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from taskforce.errors import UserError
from taskforce.plan import Plan
from taskforce.plan.text import clean_text
from taskforce.planning.rules import RuleTable, freeze, thaw

PlanStatus = Literal["success", "rule_not_found", "validation_failed", "blocked"]
_MAX_DESCRIPTION = 500


@dataclass(frozen=True)
class Goal:
    """A parametric goal. Immutable: its params are copied and frozen on creation."""

    domain: str
    verb: str
    params: Mapping[str, Any] = field(default_factory=dict)
    object: str | None = None
    goal_id: str = "g0"
    scope: str = "root"
    resolved_path: str | None = None

    def __post_init__(self) -> None:
        params = self.params if isinstance(self.params, Mapping) else {}
        try:
            frozen = freeze(dict(params))
        except RecursionError as exc:
            raise UserError("goal params are nested too deeply") from exc
        object.__setattr__(self, "params", frozen)


@dataclass(frozen=True)
class PlannedAction:
    """One concrete action. `args` (frozen) are authoritative for execution."""

    action_id: str
    intent: str
    description: str
    args: Mapping[str, Any]
    action_class: str
    requires_approval: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (fixed key order)."""
        return {
            "action_id": self.action_id,
            "intent": self.intent,
            "description": self.description,
            "args": thaw(self.args),
            "action_class": self.action_class,
            "requires_approval": self.requires_approval,
        }


@dataclass(frozen=True)
class ActionPlan:
    """The actions planned for one goal."""

    goal_id: str
    scope: str
    actions: tuple[PlannedAction, ...]


@dataclass(frozen=True)
class PlanResult:
    """The outcome of planning one goal: `plan` is set only when `status` is success."""

    status: PlanStatus
    plan: ActionPlan | None = None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        """Whether planning succeeded."""
        return self.status == "success"


def _fail(status: PlanStatus, reason: str) -> PlanResult:
    return PlanResult(status, None, reason)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _blocked_by_world(goal: Goal, world: Mapping[str, Any] | None) -> str | None:
    blocked = (world or {}).get("blocked") or ()
    if not isinstance(blocked, list | tuple | set | frozenset):
        return None
    names = {str(b) for b in blocked}
    for name in (goal.domain, f"{goal.domain}.{goal.verb}"):
        if name in names:
            return f"{name} is blocked by the world state"
    return None


def _one_of(value: Any, allowed: Sequence[Any]) -> bool:
    """Membership that does not confuse True with 1 or 1.0 with 1."""
    return any(type(value) is type(a) and value == a for a in allowed)


class _Blank(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return ""


def plan_goal(goal: Goal, rules: RuleTable, world: Mapping[str, Any] | None = None) -> PlanResult:
    """Plan one goal against `rules` (see the module docstring). Never raises on bad goals.

    Args:
        goal: the goal (not modified).
        rules: the rule table.
        world: optional world state; ``{"blocked": ["file", "browser.click"]}`` blocks
            a domain or one (domain, verb).
    """
    if not isinstance(goal, Goal):
        return _fail("validation_failed", f"expected a Goal, got {type(goal).__name__}")
    key = (goal.domain, goal.verb)
    rule = rules.get(key) if all(isinstance(k, str) for k in key) else None
    if rule is None:
        return _fail("rule_not_found", f"no rule for ({_short(goal.domain)}, {_short(goal.verb)})")
    params = dict(goal.params)
    bad_key = next((k for k in params if not isinstance(k, str)), None)
    if bad_key is not None:
        return _fail("validation_failed", f"parameter name {_short(bad_key)} is not a string")
    missing = [p for p in rule.required_params if params.get(p) in (None, "")]
    if missing:
        return _fail("validation_failed", f"missing required parameter {missing[0]!r}")
    unknown = sorted(p for p in params if p not in rule.known_params)
    if unknown:
        return _fail("validation_failed", f"unexpected parameter {_short(unknown[0])}")
    try:
        json.dumps(thaw(params), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return _fail("validation_failed", "parameters must be plain JSON values")
    for name, allowed in rule.allowed_values.items():
        if name in params and not _one_of(params[name], allowed):
            choices = ", ".join(str(a) for a in allowed)
            return _fail("blocked", f"{name}={_short(params[name])} is not allowed ({choices})")
    reason = _blocked_by_world(goal, world)
    if reason is not None:
        return _fail("blocked", reason)
    args = {**thaw(rule.default_params), **thaw(params)}
    shown = _Blank({k: v for k, v in args.items()})
    description = clean_text(rule.description_template.format_map(shown))[:_MAX_DESCRIPTION]
    action = PlannedAction(
        action_id=f"{goal.goal_id}_{goal.verb}_1",
        intent=rule.intent,
        description=description or rule.intent,
        args=freeze(args),
        action_class=rule.action_class,
        requires_approval=rule.requires_approval,
    )
    return PlanResult("success", ActionPlan(goal.goal_id, goal.scope, (action,)), None)


def plan_goals(
    goals: Sequence[Goal], rules: RuleTable, world: Mapping[str, Any] | None = None
) -> list[PlanResult]:
    """Plan each goal, in order (one result per goal)."""
    return [plan_goal(g, rules, world) for g in goals]


def _require_success(results: Sequence[PlanResult]) -> list[ActionPlan]:
    failed = [(n, r) for n, r in enumerate(results, start=1) if r.plan is None]
    if failed:
        number, result = failed[0]
        raise UserError(f"goal {number} was not planned ({result.status}): {result.reason}")
    return [r.plan for r in results if r.plan is not None]


def results_to_tasks(results: Sequence[PlanResult]) -> list[str]:
    """The action descriptions, ready for ``planner.create_plan(tasks=...)``.

    Raises:
        UserError: a goal was not planned successfully (names it and why).
    """
    return [a.description for p in _require_success(results) for a in p.actions]


def results_to_plan(results: Sequence[PlanResult]) -> Plan:
    """The plan of successful results: one pending step per action, in goal order.

    Each step keeps its action (``intent``, ``action_class``, ``args``, ``action_id``)
    under ``"action"``, ``requires_approval`` from the rule, and ``depends_on`` from a
    goal scope ``"after:<goal_id>"`` (the last action of that earlier goal).

    Raises:
        UserError: a goal was not planned, or a scope names a goal that is not earlier.
    """
    plans = _require_success(results)
    specs: list[dict[str, Any]] = []
    extras: list[dict[str, Any]] = []
    last_step: dict[str, int] = {}
    for plan in plans:
        depends_on: list[int] = []
        if plan.scope.startswith("after:"):
            target = plan.scope.removeprefix("after:")
            if target not in last_step:
                raise UserError(
                    f"goal {plan.goal_id!r}: scope {plan.scope!r} names no earlier goal"
                )
            depends_on.append(last_step[target])
        for action in plan.actions:
            specs.append(
                {
                    "description": action.description,
                    "depends_on": depends_on,
                    "requires_approval": action.requires_approval,
                }
            )
            extras.append(
                {"action": {k: v for k, v in action.to_dict().items() if k != "description"}}
            )
            last_step[plan.goal_id] = len(specs)
    return Plan.of(specs, extras)
