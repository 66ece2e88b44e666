"""A plan step: its statuses, its fields, and how a status change makes a new step.

Pure domain code. A :class:`Step` is an immutable value: a change returns a new step, so
plans can share the steps a change did not touch.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any

_ALIASES = {"COMPLETED": "DONE", "COMPLETE": "DONE", "RUNNING": "IN_PROGRESS"}
NO_EXTRA: Mapping[str, Any] = MappingProxyType({})


class StepStatus(enum.StrEnum):
    """Where a step stands: the only vocabulary of step statuses."""

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

    @classmethod
    def parse(cls, value: object) -> StepStatus:
        """A status from its name in any case (``"in progress"``, ``"COMPLETED"``...).

        Raises:
            ValueError: not a status name.
        """
        if isinstance(value, StepStatus):
            return value
        if not isinstance(value, str):
            raise ValueError(f"a status is text, not {type(value).__name__}")
        name = value.strip().upper().replace(" ", "_").replace("-", "_")
        try:
            return cls(_ALIASES.get(name, name))
        except ValueError:
            names = ", ".join(s.value for s in cls)
            raise ValueError(f"unknown status {value[:40]!r}: use one of {names}") from None


@dataclasses.dataclass(frozen=True, slots=True)
class Step:
    """One step of a plan (immutable). Unknown keys of its stored form are kept in `extra`."""

    id: str
    description: str
    status: StepStatus = StepStatus.PENDING
    note: str | None = None
    depends_on: tuple[str, ...] = ()
    requires_approval: bool = False
    retries: int = 0
    started_at: datetime | None = None
    completed_at: datetime | None = None
    extra: Mapping[str, Any] = dataclasses.field(default_factory=lambda: NO_EXTRA)

    def duration_seconds(self) -> float | None:
        """Seconds from start to completion, when both are known."""
        if self.started_at is None or self.completed_at is None:
            return None
        return (self.completed_at - self.started_at).total_seconds()

    def moved(self, status: StepStatus, now: datetime | None, note: str | None = None) -> Step:
        """This step in `status`: retries counted, start and completion times recorded.

        `note` replaces the note when given.
        """
        retries, started, completed = self.retries, self.started_at, self.completed_at
        if self.status is StepStatus.FAILED and status.is_open:
            retries += 1
            completed = None
        if status is StepStatus.IN_PROGRESS and self.status is not StepStatus.IN_PROGRESS:
            started = now
        if status in (StepStatus.DONE, StepStatus.FAILED, StepStatus.SKIPPED):
            completed = now
            if started is None:
                started = now
        if status is StepStatus.PENDING:
            started = completed = None
        return dataclasses.replace(
            self,
            status=status,
            note=self.note if note is None else note,
            retries=retries,
            started_at=started,
            completed_at=completed,
        )
