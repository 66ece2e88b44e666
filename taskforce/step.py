"""A plan step: its statuses, its fields, and how a status change updates it.

Pure domain code; `transition` records times only from the `now` it is given.
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


class StepStatus(enum.StrEnum):
    """Where a step stands."""

    PENDING = "PENDING"
    IN_PROGRESS = "IN_PROGRESS"
    DONE = "DONE"
    FAILED = "FAILED"
    SKIPPED = "SKIPPED"

    @property
    def is_open(self) -> bool:
        """Pending or in progress: work remains."""
        return self in (StepStatus.PENDING, StepStatus.IN_PROGRESS)

    @property
    def is_finished(self) -> bool:
        """Done or skipped: nothing left to do, and dependents may proceed."""
        return self in (StepStatus.DONE, StepStatus.SKIPPED)


_STATUS_ALIASES = {"COMPLETED": "DONE", "COMPLETE": "DONE", "RUNNING": "IN_PROGRESS"}
OPTIONAL_STEP_KEYS: dict[str, Any] = {
    "depends_on": [],
    "requires_approval": False,
    "retries": 0,
    "started_at": None,
    "completed_at": None,
}


class Step(BaseModel):
    """One step of a plan. Unknown keys are kept, so newer fields survive older code."""

    model_config = ConfigDict(extra="allow")

    id: str
    description: str
    status: StepStatus = StepStatus.PENDING
    note: str | None = None
    depends_on: list[str] = Field(default_factory=list)
    requires_approval: bool = False
    retries: int = 0
    started_at: datetime | None = None
    completed_at: datetime | None = None

    @field_validator("status", mode="before")
    @classmethod
    def _legacy_status(cls, value: Any) -> Any:
        if isinstance(value, str):
            upper = value.strip().upper().replace(" ", "_")
            return _STATUS_ALIASES.get(upper, upper)
        return value

    @property
    def status_name(self) -> str:
        """The status as its upper-case name (for rendering)."""
        return self.status.value

    def duration_seconds(self) -> float | None:
        """Seconds from start to completion, when both are known."""
        if self.started_at is None or self.completed_at is None:
            return None
        return (self.completed_at - self.started_at).total_seconds()


def transition(step: Step, status: StepStatus, now: datetime | None) -> None:
    """Move `step` to `status`, counting retries and recording start/completion times."""
    if step.status is StepStatus.FAILED and status.is_open:
        step.retries += 1
        step.completed_at = None
    if status is StepStatus.IN_PROGRESS and step.status is not StepStatus.IN_PROGRESS:
        step.started_at = now
    if status in (StepStatus.DONE, StepStatus.FAILED, StepStatus.SKIPPED):
        step.completed_at = now
        if step.started_at is None:
            step.started_at = now
    if status is StepStatus.PENDING:
        step.started_at = step.completed_at = None
    step.status = status
