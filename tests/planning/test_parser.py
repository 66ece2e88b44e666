"""The tolerant plan parser on the replies models really send, and on junk."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taskforce.plan import Plan
from taskforce.plan.checks import check_plan_state
from taskforce.planning import parse_plan_reply
from taskforce.planning.parser import single_step_plan

GOAL = "Write a report on solar power"


@pytest.mark.parametrize(
    ("reply", "source", "tasks"),
    [
        ('["Research", "Outline", "Write"]', "json", ["Research", "Outline", "Write"]),
        (
            'Here is my plan:\n```json\n{"steps": [{"description": "Research"}, '
            '{"description": "Write"}]}\n```',
            "json",
            ["Research", "Write"],
        ),
        (
            '{"plan": [{"step": 1, "task": "Find data"}, {"step": 2, "task": "Chart it"}]}',
            "json",
            ["Find data", "Chart it"],
        ),
        ('Sure! [{"title": "A"}, {"action": "B"}] Let me know.', "json", ["A", "B"]),
        ('{"step_1": "Collect", "step_2": "Sort"}', "json", ["Collect", "Sort"]),
        (
            "1. Research sources\n2. Draft outline\n3. Write the report",
            "list",
            ["Research sources", "Draft outline", "Write the report"],
        ),
        ("Plan:\n1) Research\n2) Write", "list", ["Research", "Write"]),
        ("Step 1: Research\nStep 2: Write\n", "list", ["Research", "Write"]),
        ("### Step 1: Research\ndetails\n### Step 2: Write", "list", ["Research", "Write"]),
        (
            "1. **Research**: find sources\n   - use the library\n   - and the web\n"
            "2. **Write** it up",
            "list",
            ["Research: find sources", "Write it up"],
        ),
        ("- Research\n- Write\n  - sub point", "list", ["Research", "Write"]),
        ("* a\n* b", "list", ["a", "b"]),
        ("• first\n• second", "list", ["first", "second"]),
        ("- [ ] Research\n- [x] Write", "list", ["Research", "Write"]),
        ("I'll just write it directly.", "single", [GOAL]),
        ("", "single", [GOAL]),
        ('{"steps": []}', "single", [GOAL]),
        ('{"answer": 42}', "single", [GOAL]),
    ],
)
def test_reply_shapes(reply: str, source: str, tasks: list[str]) -> None:
    parsed = parse_plan_reply(reply, GOAL)
    assert parsed.source == source
    assert parsed.tasks() == tasks
    assert parsed.goal == GOAL


def test_json_is_preferred_over_a_list_in_the_same_reply() -> None:
    reply = '1. ignore me\n2. and me\n```json\n["Real A", "Real B"]\n```'
    assert parse_plan_reply(reply, GOAL).tasks() == ["Real A", "Real B"]


def test_json_fields_tools_dependencies_outcomes() -> None:
    reply = json.dumps(
        {
            "steps": [
                {
                    "step_id": "step_1",
                    "description": "Fetch",
                    "tool": "http_get",
                    "expected_outcome": "raw data",
                },
                {
                    "step_id": "step_2",
                    "description": "Parse",
                    "depends_on": ["step_1"],
                    "tools_needed": ["parser"],
                },
                {
                    "step_id": "step_3",
                    "description": "Report",
                    "dependencies": [1, 2, "step_3", "step_9"],
                },
            ]
        }
    )
    parsed = parse_plan_reply(reply, GOAL)
    assert [s.tool for s in parsed.steps] == ["http_get", "parser", None]
    assert parsed.steps[0].expected_outcome == "raw data"
    assert parsed.steps[1].depends_on == (1,)
    assert parsed.steps[2].depends_on == (1, 2)
    assert any("step_9" in w for w in parsed.warnings) and any(
        "step_3" in w for w in parsed.warnings
    )
    state = parsed.to_plan().to_state()
    check_plan_state(state)
    plan = Plan.from_state(state)
    assert plan.steps[2].depends_on == ("s1", "s2")
    specs = parsed.task_specs()
    assert specs[0] == {"description": "Fetch"} and specs[2]["depends_on"] == [1, 2]
    fresh = Plan().replaced(specs)
    assert [s.depends_on for s in fresh.steps] == [(), ("s1",), ("s1", "s2")]


def test_forward_dependencies_are_dropped_not_fatal() -> None:
    reply = '[{"description": "A", "depends_on": ["step_2"]}, {"description": "B"}]'
    parsed = parse_plan_reply(reply, GOAL)
    assert parsed.steps[0].depends_on == ()
    assert parsed.warnings


def test_max_steps_cuts_and_min_steps_falls_through() -> None:
    reply = json.dumps([f"step {n}" for n in range(1, 31)])
    parsed = parse_plan_reply(reply, GOAL, max_steps=5)
    assert len(parsed.steps) == 5
    assert "30 steps cut to 5" in parsed.warnings
    two = parse_plan_reply("1. a\n2. b", GOAL, min_steps=3)
    assert two.source == "single" and two.tasks() == [GOAL]
    with pytest.raises(ValueError):
        parse_plan_reply("x", GOAL, min_steps=3, max_steps=2)


def test_cut_dependencies_stay_inside_the_kept_steps() -> None:
    reply = json.dumps(
        [
            {"description": "a"},
            {"description": "b", "depends_on": [1]},
            {"description": "c", "depends_on": [1, 2]},
        ]
    )
    parsed = parse_plan_reply(reply, GOAL, max_steps=2)
    check_plan_state(parsed.to_plan().to_state())


def test_step_text_is_cleaned_and_bounded() -> None:
    reply = json.dumps(["line one\nline two\x00", "x" * 2000, "<script>alert(1)</script>"])
    parsed = parse_plan_reply(reply, GOAL)
    assert parsed.tasks()[0] == "line one line two"
    assert len(parsed.tasks()[1]) <= 500 and parsed.tasks()[1].endswith("…")
    plan = Plan.from_state(parsed.to_plan().to_state())
    assert "<script>" not in plan.render()


def test_single_step_without_a_goal_uses_the_reply() -> None:
    assert parse_plan_reply("Just do the thing.\nThanks").tasks() == ["Just do the thing."]
    assert parse_plan_reply("").tasks() == ["Complete the task"]
    assert single_step_plan("Say hi").tasks() == ["Say hi"]


def test_deterministic() -> None:
    reply = "1. a\n2. b\n3. c"
    assert parse_plan_reply(reply, GOAL) == parse_plan_reply(reply, GOAL)


@pytest.mark.parametrize(
    "reply",
    [
        "[" * 100_000,
        "{" * 100_000,
        '{"steps": ' * 5000,
        "1. " + "a" * 1_000_000,
        "\n".join(f"{n}. step" for n in range(100_000)),
        "```json\n" + "[" * 10_000 + "\n```",
        '[{"description": {"nested": [[[["deep"]]]]}}, null, 5, {"description": "ok"}]',
        "\ud800\udfff\u202e\u0000 1. x\n2. y",
    ],
)
def test_hostile_replies_never_crash(reply: str) -> None:
    parsed = parse_plan_reply(reply, GOAL)
    assert 1 <= len(parsed.steps) <= 20
    assert all(s.description for s in parsed.steps)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=500), st.text(max_size=50))
def test_any_reply_gives_a_bounded_plan(reply: str, goal: str) -> None:
    parsed = parse_plan_reply(reply, goal, max_steps=7)
    assert 1 <= len(parsed.steps) <= 7
    check_plan_state(parsed.to_plan().to_state())
    Plan.from_state(parsed.to_plan().to_state())
