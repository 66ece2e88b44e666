"""A status change makes a new step that keeps every field it does not mean to change."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from types import MappingProxyType

import pytest

from taskforce.plan.step import Step, StepStatus

T0 = datetime(2026, 1, 1, tzinfo=UTC)
MOVES = {"status", "note", "retries", "started_at", "completed_at", "owner", "lease_until"}


def full_step(status: StepStatus) -> Step:
    """A step with every field set to something other than its default."""
    return Step(
        id="s7",
        description="Deploy",
        status=status,
        note="old note",
        depends_on=("s1", "s2"),
        requires_approval=True,
        retries=1,
        started_at=T0,
        completed_at=T0 + timedelta(seconds=5) if not status.is_open else None,
        parent="s3",
        owner="alice",
        lease_until=T0 + timedelta(minutes=5),
        extra=MappingProxyType({"x-kept": 1}),
    )


@pytest.mark.parametrize("before", list(StepStatus))
@pytest.mark.parametrize("after", list(StepStatus))
def test_moved_keeps_every_field_a_status_change_does_not_own(
    before: StepStatus, after: StepStatus
) -> None:
    step = full_step(before)
    moved = step.moved(after, T0 + timedelta(minutes=1), "new note")
    for field in dataclasses.fields(Step):  # a field added later is checked too
        if field.name not in MOVES:
            assert getattr(moved, field.name) == getattr(step, field.name), field.name
    assert moved.status is after and moved.note == "new note"
    assert moved.owner == (None if after is StepStatus.PENDING else "alice")
    assert moved.lease_until == (step.lease_until if after is StepStatus.IN_PROGRESS else None)


def test_moved_counts_a_retry_and_records_times() -> None:
    failed = full_step(StepStatus.FAILED)
    now = T0 + timedelta(minutes=1)
    retried = failed.moved(StepStatus.IN_PROGRESS, now)
    assert (retried.retries, retried.completed_at, retried.note) == (2, None, "old note")
    assert retried.started_at == now
    done = Step("s1", "Write").moved(StepStatus.DONE, now)
    assert done.started_at == done.completed_at == now and done.duration_seconds() == 0
