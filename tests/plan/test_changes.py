"""Dependencies, retries, replanning that keeps finished work, lifecycle and times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from taskforce.errors import PlanError
from taskforce.plan import Plan, PlanLimits, StepSpec, StepStatus
from taskforce.tools import PlannerTool

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def plan_with_deps() -> Plan:
    return Plan().replaced(
        [
            "Fetch data",
            {"description": "Clean data", "depends_on": [1]},
            StepSpec("Email the report", depends_on=(1, 2), requires_approval=True),
            "Unrelated chore",
        ]
    )


def test_dependencies_are_stored_as_ids_and_rendered_as_blockers() -> None:
    plan = plan_with_deps()
    assert plan.steps[1].depends_on == (plan.steps[0].id,)
    assert plan.steps[2].requires_approval is True
    assert plan.render().splitlines() == [
        "- [ ] 1. Fetch data",
        "- [ ] 2. Clean data (blocked by 1)",
        "- [ ] 3. Email the report (needs approval) (blocked by 1, 2)",
        "- [ ] 4. Unrelated chore",
    ]


def test_next_and_runnable_steps_follow_dependencies() -> None:
    plan = plan_with_deps()
    assert [s.description for s in plan.runnable_steps()] == ["Fetch data", "Unrelated chore"]
    plan = plan.with_status([1], StepStatus.DONE)
    assert [s.description for s in plan.runnable_steps()] == ["Clean data", "Unrelated chore"]
    plan = plan.with_status([4], StepStatus.IN_PROGRESS)
    step = plan.next_step()
    assert step is not None and step.description == "Unrelated chore"


@pytest.mark.parametrize(
    ("tasks", "fragment"),
    [
        (["A", {"description": "B", "depends_on": [2]}], "task 2 depends on 2"),
        (["A", {"description": "B", "depends_on": [3]}], "task 2 depends on 3"),
        ([{"description": "A", "depends_on": [1]}], "task 1 depends on 1"),
        (["A", {"description": "B", "depends_on": ["x"]}], "depends_on must list step numbers"),
        (["A", {"description": "B", "later": True}], "task 2 has an unknown field 'later'"),
        (["A", {"depends_on": [1]}], "task 2 needs a text description"),
        (["A", 7], "task 2 must be a text or an object with a description, not int"),
        (["A", {"description": "B", "requires_approval": "yes"}], "true or false"),
    ],
)
def test_dependency_violations_name_the_step(tasks: list[Any], fragment: str) -> None:
    plan = plan_with_deps()
    with pytest.raises(PlanError) as info:
        plan.replaced(tasks)
    assert fragment in str(info.value)


def test_step_refs_accept_step_n_strings() -> None:
    plan = Plan().replaced(
        ["A", "B", {"description": "C", "depends_on": ["step_1", "step 2", "2", 1]}]
    )
    assert plan.steps[2].depends_on == (plan.steps[0].id, plan.steps[1].id)


def test_blocked_step_cannot_start_or_finish() -> None:
    plan = plan_with_deps()
    for status in (StepStatus.IN_PROGRESS, StepStatus.DONE):
        with pytest.raises(PlanError, match="step 2 is blocked by step 1") as info:
            plan.with_status([2], status)
        assert info.value.error_type == "blocked"
    plan = plan.with_status([1, 2], StepStatus.DONE)  # a dependency done in the same call counts
    assert plan.progress() == (2, 4)


def test_failed_dependency_blocks_and_skipped_unblocks() -> None:
    plan = plan_with_deps().with_status([1], StepStatus.FAILED, "server down")
    assert plan.blocked_by(plan.steps[1]) == [1]
    plan = plan.with_status([1], StepStatus.SKIPPED)
    assert plan.blocked_by(plan.steps[1]) == []


def test_retries_are_counted_and_bounded() -> None:
    plan = Plan().replaced(["Flaky"])
    limits = PlanLimits(max_retries=2)
    for _ in range(2):
        plan = plan.with_status([1], StepStatus.FAILED, "boom", limits)
        plan = plan.with_status([1], StepStatus.IN_PROGRESS, limits=limits)
    plan = plan.with_status([1], StepStatus.FAILED, "boom again", limits)
    assert plan.steps[0].retries == 2
    with pytest.raises(PlanError, match="retried 2 times; the limit is 2") as info:
        plan.with_status([1], StepStatus.IN_PROGRESS, limits=limits)
    assert info.value.error_type == "retry_limit"
    plan = plan.with_status([1], StepStatus.SKIPPED, "gave up", limits)
    assert plan.status() == "completed"


def test_replan_never_removes_done_steps_and_keeps_their_order() -> None:
    plan = plan_with_deps().with_status([1], StepStatus.DONE)
    with pytest.raises(PlanError, match="step 1 is DONE"):
        plan.edited(remove=[1])
    plan = plan.edited(add=["New first"], insert_at=1, remove=[4])
    assert [s.description for s in plan.steps] == [
        "New first",
        "Fetch data",
        "Clean data",
        "Email the report",
    ]
    assert plan.steps[1].status is StepStatus.DONE


def test_replan_refuses_to_orphan_a_dependency_or_insert_before_it() -> None:
    plan = plan_with_deps()
    with pytest.raises(PlanError, match="depends on step 1, which would be removed"):
        plan.edited(remove=[1])
    with pytest.raises(PlanError, match="before its dependency"):
        plan.edited(add=[StepSpec("Check", depends_on=(2,))], insert_at=1)
    plan = plan.edited(add=[StepSpec("Check", depends_on=(2,))], insert_at=3)
    assert plan.steps[2].depends_on == (plan.steps[1].id,)


def test_revision_counts_replans_and_version_counts_every_change() -> None:
    plan = plan_with_deps()
    assert (plan.version, plan.revision) == (1, 1)
    plan = plan.with_status([1], StepStatus.DONE)
    assert (plan.version, plan.revision) == (2, 1)
    plan = plan.edited(add=["More"])
    assert (plan.version, plan.revision) == (3, 2)


def test_lifecycle_status_progress_and_durations() -> None:
    plan = Plan()
    assert plan.status() == "pending" and plan.progress() == (0, 0)
    plan = plan.replaced(["A", "B"])
    assert plan.status() == "pending"
    plan = plan.with_status([1], StepStatus.IN_PROGRESS, now=T0)
    assert plan.status() == "in_progress"
    plan = plan.with_status([1], StepStatus.DONE, now=T0 + timedelta(seconds=90))
    assert plan.steps[0].duration_seconds() == 90.0
    assert plan.progress() == (1, 2)
    plan = plan.with_status([2], StepStatus.FAILED, "no", now=T0 + timedelta(seconds=100))
    assert plan.status() == "failed"
    plan = plan.with_status([2], StepStatus.DONE, now=T0 + timedelta(seconds=120))
    assert plan.status() == "completed" and plan.progress() == (2, 2)


def test_state_roundtrip_with_new_fields() -> None:
    plan = plan_with_deps().with_status([1], StepStatus.IN_PROGRESS, now=T0)
    state = plan.to_state()
    assert state["tasks"][3] == {
        "id": "s4",
        "description": "Unrelated chore",
        "status": "PENDING",
        "note": None,
    }
    assert Plan.from_state(state).to_state() == state


async def test_planner_tool_accepts_step_objects_and_reports_blocking() -> None:
    tool = PlannerTool(clock=lambda: T0)
    created = await tool.execute(
        action="create_plan",
        tasks=["A", {"description": "B", "depends_on": [1], "requires_approval": True}],
    )
    assert created["success"], created
    blocked = await tool.execute(action="mark_done", step_index=2)
    assert blocked == {
        "success": False,
        "error": "step 2 is blocked by step 1: finish that first. A valid call looks like: "
        'planner({"action": "mark_done", "step_index": [1]})',
        "error_type": "blocked",
    }
    assert (await tool.execute(action="update_plan", add_steps=[{"description": "C"}]))["success"]
    assert tool.plan.steps[2].description == "C"
