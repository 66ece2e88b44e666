"""A plan step: its statuses, its fields, and how a status change makes a new step.

Pure domain code. A :class:`Step` is an immutable value: a change returns a new step, so
plans can share the steps a change did not touch.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any

from taskforce.errors import ConfigurationError

_OWNER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@:+-]{0,63}")
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
    """One step of a plan (immutable). Unknown keys of its stored form are kept in `extra`.

    `parent` is the id of the step this one is a sub-step of. `owner` names the worker
    holding the step (set by a claim, kept as the record of who finished it), and
    `lease_until` is when its claim lapses unless renewed (only while IN_PROGRESS).
    """

    id: str
    description: str
    status: StepStatus = StepStatus.PENDING
    note: str | None = None
    depends_on: tuple[str, ...] = ()
    requires_approval: bool = False
    retries: int = 0
    started_at: datetime | None = None
    completed_at: datetime | None = None
    parent: str | None = None
    owner: str | None = None
    lease_until: datetime | None = None
    extra: Mapping[str, Any] = dataclasses.field(default_factory=lambda: NO_EXTRA)

    def duration_seconds(self) -> float | None:
        """Seconds from start to completion, when both are known."""
        if self.started_at is None or self.completed_at is None:
            return None
        return (self.completed_at - self.started_at).total_seconds()

    def moved(self, status: StepStatus, now: datetime | None, note: str | None = None) -> Step:
        """This step in `status`: retries counted, start and completion times recorded.

        `note` replaces the note when given. Back to PENDING, the step has no owner; out of
        IN_PROGRESS, no lease.
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
        owner = self.owner
        if status is StepStatus.PENDING:
            started = completed = owner = None
        return Step(  # every field named: a third of dataclasses.replace's cost
            id=self.id,
            description=self.description,
            status=status,
            note=self.note if note is None else note,
            depends_on=self.depends_on,
            requires_approval=self.requires_approval,
            retries=retries,
            started_at=started,
            completed_at=completed,
            parent=self.parent,
            owner=owner,
            lease_until=self.lease_until if status is StepStatus.IN_PROGRESS else None,
            extra=self.extra,
        )


@dataclasses.dataclass(frozen=True, slots=True)
class Actor:
    """Who changes a plan: the session's agent, a named worker, or a human.

    A step IN_PROGRESS with an `owner` is *held*: only that owner changes its status (a
    human may change any step). A named actor that starts a step becomes its owner, with
    a lease of `lease_seconds` when given (see :mod:`taskforce.plan.claims`).

    Attributes:
        name: the worker's name (None: the session's own agent, which holds no claims).
        lease_seconds: how long a step this actor starts stays claimed without renewal.
        human: a human acting on the plan: may finish or reopen any step.
    """

    name: str | None = None
    lease_seconds: float | None = None
    human: bool = False

    def may_change(self, step: Step) -> bool:
        """Whether this actor may change `step`'s status (it is not held by someone else)."""
        return (
            self.human
            or step.status is not StepStatus.IN_PROGRESS
            or step.owner is None
            or step.owner == self.name
        )


AGENT = Actor()
"""The session's own agent (the single-agent default)."""
HUMAN = Actor(human=True)
"""A human at the CLI or an application acting for one: overrides claims."""


def check_owner(name: object) -> str:
    """`name`, checked as a worker's name.

    1-64 of ``A-Z a-z 0-9 . _ @ : + -``, starting with a letter or digit (it shows in
    checklists as ``(in progress by NAME)``).

    Raises:
        ConfigurationError: it cannot.
    """
    if not isinstance(name, str) or not _OWNER.fullmatch(name):
        shown = repr(name)[:70]
        raise ConfigurationError(
            f"bad owner name {shown}: use 1-64 letters, digits and . _ @ : + - "
            "(starting with a letter or digit)"
        )
    return name
