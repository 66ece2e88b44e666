"""The planner's messages: the origin's key phrases (drop-in), and step objects' real problems."""

from __future__ import annotations

from typing import Any

import pytest

from taskforce.tools import PlannerTool


async def planner(*tasks: str) -> PlannerTool:
    tool = PlannerTool()
    if tasks:
        assert (await tool.execute(action="create_plan", tasks=list(tasks)))["success"]
    return tool


async def test_a_new_plan_says_which_repeated_tasks_it_kept_once() -> None:
    tool = PlannerTool()
    result = await tool.execute(
        action="create_plan", tasks=["Save notes", "Save notes", "save notes", "Count", "Count"]
    )
    assert result["message"] == (
        "Plan created with 2 tasks (tasks 2, 3 repeated task 1; task 5 repeated task 4: kept once)."
    )
    assert result["output"] == "- [ ] 1. Save notes\n- [ ] 2. Count"
    plain = await tool.execute(action="create_plan", tasks=["A", "B", "A"])
    assert plain["message"] == "Plan created with 3 tasks."


# ---- 13.23: a drop-in for the origin's planner ----------------------------------------


@pytest.mark.parametrize("index", [0, -1, -7, 4, 99])
async def test_an_index_outside_the_plan_is_out_of_bounds(index: int) -> None:
    tool = await planner("A", "B", "C")
    result = await tool.execute(action="mark_done", step_index=index)
    assert result["success"] is False
    assert "out of bounds" in result["error"], result["error"]
    if index >= 1:  # our range wording is kept where the plan is known
        assert "1 to 3" in result["error"]


@pytest.mark.parametrize(
    "params",
    [
        {"action": "update_plan", "remove_indices": [0]},
        {"action": "update_plan", "remove_indices": [4]},
        {"action": "update_plan", "step_index": 9, "text": "x"},
        {"action": "update_plan", "add_steps": ["x"], "insert_at": 0},
        {"action": "update_plan", "add_steps": ["x"], "insert_at": 5},
    ],
)
async def test_edits_outside_the_plan_are_out_of_bounds(params: dict[str, Any]) -> None:
    tool = await planner("A", "B", "C")
    result = await tool.execute(**params)
    assert result["success"] is False and "out of bounds" in result["error"], result


async def test_mark_done_with_no_plan_says_no_active_plan() -> None:
    result = await (await planner()).execute(action="mark_done", step_index=1)
    assert "No active plan" in result["error"]


async def test_a_missing_index_is_required() -> None:
    tool = await planner("A")
    for params in ({"action": "mark_done"}, {"action": "mark_done", "step_index": []}):
        assert "step_index is required" in (await tool.execute(**params))["error"]
        ok, message = tool.validate_params(**params)
        assert not ok and message is not None and "step_index is required" in message


async def test_validate_params_checks_arguments_alone() -> None:
    empty = await planner()
    assert empty.validate_params(action="mark_done", step_index=1) == (True, None)
    ok, message = empty.validate_params(action="mark_done", step_index=0)
    assert not ok and message is not None and ">= 1" in message


# ---- 13.18: step objects get messages that name the real problem ------------------------


@pytest.mark.parametrize(
    ("task", "fragment"),
    [
        ({"description": "b", "depends_on": [0]}, "task 2 depends on 0"),
        ({"description": "b", "depends_on": [5]}, "task 2 depends on 5"),
        ({"description": "b", "after": [1]}, "task 2 has an unknown field 'after'"),
        ({"depends_on": [1]}, "task 2 needs a text description"),
        ({"description": "b", "requires_approval": "yes"}, "requires_approval must be true"),
        ({"description": "b", "depends_on": ["first"]}, "depends_on must list step numbers"),
    ],
)
async def test_step_objects_name_the_real_problem(task: dict[str, Any], fragment: str) -> None:
    tool = await planner()
    result = await tool.execute(action="create_plan", tasks=["a", task])
    assert result["success"] is False
    assert fragment in result["error"], result["error"]
    assert "valid string" not in result["error"]


async def test_step_references_are_accepted_as_the_plan_accepts_them() -> None:
    tool = await planner()
    tasks = ["a", "b", {"description": "c", "depends_on": ["step 1", "step_2"]}]
    assert (await tool.execute(action="create_plan", tasks=tasks))["success"]
    assert tool.plan.steps[2].depends_on == ("s1", "s2")
    added = await tool.execute(
        action="update_plan", add_steps=[{"description": "d", "depends_on": ["3"]}]
    )
    assert added["success"], added
    assert tool.plan.steps[3].depends_on == ("s3",)


async def test_strict_nulls_in_step_objects_mean_absent() -> None:
    tool = await planner()
    task = {"description": "a", "depends_on": None, "requires_approval": None}
    assert (await tool.execute(action="create_plan", tasks=[task]))["success"]
    assert tool.plan.steps[0].requires_approval is False


async def test_messages_count_in_correct_english() -> None:
    tool = await planner()
    assert (await tool.execute(action="create_plan", tasks=["a"]))["message"] == (
        "Plan created with 1 task."
    )
    removed = await tool.execute(action="update_plan", add_steps=["b"], remove_indices=[1])
    assert removed["message"] == "Plan updated: 1 step."
