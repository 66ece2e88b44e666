"""The plan model: steps, statuses, dependencies and the transitions between them.

Pure domain code with no I/O and no hidden clock: transitions that record times take
`now`. Every transition validates all of its inputs, and the resulting plan's
invariants, before its first write, and raises :class:`~taskforce.errors.PlanError`
naming the problem otherwise, so a refused change leaves the plan exactly as it was.

Invariants: step ids are unique and never reused within a plan; a step depends only on
steps before it (so there are no cycles); at most one step is IN_PROGRESS.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taskforce.checklist import NO_PLAN, render_step
from taskforce.errors import PlanError
from taskforce.plan_specs import StepSpec, clean_note, clean_specs
from taskforce.planning.contract import check_plan_state
from taskforce.step import OPTIONAL_STEP_KEYS, Step, StepStatus, transition

__all__ = ["DEFAULT_LIMITS", "Plan", "PlanLimits", "Step", "StepStatus"]


@dataclass(frozen=True, slots=True)
class PlanLimits:
    """Bounds on a plan, so a model cannot grow it without end."""

    max_steps: int = 1000
    max_text: int = 500
    max_note: int = 500
    max_retries: int = 2


DEFAULT_LIMITS = PlanLimits()


class Plan(BaseModel):
    """An ordered list of steps; `version` counts every change, `revision` every replan."""

    model_config = ConfigDict(extra="allow")

    tasks: list[Step] = Field(default_factory=list)
    version: int = 0
    revision: int = 0
    next_id: int = 1

    # ---- reading ---------------------------------------------------------------------

    @classmethod
    def from_state(cls, state: dict[str, Any] | None) -> Plan:
        """Build a plan from its JSON state (None or `{}` gives an empty plan)."""
        if not state:
            return cls()
        state = _with_ids(state)
        try:
            plan = cls.model_validate(state)
            check_plan_state(state)  # the same structural rules as a Plan.md import
        except ValidationError as exc:
            raise PlanError(f"invalid plan state: {exc.errors()[0]['msg']}", "corrupt") from exc
        except PlanError as exc:
            raise PlanError(f"invalid plan state: {exc}", "corrupt") from exc
        ids = [s.id for s in plan.tasks]
        numbers = [int(i[1:]) for i in ids if i[:1] == "s" and i[1:].isdigit()]
        plan.next_id = max([plan.next_id, *(n + 1 for n in numbers)])
        return plan

    def draft(self) -> Plan:
        """A copy to change: each step is copied, values inside are shared.

        Cheaper than a deep copy (a plan of 1,000 steps copies in about a millisecond) and
        safe because transitions replace field values, they never change one in place.
        """
        return self.model_copy(update={"tasks": [step.model_copy() for step in self.tasks]})

    def to_state(self) -> dict[str, Any]:
        """The plan as plain JSON data (a fresh copy); optional step keys only when set."""
        state = self.model_dump(mode="json")
        for task in state["tasks"]:
            for key, default in OPTIONAL_STEP_KEYS.items():
                if key in task and task[key] == default:
                    del task[key]
        if not state.get("revision"):
            state.pop("revision", None)
        return state

    def render(self) -> str:
        """The plan as a Markdown checklist (or `No active plan.`)."""
        if not self.tasks:
            return NO_PLAN
        blocking = self._blocking()
        return "\n".join(
            render_step(number, step, blocking.get(step.id, ()))
            for number, step in enumerate(self.tasks, start=1)
        )

    @property
    def steps(self) -> list[Step]:
        """The steps in order (alias of `tasks`)."""
        return self.tasks

    def step(self, step_id: str) -> Step:
        """The step with id `step_id`."""
        return next(s for s in self.tasks if s.id == step_id)

    def number_of(self, step: Step) -> int:
        """The 1-based number of `step` in this plan."""
        return next(i for i, s in enumerate(self.tasks, start=1) if s.id == step.id)

    def open_steps(self) -> list[Step]:
        """Steps still pending or in progress."""
        return [s for s in self.tasks if s.status.is_open]

    def in_progress(self) -> Step | None:
        """The step in progress, if any (there is at most one)."""
        return next((s for s in self.tasks if s.status is StepStatus.IN_PROGRESS), None)

    def blocked_by(self, step: Step) -> list[int]:
        """Numbers of the unfinished steps `step` waits for."""
        return self._blocking().get(step.id, [])

    def runnable_steps(self) -> list[Step]:
        """Pending steps whose dependencies are all finished, in order."""
        blocking = self._blocking()
        return [s for s in self.tasks if s.status is StepStatus.PENDING and s.id not in blocking]

    def _blocking(self) -> dict[str, list[int]]:
        """For each blocked step's id, the numbers of the unfinished steps it waits for (O(n))."""
        numbers: dict[str, int] = {}
        finished: set[str] = set()
        for number, step in enumerate(self.tasks, start=1):
            numbers[step.id] = number
            if step.status.is_finished:
                finished.add(step.id)
        blocking: dict[str, list[int]] = {}
        for step in self.tasks:
            waiting = [numbers[d] for d in step.depends_on if d in numbers and d not in finished]
            if waiting:
                blocking[step.id] = waiting
        return blocking

    def next_step(self) -> Step | None:
        """The step to work on: the one in progress, else the first runnable one."""
        runnable = self.runnable_steps()
        return self.in_progress() or (runnable[0] if runnable else None)

    def current_step(self) -> Step | None:
        """Alias of :meth:`next_step`."""
        return self.next_step()

    def progress(self) -> tuple[int, int]:
        """(finished steps, total steps); done and skipped count as finished."""
        return sum(s.status.is_finished for s in self.tasks), len(self.tasks)

    def progress_ratio(self) -> float:
        """Progress from 0.0 to 1.0 (0.0 for an empty plan)."""
        done, total = self.progress()
        return done / total if total else 0.0

    def status(self, *, paused: bool = False) -> str:
        """The plan's lifecycle status, derived from its steps.

        `pending` (nothing started), `in_progress`, `paused` (when the caller says so),
        `completed` (every step done or skipped) or `failed` (a failed step leaves nothing
        else to run).
        """
        if self.tasks and all(s.status.is_finished for s in self.tasks):
            return "completed"
        if paused:
            return "paused"
        if any(s.status is StepStatus.FAILED for s in self.tasks) and self.next_step() is None:
            return "failed"
        started = any(s.status is not StepStatus.PENDING for s in self.tasks)
        return "in_progress" if started else "pending"

    # ---- transitions -----------------------------------------------------------------

    def replace(
        self,
        tasks: Sequence[str | StepSpec | dict[str, Any]],
        limits: PlanLimits = DEFAULT_LIMITS,
    ) -> None:
        """Replace the whole plan with `tasks`, all pending, with fresh ids.

        A task is a description or `{"description", "depends_on", "requires_approval"}`,
        where `depends_on` lists numbers of earlier tasks in the same list.
        """
        if not tasks:
            raise PlanError("tasks must be a non-empty list of step descriptions")
        if len(tasks) > limits.max_steps:
            raise PlanError(f"{len(tasks)} tasks is too many; the limit is {limits.max_steps}")
        specs = clean_specs(tasks, "task", limits.max_text)
        ids = [f"s{self.next_id + i}" for i in range(len(specs))]
        for number, spec in enumerate(specs, start=1):
            for dep in spec.depends_on:
                if not isinstance(dep, int) or not 1 <= dep < number:
                    raise PlanError(
                        f"task {number} depends on {dep!r}: a task may depend only on "
                        f"earlier tasks (1 to {number - 1})"
                    )
        self.tasks = [
            Step(
                id=ids[i],
                description=spec.description,
                depends_on=[ids[d - 1] for d in spec.depends_on if isinstance(d, int)],
                requires_approval=spec.requires_approval,
            )
            for i, spec in enumerate(specs)
        ]
        self.next_id += len(specs)
        self.version += 1
        self.revision += 1

    def set_status(
        self,
        indices: Sequence[int],
        status: StepStatus,
        note: str | None = None,
        limits: PlanLimits = DEFAULT_LIMITS,
        *,
        now: datetime | None = None,
    ) -> list[Step]:
        """Set the status (and optional note) of the steps at 1-based `indices`."""
        targets = [self.tasks[p] for p in self._positions(indices, "step_index")]
        new_note = clean_note(note, limits.max_note)
        if status is StepStatus.IN_PROGRESS:
            current = self.in_progress()
            if len(targets) > 1:
                raise PlanError("only one step can be IN_PROGRESS at a time")
            if current is not None and current.id != targets[0].id:
                raise PlanError(
                    f"step {self.number_of(current)} is already IN_PROGRESS; "
                    "finish it (mark_done) or change its status first"
                )
        batch = {t.id for t in targets}
        for step in targets:
            if status in (StepStatus.IN_PROGRESS, StepStatus.DONE):
                waiting = [n for n in self.blocked_by(step) if self.tasks[n - 1].id not in batch]
                if waiting:
                    raise PlanError(
                        f"step {self.number_of(step)} is blocked by step "
                        f"{', '.join(map(str, waiting))}: finish that first",
                        "blocked",
                    )
            retrying = step.status is StepStatus.FAILED and status.is_open
            if retrying and step.retries >= limits.max_retries:
                raise PlanError(
                    f"step {self.number_of(step)} failed and was retried {step.retries} "
                    f"times; the limit is {limits.max_retries}: skip it or replan",
                    "retry_limit",
                )
        for step in targets:
            transition(step, status, now)
            if new_note is not None:
                step.note = new_note
        self.version += 1
        return targets

    def edit(
        self,
        *,
        add: Sequence[str | StepSpec | dict[str, Any]] = (),
        insert_at: int | None = None,
        remove: Sequence[int] = (),
        reword: tuple[int, str] | None = None,
        limits: PlanLimits = DEFAULT_LIMITS,
    ) -> None:
        """Add, insert, remove and reword steps in one all-or-nothing replan.

        Every index (including an added step's `depends_on`) refers to the plan as it was
        before the call. New steps go before the step numbered `insert_at` (1..n+1), or at
        the end. Completed steps are never removed; a step others depend on is not removed.
        """
        n = len(self.tasks)
        removed = set(self._positions(remove, "remove_indices")) if remove else set()
        if n - len(removed) + len(add) > limits.max_steps:
            raise PlanError(
                f"the plan would have {n - len(removed) + len(add)} steps; "
                f"the limit is {limits.max_steps}"
            )
        for pos in sorted(removed):
            if self.tasks[pos].status is StepStatus.DONE:
                raise PlanError(f"step {pos + 1} is DONE: completed steps are kept")
        specs = clean_specs(add, "add_steps item", limits.max_text)
        if insert_at is not None and not 1 <= insert_at <= n + 1:
            raise PlanError(f"insert_at {insert_at} is out of range: use 1 to {n + 1}")
        new_text: tuple[int, str] | None = None
        if reword is not None:
            (pos,) = self._positions([reword[0]], "step_index")
            if pos in removed:
                raise PlanError(f"step {reword[0]} cannot be both reworded and removed")
            new_text = (pos, clean_specs([reword[1]], "text", limits.max_text)[0].description)
        if not (specs or removed or new_text):
            raise PlanError("update_plan needs add_steps, remove_indices or step_index with text")
        fresh: list[Step] = []
        for offset, spec in enumerate(specs):
            deps = [
                self._positions([d], f"add_steps item {offset + 1} depends_on")[0]
                for d in spec.depends_on
                if isinstance(d, int)
            ]
            fresh.append(
                Step(
                    id=f"s{self.next_id + offset}",
                    description=spec.description,
                    depends_on=[self.tasks[p].id for p in deps],
                    requires_approval=spec.requires_approval,
                )
            )
        at = (insert_at or n + 1) - 1
        order = [s for pos, s in enumerate(self.tasks) if pos < at and pos not in removed]
        order += fresh + [s for pos, s in enumerate(self.tasks) if pos >= at and pos not in removed]
        _check_order(order, {self.tasks[p].id for p in removed}, self.tasks)
        if new_text is not None:
            self.tasks[new_text[0]].description = new_text[1]
        self.tasks = order
        self.next_id += len(fresh)
        self.version += 1
        self.revision += 1

    # ---- helpers ---------------------------------------------------------------------

    def _positions(self, indices: Sequence[int], name: str) -> list[int]:
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


def _check_order(order: list[Step], removed: set[str], before: list[Step]) -> None:
    """Every dependency must stay, and stand earlier in `order`."""
    numbers = {s.id: i for i, s in enumerate(before, start=1)}
    seen: set[str] = set()
    for position, step in enumerate(order, start=1):
        for dep in step.depends_on:
            if dep in removed:
                raise PlanError(
                    f"step {numbers.get(step.id, position)} depends on step {numbers[dep]}, "
                    "which would be removed: change or remove the dependent step too"
                )
            if dep not in seen:
                raise PlanError(
                    f"new step at position {position} would come before its dependency "
                    f"(step {numbers[dep]}): insert it later"
                )
        seen.add(step.id)


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
