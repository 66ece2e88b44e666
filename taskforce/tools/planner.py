"""The `planner` tool: the agent creates, reads, follows and revises its own plan.

One tool with four actions (`create_plan`, `mark_done`, `read_plan`, `update_plan`) so
the definition the model sees stays small. Each call is all-or-nothing: it is applied to
a copy of the plan, and only a fully valid change (and, when bound to a store, a
committed one) replaces the plan.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from taskforce.errors import PlanError, StaleStateError, StateError, ToolInputError, UserError
from taskforce.plan import (
    DEFAULT_LIMITS,
    Event,
    Plan,
    PlanLimits,
    StepSpec,
    StepStatus,
    lifecycle_events,
)
from taskforce.tools.base import ApprovalRiskLevel, error_result
from taskforce.tools.planner_args import (
    PlannerArgs,
    TaskArg,
    parse_args,
    strict_schema,
    wire_schema,
)

if TYPE_CHECKING:
    from taskforce.store import StateManager

logger = logging.getLogger(__name__)
plan_log = logging.getLogger("taskforce.plan")

DESCRIPTION = (
    "Your plan as a checklist, steps numbered from 1. create_plan(tasks): new plan; "
    "depends_on lists earlier step numbers. mark_done(step_index, status=DONE, note?); "
    "one step IN_PROGRESS at a time. read_plan(). "
    "update_plan(add_steps, insert_at, remove_indices; step_index+text rewords)."
)

_SCHEMA = wire_schema()
_STRICT_SCHEMA = strict_schema()


class PlannerTool:
    """The planning tool. Works in memory, or bound to a `StateManager` session.

    Args:
        initial_state: a plan state (`{"tasks": [...]}`) to start from.
        state_manager: when given with `session_id`, every successful change is
            committed to that session before the result is returned.
        session_id: the session whose plan this tool edits.
        limits: bounds on steps, text length and retries.
        clock: gives the time recorded when steps start and finish.
    """

    name = "planner"
    description = DESCRIPTION
    requires_approval = False
    approval_risk_level = ApprovalRiskLevel.LOW
    supports_parallelism = False

    def __init__(
        self,
        initial_state: dict[str, Any] | None = None,
        *,
        state_manager: StateManager | None = None,
        session_id: str | None = None,
        limits: PlanLimits = DEFAULT_LIMITS,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._plan = Plan.from_state(initial_state)
        self._limits = limits
        self._clock = clock
        self._lock = asyncio.Lock()
        self._store: StateManager | None = None
        self._session_id: str | None = None
        self._session: dict[str, Any] = {}
        self._session_version: int | None = None
        self._loaded = False
        if state_manager is not None or session_id is not None:
            if state_manager is None or session_id is None:
                raise ValueError("state_manager and session_id go together")
            self.bind(state_manager, session_id)

    # ---- ToolProtocol -----------------------------------------------------------------

    @property
    def parameters_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments, generated from the pydantic model."""
        return _SCHEMA

    @property
    def strict_parameters_schema(self) -> dict[str, Any]:
        """The OpenAI strict form of the arguments schema (see ``tool_spec(tool, strict=True)``).

        Every parameter is required and the optional ones are nullable: null means "not
        given".
        """
        return _STRICT_SCHEMA

    def validate_params(self, **params: Any) -> tuple[bool, str | None]:
        """Check a call against the arguments schema and the current plan, changing nothing."""
        try:
            args = parse_args(params)
            if args.action != "read_plan":
                _apply(args, self._plan, self._limits, self._clock())
        except ToolInputError as exc:
            return False, str(exc)
        return True, None

    def get_approval_preview(self, **params: Any) -> str:
        """What the call would do, in one line."""
        fields = ", ".join(f"{k}={v!r}" for k, v in params.items() if k != "action")
        return f"planner.{params.get('action', '?')}({fields})"

    async def execute(self, **params: Any) -> dict[str, Any]:
        """Run one action. Never raises: failures come back as `success: False`."""
        try:
            args = parse_args(params)
            async with self._lock:
                if self._store is not None and (args.action == "read_plan" or not self._loaded):
                    await self._load()
                if args.action == "read_plan":
                    return {"success": True, "output": self._plan.render(), "message": "Plan read."}
                draft, message = _apply(args, self._plan, self._limits, self._clock())
                events = lifecycle_events(self._plan, draft)
                if self._store is not None:
                    await self._commit(draft, events)
                self._plan = draft
            log_events(events, self._session_id)
            return {"success": True, "output": draft.render(), "message": message}
        except ToolInputError as exc:
            return error_result(str(exc), exc.error_type)
        except StaleStateError:
            return error_result(
                "the plan was changed by another writer; it has been reloaded, "
                "read_plan and try again",
                "conflict",
            )
        except StateError as exc:
            logger.warning("planner: state error: %s", exc)
            return error_result(f"could not save the plan: {exc}", "state_error")
        except UserError as exc:  # e.g. an invalid session id given by the developer
            return error_result(str(exc), "configuration_error")
        except Exception as exc:  # a bug must not crash the agent loop
            logger.exception("planner: unexpected error")
            return error_result(f"internal error: {type(exc).__name__}", "internal_error")

    # ---- state ------------------------------------------------------------------------

    @property
    def plan(self) -> Plan:
        """The current plan (treat as read-only; change it through `execute`)."""
        return self._plan

    def get_state(self) -> dict[str, Any]:
        """A deep copy of the plan state: nothing done to it reaches the tool."""
        return self._plan.to_state()

    def set_state(self, state: dict[str, Any] | None) -> None:
        """Replace the in-memory plan (None resets it). Does not write to a bound store."""
        self._plan = Plan.from_state(state)

    def get_plan_summary(self) -> str:
        """The checklist, exactly as `read_plan` returns it."""
        return self._plan.render()

    def bind(self, state_manager: StateManager, session_id: str) -> None:
        """Persist every successful change to `session_id`; the plan is loaded on first use."""
        self._store, self._session_id = state_manager, session_id
        self._loaded = False

    async def _load(self) -> None:
        assert self._store is not None and self._session_id is not None
        state = await self._store.load_state(self._session_id)
        self._session = dict(state or {})
        self._session_version = self._session.pop("version", None)
        self._plan = Plan.from_state(self._session.get("plan"))
        self._loaded = True

    async def _commit(self, draft: Plan, events: list[Event]) -> None:
        assert self._store is not None and self._session_id is not None
        state = {**self._session, "plan": draft.to_state()}
        try:
            version = await self._store.save_state(
                self._session_id,
                state,
                expected_version=self._session_version or 0,
                events=events,
            )
        except StaleStateError:
            await self._load()
            raise
        self._session, self._session_version = state, version


