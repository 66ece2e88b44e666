"""Strict function calling: the strict definition obeys OpenAI's rules, and the planner
accepts what a strict model sends (every parameter, nulls and placeholders) for every action.
"""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest

from taskforce.tools import FunctionTool, PlannerTool, tool_spec
from taskforce.tools.strict import to_strict
from tests.tools.strict_rules import strict_violations

NULLS: dict[str, Any] = {
    "tasks": None,
    "step_index": None,
    "status": None,
    "note": None,
    "add_steps": None,
    "insert_at": None,
    "remove_indices": None,
    "text": None,
}
# What strict models send instead of null for a parameter they do not mean to set.
PLACEHOLDERS: dict[str, Any] = {
    "tasks": [],
    "step_index": [],
    "status": "DONE",
    "note": "",
    "add_steps": [],
    "insert_at": 0,
    "remove_indices": [],
    "text": "",
}


def strict_args(action: str, fill: dict[str, Any], **given: Any) -> dict[str, Any]:
    return {"action": action, **fill, **given}


def test_the_planners_strict_definition_follows_openais_rules() -> None:
    spec = tool_spec(PlannerTool(), strict=True)
    assert strict_violations(spec) == []
    parameters = spec["function"]["parameters"]
    assert set(parameters["required"]) == {"action", *NULLS}
    jsonschema.Draft202012Validator.check_schema(parameters)
    validator = jsonschema.Draft202012Validator(parameters)
    for action in ("create_plan", "mark_done", "read_plan", "update_plan"):
        validator.validate(strict_args(action, NULLS))  # null is a valid "not given"
    validator.validate(
        strict_args(
            "create_plan",
            NULLS,
            tasks=[
                "a",
                {"description": "b", "depends_on": [1], "requires_approval": None, "parent": None},
            ],
        )
    )
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"action": "read_plan"})  # strict: every parameter is sent


def test_the_checker_catches_what_strict_mode_refuses() -> None:
    loose = tool_spec(PlannerTool())
    problems = strict_violations(loose)
    assert any("strict" in p for p in problems)
    assert any("every property must be required" in p for p in problems)
    assert any("additionalProperties" in p for p in problems)
    bad = tool_spec(PlannerTool(), strict=True)
    bad["function"]["parameters"]["properties"]["note"]["default"] = ""
    bad["function"]["parameters"]["properties"]["status"]["enum"].remove(None)
    assert {p.split(": ", 1)[1] for p in strict_violations(bad)} == {
        "unsupported keyword 'default'",
        "nullable but its enum has no null",
    }


def test_the_non_strict_definition_is_unchanged() -> None:
    spec = tool_spec(PlannerTool())
    assert "strict" not in spec["function"]
    assert spec["function"]["parameters"]["required"] == ["action"]


def test_any_tool_gets_a_strict_definition() -> None:
    def search(query: str, limit: int = 5, tags: list[str] | None = None) -> str:
        """Search the notes."""
        return query

    spec = tool_spec(FunctionTool(search), strict=True)
    assert strict_violations(spec) == []
    properties = spec["function"]["parameters"]["properties"]
    assert properties["query"]["type"] == "string"
    assert "null" in properties["limit"]["type"]
    with pytest.raises(ValueError, match="object at the root"):
        to_strict({"type": "string"})
    original = {"type": "object", "properties": {"a": {"type": "string", "default": "x"}}}
    before = copy.deepcopy(original)
    to_strict(original)
    assert original == before  # a copy, never the caller's schema


