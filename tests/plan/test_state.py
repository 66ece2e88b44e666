"""Plan states read from JSON data, with steps already read given back (plan/state.py)."""

from __future__ import annotations

from typing import Any

import pytest

from taskforce.errors import PlanError
from taskforce.plan import Plan
from taskforce.plan.state import read_state, read_step


def tasks() -> list[dict[str, Any]]:
    plan = Plan().replaced(
        ["a", {"description": "b", "depends_on": [1]}, {"description": "c", "parent": 2}]
    )
    return plan.to_state()["tasks"]


def test_steps_given_back_read_as_their_tasks() -> None:
    given = tasks()
    mixed: list[Any] = [read_step(given[0], 1), given[1], read_step(given[2], 3)]
    assert read_state({"tasks": mixed, "next_id": 2}) == read_state({"tasks": given, "next_id": 2})


def test_plan_wide_rules_still_hold_for_steps_given_back() -> None:
    a, b, c = tasks()
    sa, sb, sc = read_step(a, 1), read_step(b, 2), read_step(c, 3)
    refused = {
        "id used twice": [sa, {**b, "id": "s1"}, sc],
        "comes later": [sa, {**b, "depends_on": ["s3"]}, c],
        "undeclared": [sb, c],  # a step given back whose dependency is gone
        "not earlier": [sc, a, b],  # a sub-step given back before its parent
    }
    for rule, mixed in refused.items():
        with pytest.raises(PlanError, match=rule):
            read_state({"tasks": mixed})