def _specs(items: list[str | TaskArg] | None) -> list[str | StepSpec]:
    return [
        item
        if isinstance(item, str)
        else StepSpec(item.description, tuple(item.depends_on), item.requires_approval)
        for item in items or []
    ]


def _apply(args: PlannerArgs, plan: Plan, limits: PlanLimits, now: datetime) -> tuple[Plan, str]:
    """Apply a parsed call to `plan`; return the new plan and the success message."""
    if args.action == "create_plan":
        new = plan.replaced(_specs(args.tasks), limits)
        count = len(new.steps)
        return new, f"Plan created with {count} task{'' if count == 1 else 's'}."
    if args.action == "mark_done":
        if not args.step_index:
            raise PlanError("mark_done needs step_index (a step number from 1)")
        status = StepStatus(args.status or "DONE")
        new = plan.with_status(args.step_index, status, args.note, limits, now=now)
        numbers = ", ".join(str(n) for n in dict.fromkeys(args.step_index))
        return new, f"Step {numbers} marked {status.value}."
    # update_plan
    reword = None
    if args.text is not None or args.step_index:
        if args.text is None or not args.step_index or len(args.step_index) != 1:
            raise PlanError("to reword a step give one step_index and its new text")
        reword = (args.step_index[0], args.text)
    new = plan.edited(
        add=_specs(args.add_steps),
        insert_at=args.insert_at,
        remove=args.remove_indices or [],
        reword=reword,
        limits=limits,
    )
    return new, f"Plan updated: {len(new.steps)} steps."


def log_events(events: list[Event], session_id: str | None = None) -> None:
    """Log each event at INFO with its fields (``extra={"taskforce": {...}}``)."""
    for event in events:
        fields = {"session_id": session_id, **event}
        plan_log.info(
            "%s %s",
            event["kind"],
            " ".join(f"{k}={v}" for k, v in fields.items() if k != "kind" and v is not None),
            extra={"taskforce": fields},
        )
