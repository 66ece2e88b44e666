"""The plan model: steps, statuses and the transitions between them.

Pure domain code with no I/O. Transitions mutate the plan they are called on and raise
:class:`~taskforce.errors.PlanError` *before* changing anything when a change is not
allowed, so callers get all-or-nothing behaviour by validating first (every transition
here checks all of its inputs before its first write).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from taskforce.checklist import clean_text, render_checklist
from taskforce.errors import PlanError


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


@dataclass(frozen=True, slots=True)
class PlanLimits:
    """Bounds on a plan, so a model cannot grow it without end."""

    max_steps: int = 1000
    max_text: int = 500
    max_note: int = 500


DEFAULT_LIMITS = PlanLimits()


_STATUS_ALIASES = {
    "COMPLETED": "DONE",
    "COMPLETE": "DONE",
    "RUNNING": "IN_PROGRESS",
    "TODO": "PENDING",
}


class Step(BaseModel):
    """One step of a plan. Unknown keys are kept, so newer fields survive older code."""

    model_config = ConfigDict(extra="allow")

    id: str
    description: str
    status: StepStatus = StepStatus.PENDING
    note: str | None = None

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


class Plan(BaseModel):
    """An ordered list of steps with a version bumped by every change."""

    model_config = ConfigDict(extra="allow")

    tasks: list[Step] = Field(default_factory=list)
    version: int = 0
    next_id: int = 1

    # ---- reading ---------------------------------------------------------------------

    @classmethod
    def from_state(cls, state: dict[str, Any] | None) -> Plan:
        """Build a plan from its JSON state (None or `{}` gives an empty plan)."""
        if not state:
            return cls()
        try:
            plan = cls.model_validate(_with_ids(state))
        except ValidationError as exc:
            raise PlanError(f"invalid plan state: {exc.errors()[0]['msg']}", "corrupt") from exc
        ids = [s.id for s in plan.tasks]
        if len(set(ids)) != len(ids):
            raise PlanError("invalid plan state: duplicate step ids", "corrupt")
        numbers = [int(i[1:]) for i in ids if i[:1] == "s" and i[1:].isdigit()]
        plan.next_id = max([plan.next_id, *(n + 1 for n in numbers)])
        return plan

    def to_state(self) -> dict[str, Any]:
        """The plan as plain JSON data (a fresh copy)."""
        return self.model_dump(mode="json")

    def render(self) -> str:
        """The plan as a Markdown checklist (or `No active plan.`)."""
        return render_checklist(self.tasks)

    @property
    def steps(self) -> list[Step]:
        """The steps in order (alias of `tasks`)."""
        return self.tasks

    def open_steps(self) -> list[Step]:
        """Steps still pending or in progress."""
        return [s for s in self.tasks if s.status.is_open]

    def in_progress(self) -> Step | None:
        """The step in progress, if any (there is at most one)."""
        return next((s for s in self.tasks if s.status is StepStatus.IN_PROGRESS), None)

    def current_step(self) -> Step | None:
        """The step to work on: the one in progress, else the first pending one."""
        return self.in_progress() or next(
            (s for s in self.tasks if s.status is StepStatus.PENDING), None
        )

    def number_of(self, step: Step) -> int:
        """The 1-based number of `step` in this plan."""
        return next(i for i, s in enumerate(self.tasks, start=1) if s.id == step.id)

    def progress(self) -> tuple[int, int]:
        """(finished steps, total steps); done and skipped count as finished."""
        done = sum(s.status in (StepStatus.DONE, StepStatus.SKIPPED) for s in self.tasks)
        return done, len(self.tasks)

    # ---- transitions -----------------------------------------------------------------

    def replace(self, tasks: Sequence[str], limits: PlanLimits = DEFAULT_LIMITS) -> None:
        """Replace the whole plan with `tasks`, all pending, with fresh ids."""
        if not tasks:
            raise PlanError("tasks must be a non-empty list of step descriptions")
        if len(tasks) > limits.max_steps:
            raise PlanError(f"{len(tasks)} tasks is too many; the limit is {limits.max_steps}")
        texts = _clean_all(tasks, "task", limits)
        self.tasks = [self._new_step(t) for t in texts]
        self.version += 1

    def set_status(
        self,
        indices: Sequence[int],
        status: StepStatus,
        note: str | None = None,
        limits: PlanLimits = DEFAULT_LIMITS,
    ) -> list[Step]:
        """Set the status (and optional note) of the steps at 1-based `indices`."""
        positions = self._positions(indices, "step_index")
        clean_note = _clean_note(note, limits)
        targets = [self.tasks[p] for p in positions]
        if status is StepStatus.IN_PROGRESS:
            if len(targets) > 1:
                raise PlanError("only one step can be IN_PROGRESS at a time")
            current = self.in_progress()
            if current is not None and current.id != targets[0].id:
                raise PlanError(
                    f"step {self.number_of(current)} is already IN_PROGRESS; "
                    "finish it (mark_done) or change its status first"
                )
        for step in targets:
            step.status = status
            if clean_note is not None:
                step.note = clean_note
        self.version += 1
        return targets

    def edit(
        self,
        *,
        add: Sequence[str] = (),
        insert_at: int | None = None,
        remove: Sequence[int] = (),
        reword: tuple[int, str] | None = None,
        limits: PlanLimits = DEFAULT_LIMITS,
    ) -> None:
        """Add, insert, remove and reword steps in one all-or-nothing change.

        Every index refers to the plan as it was before the call. New steps go before
        the step numbered `insert_at` (1..n+1), or at the end when it is None.
        """
        n = len(self.tasks)
        removed = set(self._positions(remove, "remove_indices")) if remove else set()
        if n - len(removed) + len(add) > limits.max_steps:
            raise PlanError(
                f"the plan would have {n - len(removed) + len(add)} steps; "
                f"the limit is {limits.max_steps}"
            )
        new_texts = _clean_all(add, "add_steps item", limits)
        if insert_at is not None and not 1 <= insert_at <= n + 1:
            raise PlanError(f"insert_at {insert_at} is out of range: use 1 to {n + 1}")
        reworded: tuple[int, str] | None = None
        if reword is not None:
            (pos,) = self._positions([reword[0]], "step_index")
            if pos in removed:
                raise PlanError(f"step {reword[0]} cannot be both reworded and removed")
            (text,) = _clean_all([reword[1]], "text", limits)
            reworded = (pos, text)
        if not (new_texts or removed or reworded):
            raise PlanError("update_plan needs add_steps, remove_indices or step_index with text")
        if reworded is not None:
            self.tasks[reworded[0]].description = reworded[1]
        fresh = [self._new_step(t) for t in new_texts]
        at = (insert_at or n + 1) - 1
        kept: list[Step] = []
        for pos, step in enumerate(self.tasks):
            if pos == at:
                kept.extend(fresh)
            if pos not in removed:
                kept.append(step)
        if at >= n:
            kept.extend(fresh)
        self.tasks = kept
        self.version += 1

    # ---- helpers ---------------------------------------------------------------------

    def _new_step(self, text: str) -> Step:
        step = Step(id=f"s{self.next_id}", description=text)
        self.next_id += 1
        return step

    def _positions(self, indices: Iterable[int], name: str) -> list[int]:
        """0-based positions for 1-based `indices`, de-duplicated in order; range-checked."""
        n = len(self.tasks)
        if n == 0:
            raise PlanError("there is no plan yet: call create_plan first", "no_plan")
        unique = list(dict.fromkeys(indices))
        if not unique:
            raise PlanError(f"{name} must name at least one step")
        bad = [i for i in unique if not 1 <= i <= n]
        if bad:
            raise PlanError(
                f"{name} {bad[0]} is out of range: the plan has steps 1 to {n}", "out_of_range"
            )
        return [i - 1 for i in unique]


def _clean_all(texts: Sequence[str], what: str, limits: PlanLimits) -> list[str]:
    cleaned: list[str] = []
    for number, raw in enumerate(texts, start=1):
        text = clean_text(raw)
        if not text:
            raise PlanError(f"{what} {number} is empty")
        if len(text) > limits.max_text:
            raise PlanError(
                f"{what} {number} is {len(text)} characters; the limit is {limits.max_text}"
            )
        cleaned.append(text)
    return cleaned


def _clean_note(note: str | None, limits: PlanLimits) -> str | None:
    if note is None:
        return None
    text = clean_text(note)
    if len(text) > limits.max_note:
        raise PlanError(f"note is {len(text)} characters; the limit is {limits.max_note}")
    return text or None


def _with_ids(state: dict[str, Any]) -> dict[str, Any]:
    """Give id-less steps (the original taskforce format) ids, without touching the input."""
    tasks = state.get("tasks")
    if not isinstance(tasks, list) or all(isinstance(t, dict) and "id" in t for t in tasks):
        return state
    next_id = state.get("next_id", 1) if isinstance(state.get("next_id"), int) else 1
    filled: list[Any] = []
    for task in tasks:
        if isinstance(task, dict) and "id" not in task:
            task = {**task, "id": f"s{next_id}"}
            next_id += 1
        filled.append(task)
    return {**state, "tasks": filled, "next_id": next_id}
