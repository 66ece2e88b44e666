"""Sub-steps: nesting in the checklist, parents following their sub-steps, replanning."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from taskforce.errors import PlanError
from taskforce.plan import Plan, StepStatus, lifecycle_events, parse_checklist
from taskforce.plan.formats import from_markdown, lost_in, to_codex, to_markdown

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
D, S, P, IP, F = (
    StepStatus.DONE,
    StepStatus.SKIPPED,
    StepStatus.PENDING,
    StepStatus.IN_PROGRESS,
    StepStatus.FAILED,
)


def site() -> Plan:
    """1 Build (2 Pages, 3 Style (4 Colours)), 5 Deploy after 1."""
    return Plan().replaced(
        [
            "Build the site",
            {"description": "Write the pages", "parent": 1},
            {"description": "Style them", "parent": 1},
            {"description": "Pick colours", "parent": 3},
            {"description": "Deploy", "depends_on": [1]},
        ]
    )


def statuses(plan: Plan) -> list[str]:
    return [s.status.value for s in plan.steps]


def test_nested_checklist_is_an_indented_task_list_with_rollups() -> None:
    plan = site().with_status([2], D, "3 pages", now=NOW)
    assert plan.render().splitlines() == [
        "- [ ] 1. Build the site (1/2 done)",
        "  - [x] 2. Write the pages — 3 pages",
        "  - [ ] 3. Style them (0/1 done)",
        "    - [ ] 4. Pick colours",
        "- [ ] 5. Deploy (blocked by 1)",
    ]
    items = parse_checklist(plan.render())
    assert [i.parent for i in items] == [None, 1, 1, 3, None]
    assert items[0].text == "Build the site"
    assert plan.checklist()[3].depth == 2


def test_markdown_round_trip_keeps_the_tree_and_owners() -> None:
    plan = site().with_status([4], IP, now=NOW, actor=_worker("alice"))
    text = to_markdown(plan)
    assert "(in progress by alice)" in text
    back = from_markdown(text)
    assert [s.parent for s in back.steps] == [None, "s1", "s1", "s3", None]
    assert back.steps[3].owner == "alice" and back.steps[3].status is IP
    assert to_markdown(back) == text


def test_flat_formats_say_what_they_lose() -> None:
    plan = site().with_status([2], D, "done", now=NOW)
    assert [e["step"] for e in to_codex(plan)["plan"]][:2] == ["Build the site", "Write the pages"]
    lost = lost_in("codex", plan)
    assert lost[0] == "nesting: 3 sub-steps become top-level items"
    assert "notes" in lost and "dependencies" in lost
    assert lost_in("acp", Plan().replaced(["a"])) == []
    with pytest.raises(ValueError):
        lost_in("yaml", plan)


def test_the_last_sub_step_done_completes_its_parents() -> None:
    plan = site().with_status([2], D, now=NOW)
    assert statuses(plan)[:4] == ["PENDING", "DONE", "PENDING", "PENDING"]
    done = plan.with_status([4], D, now=NOW)
    assert statuses(done)[:4] == ["DONE", "DONE", "DONE", "DONE"]
    kinds = [(e["kind"], e["step"]) for e in lifecycle_events(plan, done)]
    assert kinds == [("step_completed", 1), ("step_completed", 3), ("step_completed", 4)]
    assert done.runnable_steps()[0].description == "Deploy"


def test_all_sub_steps_skipped_skip_the_parent() -> None:
    plan = site().with_status([2, 4], S, now=NOW)
    assert statuses(plan)[:4] == ["SKIPPED", "SKIPPED", "SKIPPED", "SKIPPED"]


def test_a_parent_is_not_done_while_sub_steps_are_open() -> None:
    with pytest.raises(PlanError, match="step 1 has open sub-steps 2, 3: a parent is done"):
        site().with_status([1], D, now=NOW)
    together = site().with_status([1, 2, 3, 4], D, now=NOW)
    assert statuses(together)[:4] == ["DONE"] * 4


def test_work_happens_in_the_leaves() -> None:
    plan = site()
    assert [s.description for s in plan.runnable_steps()] == ["Write the pages", "Pick colours"]
    assert plan.next_step() is not None and plan.next_step().description == "Write the pages"  # type: ignore[union-attr]
    with pytest.raises(PlanError, match="step 1 has sub-steps: start one of them \\(step 2\\)"):
        plan.with_status([1], IP, now=NOW)


def test_sub_steps_of_a_blocked_parent_wait_too() -> None:
    plan = Plan().replaced(
        [
            "Research",
            {"description": "Write", "depends_on": [1]},
            {"description": "Draft", "parent": 2},
        ]
    )
    assert [s.description for s in plan.runnable_steps()] == ["Research"]
    with pytest.raises(PlanError, match="step 3 is blocked by step 1"):
        plan.with_status([3], IP, now=NOW)
    assert plan.render().splitlines()[2] == "  - [ ] 3. Draft"  # the parent shows the blocker


def test_skipping_a_parent_skips_its_open_sub_steps() -> None:
    plan = site().with_status([2], D, now=NOW).with_status([1], S, now=NOW)
    assert statuses(plan)[:4] == ["SKIPPED", "DONE", "SKIPPED", "SKIPPED"]
    started = site().with_status([4], IP, now=NOW)
    with pytest.raises(PlanError, match="step 4, a sub-step of what you skip, is in progress"):
        started.with_status([1], S, now=NOW)


def test_removing_a_parent_removes_its_sub_steps() -> None:
    plan = Plan().replaced(
        ["A", {"description": "B", "parent": 1}, {"description": "B2", "parent": 1}, "C"]
    )
    assert [s.description for s in plan.edited(remove=[1]).steps] == ["C"]
    done = plan.with_status([2], D, now=NOW)
    with pytest.raises(PlanError, match="step 2 is DONE"):
        done.edited(remove=[1])


def test_removing_the_open_sub_step_completes_the_parent() -> None:
    plan = site().with_status([2], D, now=NOW).edited(remove=[3])
    assert statuses(plan)[:2] == ["DONE", "DONE"]


def test_added_sub_steps_go_under_their_parent_and_reopen_it() -> None:
    plan = (
        Plan().replaced(["A", {"description": "A1", "parent": 1}, "B"]).with_status([2], D, now=NOW)
    )
    assert statuses(plan) == ["DONE", "DONE", "PENDING"]
    grown = plan.edited(add=[{"description": "A2", "parent": 1}])
    assert [s.description for s in grown.steps] == ["A", "A1", "A2", "B"]
    assert statuses(grown) == ["PENDING", "DONE", "PENDING", "PENDING"]
    assert grown.render().splitlines()[0] == "- [ ] 1. A (1/2 done)"


def test_parent_zero_is_no_parent() -> None:
    # small models fill every field of a step object: 0 (no step has it) means "none"
    tasks = [
        {"description": "A", "depends_on": [], "requires_approval": False, "parent": 0},
        {"description": "B", "parent": 0},
        {"description": "B1", "parent": 2},
    ]
    plan = Plan().replaced(tasks)
    assert [s.parent for s in plan.steps] == [None, None, "s2"]
    assert plan.render().splitlines()[2] == "  - [ ] 3. B1"


def test_misplaced_or_looping_sub_steps_are_refused() -> None:
    cases: list[tuple[list[Any], str]] = [
        ([{"description": "A", "parent": 1}], "task 1 cannot have a parent"),
        (["A", {"description": "B", "parent": 3}, "C"], "task 2 has parent 3"),
        (
            ["A", "B", {"description": "C", "parent": 1}],
            "task 3 is a sub-step of task 1 but does not follow its other sub-steps",
        ),
        (
            ["A", {"description": "B", "parent": 1, "depends_on": [1]}],
            "task 2 depends on task 1, which it is part of",
        ),
    ]
    for tasks, message in cases:
        with pytest.raises(PlanError, match=message):
            Plan().replaced(tasks)
    deep: list[Any] = ["L0"] + [{"description": f"L{i}", "parent": i} for i in range(1, 7)]
    with pytest.raises(PlanError, match="nested 6 levels deep; the limit is 5"):
        Plan().replaced(deep)
    plan = Plan().replaced(["A", {"description": "A1", "parent": 1}, "B"])
    with pytest.raises(PlanError, match="added step 1 is a sub-step of step 1 but does not"):
        plan.edited(add=[{"description": "late", "parent": 1}], insert_at=4)


def test_a_stored_tree_is_checked_when_read() -> None:
    state = site().to_state()
    state["tasks"][4]["parent"] = "s2"  # Deploy under "Write the pages", after step 4
    with pytest.raises(PlanError, match="does not follow its other sub-steps"):
        Plan.from_state(state)
    assert Plan.from_state(site().to_state()) == site()


def _worker(name: str) -> Any:
    from taskforce.plan.step import Actor

    return Actor(name, 60.0)
