from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from taskforce.plan import Plan, StepStatus
from taskforce.plan_events import lifecycle_events, log_events

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_created_started_completed_with_duration() -> None:
    empty = Plan()
    plan = empty.model_copy(deep=True)
    plan.replace(["A"])
    assert lifecycle_events(empty, plan) == [{"kind": "plan_created", "revision": 1, "steps": 1}]
    started = plan.model_copy(deep=True)
    started.set_status([1], StepStatus.IN_PROGRESS, now=T0)
    done = started.model_copy(deep=True)
    done.set_status([1], StepStatus.DONE, "ok", now=T0 + timedelta(seconds=2.5))
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
    plan = Plan()
    plan.replace(["A", "B"])
    revised = plan.model_copy(deep=True)
    revised.edit(add=["C"])
    assert lifecycle_events(plan, revised)[0]["kind"] == "plan_revised"
    failed = revised.model_copy(deep=True)
    failed.set_status([1, 2, 3], StepStatus.FAILED, "x", now=T0)
    kinds = [e["kind"] for e in lifecycle_events(revised, failed)]
    assert kinds == ["step_failed", "step_failed", "step_failed", "plan_failed"]


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
