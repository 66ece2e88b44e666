"""The plan contract: each rule, fallback, determinism, plan-state checks, hostile input."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taskforce.errors import PlanError
from taskforce.plan import Plan
from taskforce.plan.checks import Rule, check_plan_state
from taskforce.planning import PlanContract, PlanContractError, validate_plan_payload
from taskforce.planning.contract import requested_step_count


def step(
    k: int, *, deps: list[str] | None = None, tool: str = "echo_tool", **extra: Any
) -> dict[str, Any]:
    return {
        "step_id": f"step_{k}",
        "description": f"do part {k}",
        "tool": tool,
        "depends_on": deps or [],
        "deliverable": f"result {k}",
        **extra,
    }


def payload(*steps: dict[str, Any], goal: str = "Greet the user") -> dict[str, Any]:
    return {"goal": goal, "steps": list(steps)}


def rules_of(exc: pytest.ExceptionInfo[PlanContractError]) -> list[tuple[str | None, Rule]]:
    return [(v.step, v.rule) for v in exc.value.violations]


def test_valid_payload_from_text_and_mapping() -> None:
    data = payload(
        step(1, tool="get_time"), step(2, deps=["step_1"]), step(3, deps=["step_1", "step_2"])
    )
    plan = validate_plan_payload(json.dumps(data))
    assert [s.step_id for s in plan.steps] == ["step_1", "step_2", "step_3"]
    assert plan.steps[2].depends_on == ("step_1", "step_2")
    assert plan.tasks() == ["do part 1", "do part 2", "do part 3"]
    assert validate_plan_payload(data) == plan
    assert validate_plan_payload(json.dumps(data).encode()) == plan


def test_identical_input_gives_byte_identical_json() -> None:
    text = json.dumps(payload(step(1), step(2, deps=["step_1"]), goal="Grüße 👋"))
    first = validate_plan_payload(text).to_json()
    assert first == validate_plan_payload(text).to_json()
    assert json.loads(first)["steps"][1]["requires_approval"] is False
    assert "Grüße 👋" in first  # UTF-8, not \u escapes


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        (["step_1", "step_3"], ("step_3", Rule.SKIPPED_INDEX)),
        (["step_2", "step_3"], ("step_2", Rule.MISSING_STEP_1)),
        (["step_2"], ("step_2", Rule.MISSING_STEP_1)),
        (["step_1", "step_1"], ("step_1", Rule.DUPLICATE_STEP)),
        (["step_2", "step_1"], ("step_1", Rule.OUT_OF_ORDER)),
        (["step_1", "step_0"], ("steps[1]", Rule.BAD_STEP_ID)),
        (["step_1", "2"], ("steps[1]", Rule.BAD_STEP_ID)),
        (["step_1", "step_01"], ("steps[1]", Rule.BAD_STEP_ID)),
    ],
)
def test_step_index_rules(ids: list[str], expected: tuple[str, Rule]) -> None:
    steps = [{**step(n), "step_id": i} for n, i in enumerate(ids, start=1)]
    with pytest.raises(PlanContractError) as exc:
        validate_plan_payload(payload(*steps))
    assert expected in rules_of(exc)
    assert expected[0] in str(exc.value) and expected[1].value in str(exc.value)


def test_violation_is_a_plan_error_with_the_rule_as_error_type() -> None:
    with pytest.raises(PlanError) as exc:
        validate_plan_payload(payload({**step(1), "step_id": "step_2"}))
    assert exc.value.error_type == "missing_step_1"


def test_wrong_count() -> None:
    data = payload(step(1), step(2))
    with pytest.raises(PlanContractError) as exc:
        validate_plan_payload(data, expected_steps=3)
    assert (None, Rule.WRONG_COUNT) in rules_of(exc)
    assert "3 steps were requested; got 2" in str(exc.value)
    assert len(validate_plan_payload(data, expected_steps=2).steps) == 2
    with pytest.raises(PlanContractError, match="wrong_count"):
        validate_plan_payload(data, request="Give me a three-step plan")
    assert validate_plan_payload(data, request="a 2-step plan please").steps
    assert validate_plan_payload(data, request="no count here").steps


@pytest.mark.parametrize(
    ("request_text", "count"),
    [
        ("Generate a 3-step plan to bake bread", 3),
        ("do it in five steps", 5),
        ("a 12 step plan", 12),
        ("plan my day", None),
        ("Stepping stones", None),
    ],
)
def test_requested_step_count(request_text: str, count: int | None) -> None:
    assert requested_step_count(request_text) == count


@pytest.mark.parametrize(
    ("deps", "rule"),
    [
        (["step_3"], Rule.FORWARD_DEPENDENCY),
        (["step_2"], Rule.SELF_DEPENDENCY),
        (["step_9"], Rule.UNKNOWN_DEPENDENCY),
        (["step_1", "step_1"], Rule.DUPLICATE_DEPENDENCY),
        ("step_1", Rule.WRONG_TYPE),
        ([1], Rule.WRONG_TYPE),
    ],
)
def test_dependency_rules(deps: Any, rule: Rule) -> None:
    data = payload(step(1), {**step(2), "depends_on": deps}, step(3))
    with pytest.raises(PlanContractError) as exc:
        validate_plan_payload(data)
    assert ("step_2", rule) in rules_of(exc)


def test_unknown_tool_is_refused_by_default() -> None:
    with pytest.raises(PlanContractError) as exc:
        validate_plan_payload(payload(step(1), step(2, tool="web_search")))
    assert rules_of(exc) == [("step_2", Rule.UNKNOWN_TOOL)]
    assert "'web_search' is not in the whitelist (echo_tool, get_time)" in str(exc.value)


def test_unknown_tool_falls_back_and_documents_the_downgrade() -> None:
    contract = PlanContract(on_unknown_tool="fallback")
    plan = validate_plan_payload(payload(step(1), step(2, tool="web_search")), contract=contract)
    downgraded = plan.steps[1]
    assert downgraded.tool == "echo_tool"
    assert "web_search" in downgraded.description and "echo_tool" in downgraded.description
    assert "web_search" in downgraded.deliverable
    assert plan.downgrades == ("step_2: web_search -> echo_tool",)
    assert plan.steps[0].description == "do part 1"


def test_custom_whitelist_and_fallback() -> None:
    contract = PlanContract(
        tools=("search", "answer"), fallback_tool="answer", on_unknown_tool="fallback"
    )
    plan = validate_plan_payload(
        payload(step(1, tool="search"), step(2, tool="echo_tool")), contract=contract
    )
    assert [s.tool for s in plan.steps] == ["search", "answer"]
    with pytest.raises(ValueError, match="fallback_tool"):
        PlanContract(tools=("a",), fallback_tool="b")


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d["steps"][0].update(priority="high"), ("step_1", Rule.EXTRA_FIELD)),
        (lambda d: d.update(notes="x"), (None, Rule.EXTRA_FIELD)),
        (lambda d: d["steps"][0].pop("deliverable"), ("step_1", Rule.MISSING_FIELD)),
        (lambda d: d["steps"][0].pop("tool"), ("step_1", Rule.MISSING_FIELD)),
        (lambda d: d.pop("goal"), (None, Rule.MISSING_FIELD)),
        (lambda d: d["steps"][0].update(description=""), ("step_1", Rule.EMPTY_FIELD)),
        (lambda d: d["steps"][0].update(description=5), ("step_1", Rule.WRONG_TYPE)),
        (lambda d: d["steps"][0].update(requires_approval="yes"), ("step_1", Rule.WRONG_TYPE)),
        (lambda d: d.update(steps=[]), (None, Rule.NO_STEPS)),
        (lambda d: d.update(steps={"step_1": {}}), (None, Rule.WRONG_TYPE)),
        (lambda d: d["steps"].append("step_2"), ("steps[1]", Rule.NOT_AN_OBJECT)),
        (lambda d: d["steps"][0].update(description="a\x00b"), ("step_1", Rule.INVALID_TEXT)),
    ],
)
def test_field_rules(mutate: Any, expected: tuple[str | None, Rule]) -> None:
    data = copy.deepcopy(payload(step(1)))
    mutate(data)
    with pytest.raises(PlanContractError) as exc:
        validate_plan_payload(data)
    assert expected in rules_of(exc)


def test_requires_approval_is_optional_and_kept() -> None:
    plan = validate_plan_payload(payload(step(1, requires_approval=True)))
    assert plan.steps[0].requires_approval is True


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("{", Rule.MALFORMED_JSON),
        ('{"goal": "x", "steps": []} trailing', Rule.MALFORMED_JSON),
        ("Here is the plan: {}", Rule.MALFORMED_JSON),
        ("", Rule.MALFORMED_JSON),
        ("[]", Rule.NOT_AN_OBJECT),
        ('"a plan"', Rule.NOT_AN_OBJECT),
        ('{"goal": "a", "goal": "b", "steps": []}', Rule.DUPLICATE_KEY),
        ('{"goal": NaN, "steps": []}', Rule.MALFORMED_JSON),
        ("[" * 50_000 + "]" * 50_000, Rule.MALFORMED_JSON),
        ("x" * 300_000, Rule.TOO_LARGE),
    ],
)
def test_malformed_payloads(text: str, rule: Rule) -> None:
    with pytest.raises(PlanContractError) as exc:
        validate_plan_payload(text)
    assert exc.value.violations[0].rule is rule


def test_invalid_utf8_bytes() -> None:
    with pytest.raises(PlanContractError) as exc:
        validate_plan_payload(b'{"goal": "\xff"}')
    assert exc.value.violations[0].rule is Rule.MALFORMED_JSON


def test_too_many_steps() -> None:
    steps = [step(k) for k in range(1, 52)]
    with pytest.raises(PlanContractError) as exc:
        validate_plan_payload(payload(*steps))
    assert exc.value.violations[0].rule is Rule.TOO_MANY_STEPS


def test_every_violation_is_listed() -> None:
    data = payload(
        {**step(1), "step_id": "step_2", "tool": "x"}, {**step(2), "step_id": "step_4", "extra": 1}
    )
    with pytest.raises(PlanContractError) as exc:
        validate_plan_payload(data)
    found = set(rules_of(exc))
    assert {
        ("step_2", Rule.MISSING_STEP_1),
        ("step_2", Rule.UNKNOWN_TOOL),
        ("step_4", Rule.EXTRA_FIELD),
    } <= found


def test_to_plan_state_maps_ids_and_dependencies() -> None:
    plan = validate_plan_payload(payload(step(1), step(2, deps=["step_1"], requires_approval=True)))
    state = plan.to_plan().to_state()
    loaded = Plan.from_state(state)
    assert [s.id for s in loaded.steps] == ["s1", "s2"]
    assert loaded.steps[1].depends_on == ("s1",)
    assert loaded.steps[1].requires_approval is True
    check_plan_state(state)
    fresh = Plan().replaced(plan.task_specs())
    assert fresh.steps[1].depends_on == ("s1",) and fresh.steps[1].requires_approval


# ---- plan states (shared with the planner tool and Plan.md import) --------------------


def test_check_plan_state_accepts_valid_and_empty() -> None:
    check_plan_state(None)
    check_plan_state({"tasks": []})
    check_plan_state(
        {"tasks": [{"id": "s1"}, {"id": "s2", "depends_on": ["s1"], "requires_approval": True}]}
    )


@pytest.mark.parametrize(
    ("tasks", "expected"),
    [
        ([{"id": "s1", "depends_on": ["s2"]}, {"id": "s2"}], ("s1", Rule.FORWARD_DEPENDENCY)),
        ([{"id": "s1", "depends_on": ["s1"]}], ("s1", Rule.SELF_DEPENDENCY)),
        ([{"id": "s1", "depends_on": ["s7"]}], ("s1", Rule.UNKNOWN_DEPENDENCY)),
        ([{"id": "s1"}, {"id": "s1"}], ("s1", Rule.DUPLICATE_STEP)),
        ([{"id": ""}], ("step 1", Rule.BAD_STEP_ID)),
        (["s1"], ("step 1", Rule.BAD_STEP_ID)),
        ([{"id": "s1", "requires_approval": "no"}], ("s1", Rule.WRONG_TYPE)),
    ],
)
def test_check_plan_state_violations(tasks: list[Any], expected: tuple[str, Rule]) -> None:
    with pytest.raises(PlanContractError) as exc:
        check_plan_state({"tasks": tasks})
    assert expected in rules_of(exc)


# ---- hostile input never crashes ------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_any_text_is_a_plan_or_a_contract_error(text: str) -> None:
    try:
        plan = validate_plan_payload(text)
    except PlanContractError as exc:
        assert exc.violations
    else:
        assert plan.steps


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_any_json_is_a_plan_or_a_contract_error(value: Any) -> None:
    for candidate in (value, {"goal": "g", "steps": value}, {"goal": "g", "steps": [value]}):
        try:
            validate_plan_payload(json.dumps(candidate))
        except PlanContractError as exc:
            assert all(str(v) for v in exc.violations)


def test_hostile_unicode_goal_is_kept_exactly() -> None:
    goal = "‮evil\u202e ✓"
    goal += ' \U0001d518\U0001d52b\U0001d526\U0001d520\U0001d52c\U0001d521\U0001d522 "quoted"'
    goal += " ---\n## not a heading"
    plan = validate_plan_payload(payload(step(1), goal=goal))
    assert plan.goal == goal
    assert json.loads(plan.to_json())["goal"] == goal


def test_lone_surrogate_is_refused_not_crashing() -> None:
    with pytest.raises(PlanContractError) as exc:
        validate_plan_payload('{"goal": "\\ud800", "steps": []}')
    assert (None, Rule.INVALID_TEXT) in rules_of(exc)
