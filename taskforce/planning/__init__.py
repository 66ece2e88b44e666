"""Deterministic planning: when to plan, plan prompts and replies, the plan contract, rules.

* :mod:`~taskforce.planning.complexity` — :func:`should_plan`, :func:`estimate_complexity`.
* :mod:`~taskforce.planning.prompt` — :func:`build_plan_prompt`, replanning.
* :mod:`~taskforce.planning.parser` — :func:`parse_plan_reply` (tolerant).
* :mod:`~taskforce.planning.contract` — :func:`validate_plan_payload` (strict).
* :mod:`~taskforce.planning.rules` / :mod:`~taskforce.planning.goals` — the table-driven
  goal planner and its rule tables.

Everything here is pure (no I/O except reading a rules file you name) and deterministic.
"""

from __future__ import annotations

from taskforce.plan.checks import (
    PlanContractError,
    Rule,
    Violation,
    check_dependencies,
    check_plan_state,
)
from taskforce.planning.complexity import (
    DEFAULT_THRESHOLD,
    analyse,
    estimate_complexity,
    should_plan,
)
from taskforce.planning.contract import (
    DEFAULT_CONTRACT,
    ContractStep,
    PlanContract,
    ValidatedPlan,
    requested_step_count,
    validate_plan_payload,
)
from taskforce.planning.goals import (
    ActionPlan,
    Goal,
    PlannedAction,
    PlanResult,
    plan_goal,
    plan_goals,
    results_to_plan_state,
    results_to_tasks,
)
from taskforce.planning.parser import ParsedPlan, ParsedStep, parse_plan_reply, single_step_plan
from taskforce.planning.prompt import apply_replan, build_plan_prompt, build_replan_prompt
from taskforce.planning.rules import PlannerRule, RuleTable, example_rules, load_rules

__all__ = [
    "DEFAULT_CONTRACT",
    "DEFAULT_THRESHOLD",
    "ActionPlan",
    "ContractStep",
    "Goal",
    "ParsedPlan",
    "ParsedStep",
    "PlanContract",
    "PlanContractError",
    "PlanResult",
    "PlannedAction",
    "PlannerRule",
    "Rule",
    "RuleTable",
    "ValidatedPlan",
    "Violation",
    "analyse",
    "apply_replan",
    "build_plan_prompt",
    "build_replan_prompt",
    "check_dependencies",
    "check_plan_state",
    "estimate_complexity",
    "example_rules",
    "load_rules",
    "parse_plan_reply",
    "plan_goal",
    "plan_goals",
    "requested_step_count",
    "results_to_plan_state",
    "results_to_tasks",
    "should_plan",
    "single_step_plan",
    "validate_plan_payload",
]
