"""The table-driven goal planner: every PlanResult status, rule tables, session plans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from taskforce.errors import ConfigurationError, UserError
from taskforce.plan import Plan
from taskforce.plan.checks import check_plan_state
from taskforce.planning import (
    Goal,
    RuleTable,
    example_rules,
    load_rules,
    plan_goals,
    results_to_plan,
)
from taskforce.planning.goals import plan_goal, results_to_tasks


def results_to_plan_state(results: Any) -> dict[str, Any]:
    return results_to_plan(results).to_state()


RULES = example_rules()


def test_success_validated_args_and_description() -> None:
    result = plan_goal(Goal("browser", "wait", {"selector": "#login"}, goal_id="g3"), RULES)
    assert result.status == "success" and result.ok and result.reason is None
    assert result.plan is not None
    (action,) = result.plan.actions
    assert action.action_id == "g3_wait_1"
    assert action.intent == "browser_control" and action.action_class == "actuate"
    assert dict(action.args) == {"state": "visible", "selector": "#login"}
    assert action.description == "wait:#login:visible"
    with pytest.raises(TypeError):
        action.args["selector"] = "#other"  # type: ignore[index]


def test_rule_not_found() -> None:
    result = plan_goal(Goal("browser", "teleport", {}), RULES)
    assert result.status == "rule_not_found" and result.plan is None
    assert "teleport" in (result.reason or "")


@pytest.mark.parametrize(
    ("goal", "fragment"),
    [
        (Goal("browser", "navigate", {}), "missing required parameter 'url'"),
        (Goal("browser", "navigate", {"url": ""}), "missing required parameter 'url'"),
        (Goal("browser", "navigate", {"url": None}), "missing required parameter 'url'"),
        (
            Goal("browser", "navigate", {"url": "a.com", "headless": True}),
            "unexpected parameter 'headless'",
        ),
        (Goal("browser", "navigate", {"url": {1, 2}}), "plain JSON"),
        (Goal("browser", "navigate", {"url": float("nan")}), "plain JSON"),
    ],
)
def test_validation_failed(goal: Goal, fragment: str) -> None:
    result = plan_goal(goal, RULES)
    assert result.status == "validation_failed" and result.plan is None
    assert fragment in (result.reason or "")


@pytest.mark.parametrize(
    "goal",
    [
        Goal("browser", "scroll", {"direction": "sideways"}),
        Goal("audio", "mute", {"target": "everything"}),
        Goal("file", "create", {"path": "a.txt", "overwrite": 1}),  # 1 is not True
    ],
)
def test_blocked_by_allowed_values(goal: Goal) -> None:
    result = plan_goal(goal, RULES)
    assert result.status == "blocked" and result.plan is None
    assert "is not allowed" in (result.reason or "")


def test_blocked_by_world_state() -> None:
    goal = Goal("file", "delete", {"path": "x"})
    assert plan_goal(goal, RULES, {"blocked": ["file"]}).status == "blocked"
    assert plan_goal(goal, RULES, {"blocked": ["file.delete"]}).status == "blocked"
    assert plan_goal(goal, RULES, {"blocked": ["browser"]}).status == "success"


def test_goal_is_immutable_and_planning_does_not_change_it() -> None:
    params = {"selector": "#a", "nested": {"k": [1]}}
    goal = Goal("browser", "click", {"selector": "#a"})
    with pytest.raises(AttributeError):
        goal.verb = "wait"  # type: ignore[misc]
    params["selector"] = "#b"
    assert goal.params["selector"] == "#a"
    before = dict(goal.params)
    plan_goal(goal, RULES)
    assert dict(goal.params) == before


def test_args_are_the_single_source_of_truth() -> None:
    result = plan_goal(Goal("browser", "scroll", {"direction": "down"}), RULES)
    assert result.plan is not None
    action = result.plan.actions[0]
    assert action.description == "scroll:down:1"
    assert action.to_dict()["args"] == {"amount": 1, "direction": "down"}


def test_description_template_cannot_reach_attributes(tmp_path: Path) -> None:
    bad = {
        ("x", "y"): {
            "intent": "i",
            "action_class": "observe",
            "description_template": "{p.__class__}",
            "required_params": ["p"],
        }
    }
    with pytest.raises(ConfigurationError, match="declared parameter"):
        RuleTable.from_dict(bad)
    spec = {
        ("x", "y"): {
            "intent": "i",
            "action_class": "observe",
            "description_template": "{p:>999999}",
            "required_params": ["p"],
        }
    }
    with pytest.raises(ConfigurationError, match="format spec"):
        RuleTable.from_dict(spec)


def test_user_rules_from_dict_json_and_yaml(tmp_path: Path) -> None:
    spec: dict[str, Any] = {
        "intent": "mail",
        "action_class": "actuate",
        "description_template": "email {to}: {subject}",
        "required_params": ["to"],
        "default_params": {"subject": "(none)"},
    }
    from_tuple = RuleTable.from_dict({("mail", "send"): spec})
    from_dotted = load_rules({"mail.send": spec})
    (tmp_path / "rules.json").write_text(
        json.dumps({"rules": [{"domain": "mail", "verb": "send", **spec}]})
    )
    (tmp_path / "rules.yaml").write_text(
        "rules:\n  - domain: mail\n    verb: send\n    intent: mail\n    action_class: actuate\n"
        "    description_template: 'email {to}: {subject}'\n    required_params: [to]\n"
        "    default_params: {subject: '(none)'}\n"
    )
    tables = [
        from_tuple,
        from_dotted,
        load_rules(tmp_path / "rules.json"),
        load_rules(tmp_path / "rules.yaml"),
    ]
    for table in tables:
        result = plan_goal(Goal("mail", "send", {"to": "ana@example.com"}), table)
        assert result.plan is not None
        assert result.plan.actions[0].description == "email ana@example.com: (none)"
    assert list(tables[2]) == [("mail", "send")]


@pytest.mark.parametrize(
    ("table", "fragment"),
    [
        ({("a", "b"): {"intent": "i", "action_class": "x"}}, "description_template"),
        (
            {
                ("a", "b"): {
                    "intent": "i",
                    "action_class": "x",
                    "description_template": "t",
                    "typo": 1,
                }
            },
            "unknown key 'typo'",
        ),
        (
            {("a", "b"): {"intent": "i", "action_class": "x", "description_template": "{q}"}},
            "declared parameter",
        ),
        (
            {
                ("a", "b"): {
                    "intent": "i",
                    "action_class": "x",
                    "description_template": "t",
                    "required_params": "p",
                }
            },
            "required_params",
        ),
        ({("a", "b"): {"intent": "", "action_class": "x", "description_template": "t"}}, "intent"),
        (
            {
                ("a", "b"): {
                    "intent": "i",
                    "action_class": "x",
                    "description_template": "t",
                    "default_params": {"d": "z"},
                    "allowed_values": {"d": ["y"]},
                }
            },
            "not an allowed value",
        ),
        ({"nodot": {}}, "rule key"),
        ({("a", "b"): "x"}, "must be a dict"),
    ],
)
def test_bad_rule_tables_fail_at_load(table: dict[Any, Any], fragment: str) -> None:
    with pytest.raises(ConfigurationError, match=fragment):
        RuleTable.from_dict(table)


def test_bad_rule_files(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ConfigurationError, match="invalid JSON"):
        load_rules(tmp_path / "bad.json")
    (tmp_path / "bad.yaml").write_text("rules: [a: b: c")
    with pytest.raises(ConfigurationError, match="invalid YAML"):
        load_rules(tmp_path / "bad.yaml")
    with pytest.raises(ConfigurationError, match="cannot read"):
        load_rules(tmp_path / "missing.json")
    dup = [
        {
            "domain": "a",
            "verb": "b",
            "intent": "i",
            "action_class": "x",
            "description_template": "t",
        }
    ] * 2
    with pytest.raises(ConfigurationError, match="repeated"):
        RuleTable.from_records(dup)


def test_shipped_example_table() -> None:
    assert ("browser", "navigate") in RULES and len(RULES) >= 10
    assert all(rule.key == key for key, rule in RULES.items())
    assert RULES[("file", "delete")].requires_approval is True


def test_results_become_a_session_plan() -> None:
    goals = [
        Goal("browser", "navigate", {"url": "https://example.com"}, goal_id="g0"),
        Goal("browser", "wait", {"selector": "#main"}, goal_id="g1", scope="after:g0"),
        Goal("file", "delete", {"path": "old.txt"}, goal_id="g2", scope="after:g1"),
    ]
    results = plan_goals(goals, RULES)
    assert results_to_tasks(results) == [
        "navigate:https://example.com",
        "wait:#main:visible",
        "delete file:old.txt",
    ]
    state = results_to_plan_state(results)
    check_plan_state(state)
    plan = Plan.from_state(state)
    assert [s.depends_on for s in plan.steps] == [(), ("s1",), ("s2",)]
    assert plan.steps[2].requires_approval is True
    assert plan.steps[0].extra == {
        "action": {
            "action_id": "g0_navigate_1",
            "intent": "browser_control",
            "args": {"url": "https://example.com"},
            "action_class": "actuate",
            "requires_approval": False,
        }
    }
    assert json.dumps(state) == json.dumps(results_to_plan_state(plan_goals(goals, RULES)))


def test_failed_results_do_not_become_a_plan() -> None:
    results = plan_goals([Goal("browser", "navigate", {"url": "a"}), Goal("browser", "fly")], RULES)
    with pytest.raises(UserError, match=r"goal 2 was not planned \(rule_not_found\)"):
        results_to_plan_state(results)
    with pytest.raises(UserError, match="names no earlier goal"):
        results_to_plan_state(plan_goals([Goal("system", "time", scope="after:g9")], RULES))


def test_hostile_goals_never_crash() -> None:
    weird: list[Any] = [
        Goal("", ""),
        Goal("browser", "navigate", {"url": "‮" * 10_000 + "\n---"}),
        Goal(123, None),  # type: ignore[arg-type]
        Goal("browser", "navigate", {1: "x", "url": "a"}),  # type: ignore[dict-item]
        "not a goal",
    ]
    for goal in weird:
        result = plan_goal(goal, RULES)
        assert result.status in {"success", "rule_not_found", "validation_failed", "blocked"}
    long = plan_goal(weird[1], RULES)
    assert long.plan is not None and "\n" not in long.plan.actions[0].description
    nested: Any = []
    for _ in range(5000):
        nested = [nested]
    with pytest.raises(UserError, match="nested too deeply"):
        Goal("browser", "navigate", {"url": nested})


async def test_rule_plan_drives_the_planner_tool() -> None:
    from taskforce.tools.planner import PlannerTool

    goals = [
        Goal("browser", "navigate", {"url": "https://example.com"}, goal_id="g0"),
        Goal("browser", "read", {"selector": "h1"}, goal_id="g1", scope="after:g0"),
    ]
    tool = PlannerTool(initial_state=results_to_plan_state(plan_goals(goals, RULES)))
    blocked = await tool.execute(action="mark_done", step_index=[2])
    assert blocked["success"] is False
    assert (await tool.execute(action="mark_done", step_index=[1]))["success"] is True
    assert (await tool.execute(action="mark_done", step_index=[2]))["success"] is True
    state = tool.get_state()
    assert state["tasks"][1]["action"]["args"] == {"selector": "h1"}
    assert [t["status"] for t in state["tasks"]] == ["DONE", "DONE"]
