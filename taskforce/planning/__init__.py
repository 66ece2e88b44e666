"""Deterministic planning: when to plan, splitting a mission, reading plans, contracts, rules.

* :func:`should_plan` / :func:`estimate_complexity` — does a goal deserve a plan (the
  agent's plan-first decision).
* :func:`split_mission` — the one mission splitter (the agent, the offline model).
* :func:`parse_plan_reply` — a model's plan reply read tolerantly (JSON, then a list).
* :func:`validate_plan_payload` — a plan payload held to the plan contract (strict);
  ``taskforce plan import plan.json`` uses it.
* :func:`plan_goals` with a :class:`RuleTable` — the table-driven goal planner;
  ``taskforce plan import goals.json`` uses it.

Everything here is pure (no I/O except reading a rules file you name) and deterministic.
The modules hold more (``complexity.analyse``, ``contract.Rule``...) for who needs it.
"""

from __future__ import annotations

from taskforce.plan.checks import PlanContractError
from taskforce.planning.complexity import estimate_complexity, should_plan
from taskforce.planning.contract import PlanContract, validate_plan_payload
from taskforce.planning.goals import Goal, PlanResult, plan_goals, results_to_plan
from taskforce.planning.parser import ParsedPlan, parse_plan_reply
from taskforce.planning.rules import RuleTable, example_rules, load_rules
from taskforce.planning.split import split_mission

__all__ = [
    "Goal",
    "ParsedPlan",
    "PlanContract",
    "PlanContractError",
    "PlanResult",
    "RuleTable",
    "estimate_complexity",
    "example_rules",
    "load_rules",
    "parse_plan_reply",
    "plan_goals",
    "results_to_plan",
    "should_plan",
    "split_mission",
    "validate_plan_payload",
]
