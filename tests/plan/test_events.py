from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from taskforce.plan import Plan, StepStatus, lifecycle_events
from taskforce.tools.planner import log_events

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_created_started_completed_with_duration() -> None:
    empty = Plan()
    plan = empty.replaced(["A"])
    assert lifecycle_events(empty, plan) == [{"kind": "plan_created", "revision": 1, "steps": 1}]
    started = plan.with_status([1], StepStatus.IN_PROGRESS, now=T0)
    done = started.with_status([1], StepStatus.DONE, "ok", now=T0 + timedelta(seconds=2.5))
    assert [e["kind"] for e in lifecycle_events(plan, started)] == ["step_started"]
    events = lifecycle_events(started, done)
    assert events[0] == {
        "kind": "step_completed",
        "step_id": "s1",
        "step": 1,
        "from_status": "IN_PROGRESS",
        "to_status": "DONE",
        "note": "ok",
        "duration_s": 2.5,
    }
    assert events[1] == {"kind": "plan_completed", "steps": 1}


def test_revision_and_failure_events() -> None:
    plan = Plan().replaced(["A", "B"])
    revised = plan.edited(add=["C"])
    assert lifecycle_events(plan, revised)[0]["kind"] == "plan_revised"
    failed = revised.with_status([1, 2, 3], StepStatus.FAILED, "x", now=T0)
    kinds = [e["kind"] for e in lifecycle_events(revised, failed)]
    assert kinds == ["step_failed", "step_failed", "step_failed", "plan_failed"]


def test_a_plan_that_arrives_with_finished_steps_records_their_moves() -> None:
    plan = Plan().replaced(["A", "B", "C"])
    plan = plan.with_status([1], StepStatus.DONE, "ok").with_status([2], StepStatus.IN_PROGRESS)
    imported = Plan.from_state({**plan.to_state(), "revision": 0})  # a hand-written file
    kinds = [(e["kind"], e.get("step_id")) for e in lifecycle_events(Plan(), imported)]
    assert kinds == [("plan_created", None), ("step_completed", "s1"), ("step_started", "s2")]


def test_unchanged_plans_give_no_events() -> None:
    plan = Plan().replaced(["A", "B"])
    assert lifecycle_events(plan, plan) == []
    assert lifecycle_events(plan, Plan.from_state(plan.to_state())) == []


def test_log_events_carry_fields(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="taskforce.plan"):
        log_events([{"kind": "step_started", "step": 2, "note": None}], "sess")
    record = caplog.records[0]
    assert record.getMessage() == "step_started session_id=sess step=2"
    assert record.taskforce == {
        "session_id": "sess",
        "kind": "step_started",
        "step": 2,
        "note": None,
    }
