"""PlannerTool: the seed's contract call by call, then what users of planning tools ask for."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import jsonschema
import pytest

from taskforce.plan import NO_PLAN
from taskforce.tools import ApprovalRiskLevel, PlannerTool, ToolProtocol, tool_spec, tool_spec_size


async def make(*tasks: str) -> PlannerTool:
    tool = PlannerTool()
    if tasks:
        result = await tool.execute(action="create_plan", tasks=list(tasks))
        assert result["success"], result
    return tool


def statuses(tool: PlannerTool) -> list[str]:
    return [t["status"] for t in tool.get_state()["tasks"]]


# ---- the seed contract ------------------------------------------------------------------


def test_satisfies_tool_protocol_and_metadata() -> None:
    tool = PlannerTool()
    assert isinstance(tool, ToolProtocol)
    assert tool.name == "planner"
    assert tool.requires_approval is False
    assert tool.approval_risk_level is ApprovalRiskLevel.LOW
    assert tool.supports_parallelism is False
    schema = tool.parameters_schema
    assert schema["required"] == ["action"]
    assert schema["properties"]["action"]["enum"] == [
        "create_plan",
        "mark_done",
        "read_plan",
        "update_plan",
    ]


def test_the_working_definition_names_only_what_its_schema_offers() -> None:
    """Every action and argument its description names is in its schema, and it is smaller."""
    tool = PlannerTool()
    working = tool.working_spec()["function"]
    offered = working["parameters"]["properties"]
    named = set(re.findall(r"[a-z]+(?:_[a-z]+)+|\b(?:text|status|note)\b", working["description"]))
    assert {"mark_done", "read_plan", "update_plan", "step_index", "add_steps"} <= named
    assert "create_plan" not in named and "tasks" not in offered
    assert named - set(offered["action"]["enum"]) <= set(offered)
    assert len(json.dumps(tool.working_spec())) < len(json.dumps(tool_spec(tool)))


async def test_create_plan_two_pending_tasks() -> None:
    tool = PlannerTool()
    result = await tool.execute(action="create_plan", tasks=["A", "B"])
    assert result["success"] is True
    assert result["message"] == "Plan created with 2 tasks."
    state = tool.get_state()
    assert [t["description"] for t in state["tasks"]] == ["A", "B"]
    assert statuses(tool) == ["PENDING", "PENDING"]


async def test_create_plan_replaces_the_unfinished_steps_and_keeps_finished_ones() -> None:
    tool = await make("A", "B", "C")
    await tool.execute(action="mark_done", step_index=1)
    result = await tool.execute(action="create_plan", tasks=["X"])
    assert result["message"] == "Plan created with 1 task; 1 finished step kept."
    assert [t["description"] for t in tool.get_state()["tasks"]] == ["A", "X"]
    assert statuses(tool) == ["DONE", "PENDING"]
    # restating the whole plan does not redo finished work (13.8)
    again = await tool.execute(
        action="create_plan", tasks=["a", "Y", {"description": "Z", "depends_on": [1, 2]}]
    )
    assert again["message"] == "Plan created with 2 tasks; 1 finished step kept."
    state = tool.get_state()["tasks"]
    assert [(t["description"], t["status"]) for t in state] == [
        ("A", "DONE"), ("Y", "PENDING"), ("Z", "PENDING"),
    ]  # fmt: skip
    assert state[2]["depends_on"] == [state[0]["id"], state[1]["id"]]


async def test_create_plan_on_a_fresh_or_open_plan_replaces_it() -> None:
    tool = await make("A", "B")
    result = await tool.execute(action="create_plan", tasks=["X"])
    assert result["message"] == "Plan created with 1 task."
    assert [t["description"] for t in tool.get_state()["tasks"]] == ["X"]


@pytest.mark.parametrize("params", [{}, {"tasks": []}, {"tasks": None}])
async def test_create_plan_requires_non_empty_tasks(params: dict[str, Any]) -> None:
    tool = await make("keep me")
    result = await tool.execute(action="create_plan", **params)
    assert result["success"] is False
    assert "non-empty" in result["error"]
    assert [t["description"] for t in tool.get_state()["tasks"]] == ["keep me"]


async def test_mark_done_is_one_based() -> None:
    tool = await make("A", "B")
    result = await tool.execute(action="mark_done", step_index=1)
    assert result["success"] is True
    assert statuses(tool) == ["DONE", "PENDING"]


async def test_read_plan_renders_checklist_like_the_seed() -> None:
    tool = await make("Research", "Summarize")
    await tool.execute(action="mark_done", step_index=1)
    result = await tool.execute(action="read_plan")
    assert result == {
        "success": True,
        "output": "- [x] 1. Research\n- [ ] 2. Summarize",
        "message": "Plan read.",
    }
    assert tool.get_plan_summary() == result["output"]


async def test_read_plan_without_plan() -> None:
    tool = PlannerTool()
    result = await tool.execute(action="read_plan")
    assert result["output"] == "No active plan." == NO_PLAN
    assert tool.get_plan_summary() == "No active plan."


async def test_update_plan_adds_and_removes_one_based() -> None:
    tool = await make("A", "B", "C")
    result = await tool.execute(action="update_plan", add_steps=["D"], remove_indices=[2])
    assert result["success"] is True
    assert [t["description"] for t in tool.get_state()["tasks"]] == ["A", "C", "D"]


async def test_unknown_action_named() -> None:
    tool = await make("A")
    result = await tool.execute(action="delete_everything")
    assert result["success"] is False
    assert "Unknown action" in result["error"]
    assert "delete_everything" in result["error"]
    assert result["error_type"] == "unknown_action"


async def test_missing_action() -> None:
    result = await PlannerTool().execute(tasks=["A"])
    assert result["success"] is False
    assert "action" in result["error"]


def test_state_roundtrip_and_deep_copy() -> None:
    initial = {"tasks": [{"description": "A", "status": "DONE"}, {"description": "B"}]}
    tool = PlannerTool(initial_state=initial)
    state = tool.get_state()
    assert [(t["description"], t["status"]) for t in state["tasks"]] == [
        ("A", "DONE"),
        ("B", "PENDING"),
    ]
    state["tasks"][0]["status"] = "PENDING"
    state["tasks"].append({"description": "evil"})
    assert statuses(tool) == ["DONE", "PENDING"]
    tool.set_state(None)
    assert tool.get_plan_summary() == NO_PLAN
    tool.set_state(state)
    assert len(tool.get_state()["tasks"]) == 3
    assert initial == {"tasks": [{"description": "A", "status": "DONE"}, {"description": "B"}]}


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({}, "action"),
        ({"action": "nope"}, "Unknown action"),
        ({"action": "create_plan"}, "non-empty"),
        ({"action": "create_plan", "tasks": []}, "non-empty"),
        ({"action": "mark_done", "step_index": 0}, ">= 1"),
        ({"action": "mark_done", "step_index": -2}, ">= 1"),
        ({"action": "mark_done"}, "step_index is required"),
        ({"action": "create_plan", "tasks": ["A", ""]}, "task 2 is empty"),
    ],
)
async def test_validate_params_matches_execute(params: dict[str, Any], fragment: str) -> None:
    tool = await make("A", "B")
    ok, message = tool.validate_params(**params)
    assert ok is False and message is not None and fragment in message
    result = await tool.execute(**params)
    assert result["success"] is False
    assert result["error"] == message
    assert statuses(tool) == ["PENDING", "PENDING"]


async def test_validate_params_accepts_good_calls_without_changing_anything() -> None:
    tool = await make("A", "B")
    assert tool.validate_params(action="mark_done", step_index=2) == (True, None)
    assert tool.validate_params(action="read_plan") == (True, None)
    assert statuses(tool) == ["PENDING", "PENDING"]


async def test_validate_params_checks_the_arguments_alone_and_execute_the_plan() -> None:
    tool = await make("A", "B")
    assert tool.validate_params(action="mark_done", step_index=9) == (True, None)
    result = await tool.execute(action="mark_done", step_index=9)
    assert result["error"] == (
        "step_index 9 is out of bounds: the plan has steps 1 to 2. "
        'A valid call looks like: planner({"action": "mark_done", "step_index": [1]})'
    )
    empty = PlannerTool()
    assert empty.validate_params(action="mark_done", step_index=1) == (True, None)
    refused = await empty.execute(action="mark_done", step_index=1)
    assert refused["success"] is False and "No active plan" in refused["error"]


# ---- beyond the original ------------------------------------------------------------------


async def test_statuses_render_distinctly_as_task_list_lines() -> None:
    tool = await make("A", "B", "C", "D", "E")
    assert (await tool.execute(action="mark_done", step_index=1, note="ok"))["success"]
    assert (await tool.execute(action="mark_done", step_index=2, status="IN_PROGRESS"))["success"]
    assert (await tool.execute(action="mark_done", step_index=3, status="failed", note="boom"))[
        "success"
    ]
    assert (await tool.execute(action="mark_done", step_index=4, status="SKIPPED"))["success"]
    assert tool.get_plan_summary().splitlines() == [
        "- [x] 1. A — ok",
        "- [ ] 2. B (in progress)",
        "- [ ] 3. C (failed: boom)",
        "- [x] 4. ~~D~~ (skipped)",
        "- [ ] 5. E",
    ]


async def test_only_one_step_in_progress() -> None:
    tool = await make("A", "B", "C")
    assert (await tool.execute(action="mark_done", step_index=1, status="IN_PROGRESS"))["success"]
    before = tool.get_state()
    result = await tool.execute(action="mark_done", step_index=2, status="IN_PROGRESS")
    assert result["success"] is False and "step 1 is already IN_PROGRESS" in result["error"]
    both = await tool.execute(action="mark_done", step_index=[2, 3], status="IN_PROGRESS")
    assert both["success"] is False and "one step" in both["error"]
    assert tool.get_state() == before
    assert (await tool.execute(action="mark_done", step_index=1))["success"]
    assert (await tool.execute(action="mark_done", step_index=2, status="IN_PROGRESS"))["success"]


async def test_mark_several_done_duplicates_act_once() -> None:
    tool = await make("A", "B", "C")
    result = await tool.execute(action="mark_done", step_index=[3, 1, 3])
    assert result["success"] is True
    assert statuses(tool) == ["DONE", "PENDING", "DONE"]


async def test_duplicate_remove_indices_remove_one_step() -> None:
    tool = await make("A", "B", "C")
    result = await tool.execute(action="update_plan", remove_indices=[2, 2, "2"])
    assert result["success"] is True
    assert [t["description"] for t in tool.get_state()["tasks"]] == ["A", "C"]


async def test_insert_and_reword() -> None:
    tool = await make("A", "B", "C")
    assert (await tool.execute(action="update_plan", add_steps=["X", "Y"], insert_at=2))["success"]
    assert (await tool.execute(action="update_plan", step_index=1, text="A, better"))["success"]
    assert [t["description"] for t in tool.get_state()["tasks"]] == [
        "A, better",
        "X",
        "Y",
        "B",
        "C",
    ]


async def test_insert_and_remove_indices_refer_to_the_plan_before_the_call() -> None:
    tool = await make("A", "B", "C")
    result = await tool.execute(
        action="update_plan", add_steps=["N"], insert_at=2, remove_indices=[2]
    )
    assert result["success"] is True
    assert [t["description"] for t in tool.get_state()["tasks"]] == ["A", "N", "C"]


async def test_stable_ids_survive_removal_and_insertion() -> None:
    tool = await make("A", "B", "C")
    ids = {t["description"]: t["id"] for t in tool.get_state()["tasks"]}
    await tool.execute(action="update_plan", remove_indices=[1], add_steps=["Z"], insert_at=1)
    after = {t["description"]: t["id"] for t in tool.get_state()["tasks"]}
    assert after["B"] == ids["B"] and after["C"] == ids["C"]
    assert after["Z"] not in ids.values()
    assert len(set(after.values())) == 3


async def test_tolerant_inputs() -> None:
    tool = PlannerTool()
    assert (await tool.execute(action="create_plan", tasks='["A", "B", "C"]'))["success"]
    assert (await tool.execute(action="mark_done", step_index="2"))["success"]
    assert (await tool.execute(action="mark_done", step_index="[1, 3]", status="done"))["success"]
    assert statuses(tool) == ["DONE", "DONE", "DONE"]


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"action": "mark_done", "step_index": 4}, "1 to 3"),
        ({"action": "mark_done", "step_index": [1, 99]}, "99 is out of bounds"),
        ({"action": "mark_done", "step_index": True}, "boolean"),
        ({"action": "mark_done", "step_index": 1.5}, "integer"),
        ({"action": "mark_done", "step_index": 1, "status": "BOGUS"}, "status"),
        ({"action": "update_plan", "remove_indices": [1, 7]}, "7 is out of bounds"),
        ({"action": "update_plan", "add_steps": ["x"], "insert_at": 9}, "1 to 4"),
        ({"action": "update_plan"}, "needs add_steps"),
        ({"action": "update_plan", "step_index": 1}, "reword"),
        ({"action": "update_plan", "step_index": 1, "text": "  \n "}, "empty"),
        ({"action": "update_plan", "remove_indices": [1], "step_index": 1, "text": "a"}, "both"),
        ({"action": "create_plan", "tasks": ["ok", ""]}, "task 2 is empty"),
        ({"action": "create_plan", "tasks": [1, 2]}, "task 1 must be a text"),
        ({"action": "create_plan", "tasks": "[not json"}, "JSON"),
        ({"action": "create_plan", "tasks": ["x" * 501]}, "limit is 500"),
        ({"action": "create_plan", "tasks": ["x"] * 1001}, "limit is 1000"),
        ({"action": "mark_done", "step_index": 1, "note": "n" * 501}, "limit is 500"),
        ({"action": "read_plan", "surprise": 1}, "unexpected parameter 'surprise'"),
        ({"action": "read_plan", "tasks": ["x"]}, "does not apply to read_plan"),
    ],
)
async def test_refused_calls_name_the_problem_and_change_nothing(
    params: dict[str, Any], fragment: str
) -> None:
    tool = await make("A", "B", "C")
    before = tool.get_state()
    result = await tool.execute(**params)
    assert result["success"] is False
    assert fragment in result["error"], result["error"]
    assert result["error_type"]
    assert tool.get_state() == before


async def test_mark_done_without_plan_says_create_first() -> None:
    result = await PlannerTool().execute(action="mark_done", step_index=1)
    assert result["success"] is False and "create_plan" in result["error"]
    assert result["error"].startswith("No active plan")


async def test_every_mutation_bumps_version_and_reads_do_not() -> None:
    tool = PlannerTool()
    versions = [tool.get_state()["version"]]
    for params in (
        {"action": "create_plan", "tasks": ["A", "B"]},
        {"action": "mark_done", "step_index": 1},
        {"action": "update_plan", "add_steps": ["C"]},
    ):
        assert (await tool.execute(**params))["success"]
        versions.append(tool.get_state()["version"])
    await tool.execute(action="read_plan")
    await tool.execute(action="mark_done", step_index=99)
    assert versions == [0, 1, 2, 3]
    assert tool.get_state()["version"] == 3


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"action": "create_plan", "tasks": "[" * 5_000}, "tasks"),
        ({"action": "update_plan", "add_steps": "[" * 5_000}, "add_steps"),
        ({"action": "create_plan", "tasks": "[" * 100_000}, "tasks"),
    ],
)
async def test_a_list_nested_past_the_interpreters_limit_is_refused(
    args: dict[str, Any], field: str
) -> None:
    tool = await make("Get the weather")
    before = tool.get_state()
    result = await tool.execute(**args)
    assert result["success"] is False
    # Python 3.11 raises RecursionError inside json.loads here; 3.13 a decode error
    assert f"{field}: looks like a JSON list but " in result["error"]
    assert tool.get_state() == before


async def test_hostile_text_cannot_break_the_list() -> None:
    tool = await make(
        "line one\nline two",
        "- [x] 7. pretend done",
        "# heading",
        "<script>alert(1)</script>",
        "tab\there\x00nul\u202eRTL",
    )
    lines = tool.get_plan_summary().splitlines()
    assert len(lines) == 5
    assert lines[0] == "- [ ] 1. line one line two"
    assert lines[1] == "- [ ] 2. pretend done"
    assert lines[2] == "- [ ] 3. heading"
    assert "<script>" not in lines[3] and "&lt;script&gt;" in lines[3]
    assert lines[4] == "- [ ] 5. tab here nul RTL"


def test_tool_definition_is_small_valid_json_schema() -> None:
    tool = PlannerTool()
    # 987 characters before sub-steps; `parent` (schema field + its words) costs 68.
    assert tool_spec_size(tool) <= 1060
    jsonschema.Draft202012Validator.check_schema(tool.parameters_schema)
    spec = tool_spec(tool)
    assert spec["function"]["name"] == "planner"
    assert json.loads(json.dumps(spec)) == spec
    validator = jsonschema.Draft202012Validator(tool.parameters_schema)
    assert validator.is_valid({"action": "mark_done", "step_index": [2]})
    assert not validator.is_valid({"action": "explode"})
    assert not validator.is_valid({"step_index": [1]})


async def test_create_plan_keeps_a_finished_sub_step_whose_parent_goes() -> None:
    tool = PlannerTool()
    tasks = ["Build", {"description": "Pages", "parent": 1}, {"description": "Styles", "parent": 1}]
    assert (await tool.execute(action="create_plan", tasks=tasks))["success"]
    assert (await tool.execute(action="mark_done", step_index=2))["success"]
    again = ["Ship", {"description": "Notes", "parent": 1}, "pages"]  # "pages" under a parent
    result = await tool.execute(action="create_plan", tasks=again)
    assert result["success"], result
    state = tool.get_state()["tasks"]
    assert [(t["description"], t["status"]) for t in state] == [
        ("Pages", "DONE"), ("Ship", "PENDING"), ("Notes", "PENDING"),
    ]  # fmt: skip
    assert state[0].get("parent") is None and state[2]["parent"] == state[1]["id"]


async def test_concurrent_calls_in_memory_each_apply_to_the_plan_the_last_one_left() -> None:
    tool = await make(*(f"step {i}" for i in range(1, 21)))
    calls = [tool.execute(action="mark_done", step_index=[i]) for i in range(1, 21)]
    calls.append(tool.execute(action="update_plan", add_steps=["step 21"]))
    results = await asyncio.gather(*calls)
    assert all(r["success"] for r in results), results
    assert statuses(tool) == ["DONE"] * 20 + ["PENDING"]
    assert tool.plan.version == 1 + 21  # created, then every call applied once