@pytest.mark.parametrize("fill", [NULLS, PLACEHOLDERS], ids=["nulls", "placeholders"])
async def test_every_action_works_with_strict_shaped_arguments(fill: dict[str, Any]) -> None:
    tool = PlannerTool()
    created = await tool.execute(**strict_args("create_plan", fill, tasks=["A", "B", "C"]))
    assert created["success"], created
    started = await tool.execute(
        **strict_args("mark_done", fill, step_index=[1], status="IN_PROGRESS")
    )
    assert started["success"], started
    done = await tool.execute(**strict_args("mark_done", fill, step_index=[1]))
    assert done["success"] and done["message"] == "Step 1 marked DONE.", done
    read = await tool.execute(**strict_args("read_plan", fill))
    assert read["output"] == "- [x] 1. A\n- [ ] 2. B\n- [ ] 3. C"
    # insert_at 0 with steps to add is refused (it may mean "at the start"): null appends
    added = await tool.execute(**strict_args("update_plan", fill, add_steps=["D"], insert_at=None))
    assert added["success"] and added["output"].endswith("- [ ] 4. D"), added
    reworded = await tool.execute(**strict_args("update_plan", fill, step_index=[2], text="B2"))
    assert reworded["success"] and "- [ ] 2. B2" in reworded["output"], reworded
    removed = await tool.execute(**strict_args("update_plan", fill, remove_indices=[3]))
    assert removed["success"], removed
    inserted = await tool.execute(
        **strict_args("update_plan", fill, add_steps=["First"], insert_at=2)
    )
    assert inserted["output"] == "- [x] 1. A\n- [ ] 2. First\n- [ ] 3. B2\n- [ ] 4. D"


async def test_strict_step_objects_with_null_fields() -> None:
    tool = PlannerTool()
    tasks = [
        {"description": "Build", "depends_on": None, "requires_approval": None},
        {"description": "Deploy", "depends_on": [1], "requires_approval": True},
    ]
    result = await tool.execute(**strict_args("create_plan", NULLS, tasks=tasks))
    assert result["success"], result
    state = tool.get_state()["tasks"]
    assert state[1]["depends_on"] == ["s1"] and state[1]["requires_approval"] is True
    add = [{"description": "Verify", "depends_on": [2], "requires_approval": False}]
    updated = await tool.execute(**strict_args("update_plan", NULLS, add_steps=add))
    assert updated["success"] and "3. Verify (blocked by 2)" in updated["output"], updated


REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("create_plan", {"tasks": ["A"], "status": "FAILED"}, "parameter 'status'"),
    ("create_plan", {"tasks": ["A"], "note": "why"}, "parameter 'note'"),
    ("create_plan", {"tasks": ["A"], "step_index": [2]}, "parameter 'step_index'"),
    ("create_plan", {"tasks": ["A"], "insert_at": 2}, "parameter 'insert_at'"),
    ("create_plan", {"tasks": ["A"], "add_steps": ["x"]}, "parameter 'add_steps'"),
    ("create_plan", {"tasks": ["A"], "text": "x"}, "parameter 'text'"),
    ("mark_done", {"step_index": [1], "tasks": ["x"]}, "parameter 'tasks'"),
    ("mark_done", {"step_index": [1], "remove_indices": [1]}, "parameter 'remove_indices'"),
    ("read_plan", {"status": "SKIPPED"}, "parameter 'status'"),
    ("update_plan", {"add_steps": ["x"], "insert_at": None, "note": "n"}, "parameter 'note'"),
    ("update_plan", {"add_steps": ["x"], "insert_at": 0}, "insert_at 0 is out of bounds"),
    ("update_plan", {"step_index": [2]}, "empty"),  # text "" with a step: empty text
    ("update_plan", {"step_index": [0], "text": "new"}, "step_index"),
    ("mark_done", {"step_index": [0]}, "step_index"),
    ("mark_done", {}, "step_index"),
]


@pytest.mark.parametrize(("action", "given", "named"), REFUSED)
async def test_a_real_value_that_does_not_apply_is_still_refused(
    action: str, given: dict[str, Any], named: str
) -> None:
    tool = PlannerTool()
    await tool.execute(action="create_plan", tasks=["A", "B"])
    before = tool.get_state()
    result = await tool.execute(**strict_args(action, PLACEHOLDERS, **given))
    assert not result["success"] and named in result["error"], result
    assert tool.get_state() == before
    assert tool.validate_params(**strict_args(action, NULLS, **given))[0] is False


async def test_minimal_arguments_from_a_test_model_get_a_fixable_error() -> None:
    tool = PlannerTool()
    result = await tool.execute(action="create_plan")
    assert not result["success"] and "tasks" in result["error"]
    assert (await tool.execute(action="read_plan"))["output"] == "No active plan."
