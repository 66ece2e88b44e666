from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from types import MappingProxyType

import pytest

from taskforce.errors import PlanError
from taskforce.plan import Plan, PlanLimits, Step, StepStatus
from taskforce.plan.step import Actor


def plan_of(*texts: str) -> Plan:
    return Plan().replaced(list(texts))


def test_replace_assigns_fresh_ids_never_reused() -> None:
    plan = plan_of("A", "B")
    first_ids = [s.id for s in plan.steps]
    plan = plan.replaced(["C"])
    assert plan.steps[0].id not in first_ids
    assert plan.version == 2


def test_a_plan_is_immutable_and_a_change_shares_untouched_steps() -> None:
    plan = plan_of("A", "B", "C")
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.version = 9  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.steps[0].status = StepStatus.DONE  # type: ignore[misc]
    done = plan.with_status([2], StepStatus.DONE)
    assert plan.steps[1].status is StepStatus.PENDING  # the original is untouched
    assert done.steps[0] is plan.steps[0] and done.steps[2] is plan.steps[2]
    assert done.steps[1] is not plan.steps[1]


def test_next_step_prefers_in_progress_then_first_pending() -> None:
    plan = plan_of("A", "B", "C")
    assert plan.next_step() is plan.steps[0]
    plan = plan.with_status([1], StepStatus.DONE).with_status([3], StepStatus.IN_PROGRESS)
    current = plan.next_step()
    assert current is not None and current.description == "C"
    assert [s.description for s in plan.open_steps()] == ["B", "C"]
    assert plan.progress() == (1, 3)


def test_skipped_counts_as_finished() -> None:
    plan = plan_of("A", "B").with_status([1, 2], StepStatus.SKIPPED)
    assert plan.progress() == (2, 2) and plan.open_steps() == []


def test_from_state_legacy_format_and_aliases() -> None:
    plan = Plan.from_state(
        {"tasks": [{"description": "A", "status": "COMPLETED"}, {"description": "B"}]}
    )
    assert [s.status for s in plan.steps] == [StepStatus.DONE, StepStatus.PENDING]
    assert [s.id for s in plan.steps] == ["s1", "s2"]
    assert plan.edited(add=["C"]).steps[-1].id == "s3"


def test_from_state_keeps_unknown_keys() -> None:
    state = {
        "tasks": [{"id": "s1", "description": "A", "status": "PENDING", "note": None, "x": 1}],
        "version": 3,
        "next_id": 2,
        "owner": "me",
    }
    plan = Plan.from_state(state)
    assert plan.steps[0].extra == {"x": 1} and plan.extra == {"owner": "me"}
    assert plan.to_state() == state


def test_to_state_is_a_fresh_copy() -> None:
    plan = Plan.from_state(
        {"tasks": [{"id": "s1", "description": "A", "depends_on": [], "x": {"k": [1]}}]}
    )
    state = plan.to_state()
    state["tasks"][0]["x"]["k"].append(2)
    state["tasks"][0]["description"] = "changed"
    assert plan.to_state()["tasks"][0] == {
        "id": "s1",
        "description": "A",
        "status": "PENDING",
        "note": None,
        "x": {"k": [1]},
    }


def test_from_state_never_reuses_an_existing_id() -> None:
    plan = Plan.from_state(
        {"tasks": [{"id": "s7", "description": "A"}], "next_id": 1, "version": 0}
    )
    assert [s.id for s in plan.edited(add=["B"]).steps] == ["s7", "s8"]


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
        {"tasks": [{"id": "s1", "description": "A", "retries": "2"}]},
        {"tasks": [{"id": "s1", "description": "A", "started_at": "yesterday"}]},
        {"tasks": [], "version": -1},
        {"tasks": ["junk"]},
    ],
)
def test_from_state_rejects_corrupt_state(state: dict[str, object]) -> None:
    with pytest.raises(PlanError) as info:
        Plan.from_state(state)
    assert info.value.error_type == "corrupt"
    assert str(info.value).startswith("invalid plan state: ")


