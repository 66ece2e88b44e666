from __future__ import annotations

import pytest

from taskforce.errors import PlanError
from taskforce.plan import Plan, PlanLimits, StepStatus


def plan_of(*texts: str) -> Plan:
    plan = Plan()
    plan.replace(list(texts))
    return plan


def test_replace_assigns_fresh_ids_never_reused() -> None:
    plan = plan_of("A", "B")
    first_ids = [s.id for s in plan.steps]
    plan.replace(["C"])
    assert plan.steps[0].id not in first_ids
    assert plan.version == 2


def test_current_step_prefers_in_progress_then_first_pending() -> None:
    plan = plan_of("A", "B", "C")
    assert plan.current_step() is plan.steps[0]
    plan.set_status([1], StepStatus.DONE)
    plan.set_status([3], StepStatus.IN_PROGRESS)
    current = plan.current_step()
    assert current is not None and current.description == "C"
    assert [s.description for s in plan.open_steps()] == ["B", "C"]
    assert plan.progress() == (1, 3)


def test_skipped_counts_as_finished() -> None:
    plan = plan_of("A", "B")
    plan.set_status([1, 2], StepStatus.SKIPPED)
    assert plan.progress() == (2, 2) and plan.open_steps() == []


def test_from_state_legacy_format_and_aliases() -> None:
    plan = Plan.from_state(
        {"tasks": [{"description": "A", "status": "COMPLETED"}, {"description": "B"}]}
    )
    assert [s.status for s in plan.steps] == [StepStatus.DONE, StepStatus.PENDING]
    assert [s.id for s in plan.steps] == ["s1", "s2"]
    plan.edit(add=["C"])
    assert plan.steps[-1].id == "s3"


def test_from_state_keeps_unknown_keys() -> None:
    state = {
        "tasks": [{"id": "s1", "description": "A", "status": "PENDING", "note": None, "x": 1}],
        "version": 3,
        "next_id": 2,
        "owner": "me",
    }
    assert Plan.from_state(state).to_state() == state


def test_from_state_never_reuses_an_existing_id() -> None:
    plan = Plan.from_state(
        {"tasks": [{"id": "s7", "description": "A"}], "next_id": 1, "version": 0}
    )
    plan.edit(add=["B"])
    assert [s.id for s in plan.steps] == ["s7", "s8"]


@pytest.mark.parametrize(
    "state",
    [
        {"tasks": "nope"},
        {"tasks": [{"id": "s1"}]},
        {"tasks": [{"id": "s1", "description": "A", "status": "WEIRD"}]},
        {"tasks": [{"id": "s1", "description": "A"}, {"id": "s1", "description": "B"}]},
        {
            "tasks": [
                {"id": "s1", "description": "A", "depends_on": ["s2"]},
                {"id": "s2", "description": "B"},
            ]
        },
        {"tasks": [{"id": "s1", "description": "A", "depends_on": ["nope"]}]},
    ],
)
def test_from_state_rejects_corrupt_state(state: dict[str, object]) -> None:
    with pytest.raises(PlanError) as info:
        Plan.from_state(state)
    assert info.value.error_type == "corrupt"


def test_limits_are_checked_before_anything_changes() -> None:
    plan = plan_of("A", "B")
    before = plan.to_state()
    with pytest.raises(PlanError, match="limit is 3"):
        plan.edit(add=["C", "D"], limits=PlanLimits(max_steps=3))
    assert plan.to_state() == before


def test_draft_changes_never_reach_the_original() -> None:
    plan = plan_of("A", "B")
    plan.steps[1].model_extra["custom"] = {"k": 1}  # type: ignore[index]
    before = plan.to_state()
    draft = plan.draft()
    draft.set_status([1], StepStatus.DONE, "done")
    draft.edit(add=["C"], remove=[2], reword=(1, "A2"))
    assert plan.to_state() == before
    assert [s.description for s in draft.steps] == ["A2", "C"]
