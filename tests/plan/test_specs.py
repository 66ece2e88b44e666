"""New steps as given: a task that only repeats the one before it is that step."""

from __future__ import annotations

from typing import Any

import pytest

from taskforce.errors import PlanError
from taskforce.plan import DEFAULT_LIMITS, Plan, StepSpec
from taskforce.plan.requests import NewPlan
from taskforce.plan.specs import clean_specs, once, repeats

MISSION = "Save three notes and count them"


def specs(*tasks: Any) -> list[StepSpec]:
    return clean_specs(tasks, "task", 500)


def test_a_run_of_equal_tasks_maps_to_its_first() -> None:
    given = specs(
        MISSION,
        MISSION.upper(),  # case aside, the same text
        {"description": MISSION, "depends_on": [1]},  # waits only for its twin
        "List notes",
        {"description": "Count", "depends_on": [2, 3, 4]},
    )
    assert repeats(given) == {1: 0, 2: 0}
    assert once(given) == (
        StepSpec(MISSION),
        StepSpec("List notes"),
        StepSpec("Count", depends_on=(1, 2)),  # a step that waited for a repeat waits for it
    )


def test_a_new_plan_request_keeps_a_repeated_task_once() -> None:
    given = specs("A", "a", "P", {"description": "B", "parent": 3})
    plan = NewPlan(tuple(given)).apply(Plan(), DEFAULT_LIMITS)
    assert [(s.description, s.parent) for s in plan.steps] == [
        ("A", None),
        ("P", None),
        ("B", "s2"),  # its parent renumbered
    ]
    assert plan.next_id == 4  # ids only for the steps made


@pytest.mark.parametrize(
    "tasks",
    [
        ["Run the tests", "Fix the bug", "Run the tests"],  # apart: done twice on purpose
        ["A", "B", {"description": "B", "depends_on": [1]}],  # waits for more than its twin
        ["A", {"description": "A", "requires_approval": True}],  # a gate the first has not
        ["A", "A", {"description": "x", "parent": 2}],  # the second has a sub-step
        ["P", {"description": "A", "parent": 1}, {"description": "A", "parent": 1}],
    ],
)
def test_equal_tasks_that_are_not_a_mere_repeat_stay_apart(tasks: list[Any]) -> None:
    given = specs(*tasks)
    assert repeats(given) == {}
    assert once(given) == tuple(given)


def test_a_plan_given_with_a_step_waiting_for_a_later_one_is_refused_as_given() -> None:
    given = specs({"description": "A", "depends_on": [3]}, "A", "B")
    assert repeats(given) == {}  # not renumbered: the error names the tasks as given
    with pytest.raises(PlanError, match="task 1 depends on 3"):
        NewPlan(tuple(given)).apply(Plan(), DEFAULT_LIMITS)


def test_a_plan_read_from_markdown_keeps_its_equal_steps() -> None:
    plan = Plan().replaced(["Check", "Check"])  # a file's steps, faithfully
    assert len(plan.steps) == 2