def test_from_state_turns_lone_surrogates_into_replacement_characters() -> None:
    plan = Plan.from_state(
        {"tasks": [{"id": "s\ud800", "description": "bad \ud83d emoji", "note": "\udcff"}]}
    )
    step = plan.steps[0]
    assert (step.id, step.description, step.note) == ("s\ufffd", "bad \ufffd emoji", "\ufffd")
    plan.render().encode("utf-8")  # storable and printable


def test_limits_are_checked_before_anything_changes() -> None:
    plan = plan_of("A", "B")
    with pytest.raises(PlanError, match="limit is 3"):
        plan.edited(add=["C", "D"], limits=PlanLimits(max_steps=3))


def test_status_parse_accepts_aliases_and_names_the_choices() -> None:
    assert StepStatus.parse(" in progress ") is StepStatus.IN_PROGRESS
    assert StepStatus.parse("completed") is StepStatus.DONE
    assert StepStatus.parse("running") is StepStatus.IN_PROGRESS
    with pytest.raises(ValueError, match="use one of PENDING, IN_PROGRESS, DONE"):
        StepStatus.parse("WEIRD")


def test_render_is_computed_once_per_plan() -> None:
    plan = plan_of("A", "B")
    assert plan.render() is plan.render()
    assert plan.render() == "- [ ] 1. A\n- [ ] 2. B"


def test_step_lookup_and_numbers() -> None:
    plan = plan_of("A", "B")
    assert plan.step("s2").description == "B"
    assert plan.number_of(plan.steps[1]) == 2
    with pytest.raises(KeyError):
        plan.step("nope")
    assert Step(id="x", description="y").extra == {}


def test_a_status_change_keeps_every_field_of_the_plan_but_its_steps_and_version() -> None:
    plan = dataclasses.replace(
        Plan().replaced(["a", "b"]), revision=4, next_id=9, extra=MappingProxyType({"x-k": 1})
    )
    changed = plan.with_status([1], StepStatus.DONE)
    for field in dataclasses.fields(Plan):  # a field added later is checked too
        if field.name not in ("steps", "version"):
            assert getattr(changed, field.name) == getattr(plan, field.name), field.name
    assert changed.version == plan.version + 1 and changed.steps[1] is plan.steps[1]


def test_setting_a_status_a_step_already_has_changes_nothing() -> None:
    t1, t2 = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    done = Plan().replaced(["a", "b"]).with_status([1], StepStatus.DONE, "ok", now=t1)
    assert done.with_status([1], StepStatus.DONE, now=t2) is done  # completed at t1 still
    assert done.with_status([1], StepStatus.DONE, "ok", now=t2) is done
    assert done.steps[0].completed_at == t1
    renoted = done.with_status([1], StepStatus.DONE, "better", now=t2)
    assert renoted.version == done.version + 1 and renoted.steps[0].note == "better"
    both = done.with_status([1, 2], StepStatus.DONE, now=t2)  # one of them is news
    assert both.version == done.version + 1 and both.steps[0].completed_at == t2


def test_setting_a_status_again_still_does_what_else_it_would() -> None:
    parent = Plan().replaced(["a", {"description": "b", "parent": 1}])
    skipped = dataclasses.replace(  # a parent skipped while a sub-step stayed open
        parent, steps=(parent.steps[0].moved(StepStatus.SKIPPED, None), parent.steps[1])
    )
    again = skipped.with_status([1], StepStatus.SKIPPED)
    assert again is not skipped and again.steps[1].status is StepStatus.SKIPPED
    finished = Plan().replaced(["a"]).with_status([1], StepStatus.DONE)
    claimed = finished.with_status([1], StepStatus.DONE, actor=Actor("alice"))
    assert claimed is not finished and claimed.steps[0].owner == "alice"
    with pytest.raises(PlanError):  # still checked first: a step number that is not there
        finished.with_status([1, 5], StepStatus.DONE)


def test_runnable_yields_the_runnable_steps_in_order() -> None:
    plan = Plan().replaced(
        ["a", {"description": "b", "depends_on": [1]}, "c", {"description": "d", "parent": 3}]
    )
    assert [s.id for s in plan.runnable()] == [s.id for s in plan.runnable_steps()] == ["s1", "s4"]
    done = plan.with_status([1], StepStatus.DONE)
    assert next(done.runnable()).id == "s2"
    assert list(plan.with_status([1, 2, 4, 3], StepStatus.DONE).runnable()) == []
