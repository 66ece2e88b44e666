"""The `planner` tool: the agent creates, reads, follows and revises its own plan.

One tool with four actions (`create_plan`, `mark_done`, `read_plan`, `update_plan`) so
the definition the model sees stays small. One door for every call: its arguments are
decoded once into a request (:func:`~taskforce.tools.planner_calls.decode`), the request
is applied once to the immutable plan (:func:`~taskforce.tools.planner_calls.apply`), and
only a fully valid change (and, when bound to a store, a committed one) becomes the plan.
Callers holding a decoded request (the agent) use :meth:`PlannerTool.run` directly.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from taskforce.errors import PlanError, StaleStateError, StateError, ToolInputError, UserError
from taskforce.plan import DEFAULT_LIMITS, Event, Plan, PlanLimits
from taskforce.plan.requests import PlanRequest, ReadPlan
from taskforce.plan.step import AGENT, Actor, check_owner
from taskforce.tools import planner_calls, planner_prompts
from taskforce.tools.base import ApprovalRiskLevel, error_result, function_spec
from taskforce.tools.planner_args import strict_schema, wire_schema, working_schema
from taskforce.tools.planner_calls import Gate, PlanChange

if TYPE_CHECKING:
    from taskforce.store import SessionStore

logger = logging.getLogger(__name__)
plan_log = logging.getLogger("taskforce.plan")

DESCRIPTION = (
    "Your plan as a checklist, steps numbered from 1. create_plan(tasks): new plan; "
    "depends_on lists earlier step numbers, parent nests under one. "
    "mark_done(step_index, status=DONE, note?); one step IN_PROGRESS at a time. read_plan(). "
    "update_plan(add_steps: texts or tasks, insert_at, remove_indices; step_index+text rewords)."
)

WORKING_DESCRIPTION = (
    "Your plan as a checklist, steps numbered from 1. "
    "mark_done(step_index, status=DONE, note?); one step IN_PROGRESS at a time. read_plan(). "
    "update_plan(add_steps, insert_at, remove_indices; step_index+text rewords)."
)
"""The description while the model works through an open plan (see :meth:`working_spec`)."""

_SCHEMA = wire_schema()
_WORKING_SCHEMA = working_schema()
_STRICT_SCHEMA = strict_schema()


class PlannerTool:
    """The planning tool. Works in memory, or bound to a session of a store.

    Args:
        initial_state: a plan state (`{"tasks": [...]}`) to start from.
        state_manager: a store (a ``StateManager``, a ``MemoryStore``, any
            ``SessionStore``); when given with `session_id`, every successful change is
            committed to that session, with its history events, before the result returns.
        session_id: the session whose plan this tool edits.
        limits: bounds on steps, text length and retries.
        clock: gives the time recorded when steps start and finish.
        owner: this agent's name when several agents share the session's plan: a step
            it starts is held by it (others cannot change it) until it finishes it, or
            until its lease runs out; it cannot replace the shared plan.
        lease_seconds: how long a step this owner starts stays held without another call
            (default 300 s); any change it makes renews it.
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
        state_manager: SessionStore | None = None,
        session_id: str | None = None,
        limits: PlanLimits = DEFAULT_LIMITS,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        owner: str | None = None,
        lease_seconds: float = 300.0,
    ) -> None:
        if owner is not None:
            check_owner(owner)
        if lease_seconds <= 0:
            raise ValueError("lease_seconds must be > 0")
        self._actor = AGENT if owner is None else Actor(owner, lease_seconds)
        self._plan = Plan.from_state(initial_state)
        self._limits = limits
        self._clock = clock
        self._lock = asyncio.Lock()
        self._store: SessionStore | None = None
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

    def working_spec(self) -> dict[str, Any]:
        """The definition to offer while a plan is open: marking and revising, no creating.

        A small model working through its plan kept calling ``create_plan`` again; this
        definition leaves that action out (and its ``tasks``), which also makes it
        shorter. Nothing is refused: the planner still takes every action.
        """
        return function_spec(self.name, WORKING_DESCRIPTION, _WORKING_SCHEMA)

    def validate_params(self, **params: Any) -> tuple[bool, str | None]:
        """Check a call's arguments alone (not against the plan); changes nothing.

        ``mark_done`` of step 1 is valid even without a plan: :meth:`execute` then says
        there is none.
        """
        try:
            self.decode(params)
        except ToolInputError as exc:
            return False, self.corrected(str(exc), params)
        return True, None

    def get_approval_preview(self, **params: Any) -> str:
        """What the call would do, in one line."""
        fields = ", ".join(f"{k}={v!r}" for k, v in params.items() if k != "action")
        return f"planner.{params.get('action', '?')}({fields})"

    async def execute(self, **params: Any) -> dict[str, Any]:
        """Run one action. Never raises: failures come back as `success: False`."""
        try:
            request = self.decode(params)
        except ToolInputError as exc:
            return error_result(self.corrected(str(exc), params), exc.error_type)
        return (await self.run(request))[0]

    # ---- one call: decode, apply, commit ----------------------------------------------

    def decode(self, params: Mapping[str, Any]) -> PlanRequest:
        """The request a call's arguments ask for (see :func:`planner_calls.decode`).

        Raises:
            ToolInputError: the arguments are invalid; the message names the problem.
        """
        return planner_calls.decode(dict(params), self._limits)

    def corrected(self, message: str, params: Mapping[str, Any]) -> str:
        """`message` (why a call was refused) with an example of a valid call of its action."""
        step = self._plan.next_step()
        number = self._plan.number_of(step) if step is not None else 1
        return planner_prompts.corrected(message.rstrip(". "), params.get("action"), number)

    def encode(self, request: PlanRequest) -> dict[str, Any]:
        """The arguments of a call asking for `request` (the inverse of :meth:`decode`)."""
        return planner_calls.encode(request)

    def change(self, request: PlanRequest, plan: Plan | None = None) -> PlanChange:
        """What `request` would do to `plan` (default: the current plan); changes nothing.

        Raises:
            PlanError: the plan refuses the request (the message names why).
        """
        return planner_calls.apply(
            request, self._plan if plan is None else plan, self._limits, self._clock(), self._actor
        )

    def gate(self, request: PlanRequest, plan: Plan, approved: Collection[str]) -> Gate | None:
        """The human approval `request` needs on `plan` (see :func:`planner_calls.gate`).

        A request the plan refuses needs none: it fails as usual when it runs. Only a plan
        with an open gated step is looked at further (the request is applied as a draft).
        """
        if isinstance(request, ReadPlan) or not planner_calls.has_gate(plan, approved):
            return None  # the usual case costs no draft application
        try:
            change = self.change(request, plan)
        except PlanError:
            return None
        return planner_calls.gate(change, approved)

    async def run(self, request: PlanRequest) -> tuple[dict[str, Any], PlanChange | None]:
        """Apply a decoded request once (and commit it when bound).

        Returns the tool result and, on success, the change. Never raises.
        """
        try:
            if self._store is None:  # in memory: nothing awaits between reading and replacing
                change = self.change(request)  # the plan, so no other call can come between
                self._plan = change.plan
            else:
                async with self._lock:
                    if isinstance(request, ReadPlan) or not self._loaded:
                        await self._load()
                    change = self.change(request)
                    if change.plan is not change.before:
                        change = await self._commit_retrying(request, change)
                    self._plan = change.plan
            log_events(change.events, self._session_id)
            return change.result(), change
        except ToolInputError as exc:
            message = self.corrected(str(exc), self.encode(request))
            return error_result(message, exc.error_type), None
        except StaleStateError as exc:
            message = (
                "the plan was changed by another writer"
                + (f" ({exc.args[0]})" if isinstance(exc, _Renumbered) else "")
                + "; it has been reloaded: read_plan and try again"
            )
            return error_result(message, "conflict"), None
        except StateError as exc:
            logger.warning("planner: state error: %s", exc)
            return error_result(f"could not save the plan: {exc}", "state_error"), None
        except UserError as exc:  # e.g. an invalid session id given by the developer
            return error_result(str(exc), "configuration_error"), None
        except Exception as exc:  # a bug must not crash the agent loop
            logger.exception("planner: unexpected error")
            return error_result(f"internal error: {type(exc).__name__}", "internal_error"), None

    # ---- state ------------------------------------------------------------------------

    @property
    def owner(self) -> str | None:
        """The name this planner acts under on a shared plan (None: the session's agent)."""
        return self._actor.name

    @property
    def plan(self) -> Plan:
        """The current plan (treat as read-only; change it through `execute`)."""
        return self._plan

    def get_state(self) -> dict[str, Any]:
        """A deep copy of the plan state: nothing done to it reaches the tool."""
        return self._plan.to_state()

    def set_state(self, state: Mapping[str, Any] | None) -> None:
        """Replace the in-memory plan (None resets it). Does not write to a bound store."""
        self._plan = Plan.from_state(state)

    def set_plan(self, plan: Plan) -> None:
        """Replace the in-memory plan. Does not write to a bound store."""
        self._plan = plan

    def get_plan_summary(self) -> str:
        """The checklist, exactly as `read_plan` returns it."""
        return self._plan.render()

    def bind(self, state_manager: SessionStore, session_id: str) -> None:
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

    async def _commit_retrying(self, request: PlanRequest, change: PlanChange) -> PlanChange:
        """Commit `change`; if another writer committed first, apply `request` again.

        The second try reads the fresh plan, applies the request and commits in one
        transaction (:meth:`StateManager.update_state`), so it cannot conflict: the model
        never sees a conflict that re-applying its call solves.

        Raises:
            StaleStateError: the other writer added, removed or moved steps, so the call's
                step numbers could now name other steps (:class:`_Renumbered`).
            PlanError: the call no longer applies to the fresh plan (the message says so).
        """
        try:
            await self._commit(change.plan, change.events)
            return change
        except StaleStateError:
            pass
        assert self._store is not None and self._session_id is not None
        again = _Again(self, request, change.before)
        try:  # the store hands `again` the fresh plan (PlanEdit.edit_plan) or the state
            version = await self._store.update_state(self._session_id, again)
        except (StaleStateError, PlanError):
            await self._load()  # the tool holds the fresh plan either way
            raise
        redo, session = again.applied[-1]
        self._session, self._session_version = {**session, "plan": redo.plan}, version
        return redo

    async def _commit(self, draft: Plan, events: Sequence[Event]) -> None:
        assert self._store is not None and self._session_id is not None
        state = {**self._session, "plan": draft}  # the store encodes only changed steps
        version = await self._store.save_state(
            self._session_id,
            state,
            expected_version=self._session_version or 0,
            events=events,
        )
        self._session, self._session_version = state, version


class _Again:
    """A call applied again to the fresh plan, inside the store's transaction.

    A change for ``update_state`` in both forms of :class:`~taskforce.store.PlanEdit`.
    `applied` keeps each application (the store may run it twice: PostgreSQL's first
    writer race) with the rest of the state it was made on.
    """

    def __init__(self, tool: PlannerTool, request: PlanRequest, seen: Plan) -> None:
        self.tool, self.request, self.seen = tool, request, seen
        self.applied: list[tuple[PlanChange, dict[str, Any]]] = []

    def __call__(self, current: dict[str, Any] | None) -> tuple[dict[str, Any], Sequence[Event]]:
        """The change on the stored state (with ``version``): the new state, its events."""
        session = {k: v for k, v in (current or {}).items() if k not in ("version", "plan")}
        plan, events = self.edit_plan(session, Plan.from_state((current or {}).get("plan")))
        return {**session, "plan": plan}, events  # only changed steps encoded

    def edit_plan(self, state: dict[str, Any], plan: Plan) -> tuple[Plan, Sequence[Event]]:
        """The change on the fresh plan (`state`: the rest of the session, kept)."""
        if not planner_calls.same_numbers(self.request, self.seen, plan):
            raise _Renumbered("its steps were added, removed or moved")
        try:
            redo = self.tool.change(self.request, plan)
        except PlanError as exc:
            message = "the plan was changed by another writer and this call no longer"
            raise PlanError(f"{message} applies: {exc}", exc.error_type) from None
        self.applied.append((redo, state))
        return redo.plan, redo.events


class _Renumbered(StaleStateError):
    """Another writer changed which step a number names: the call is not re-applied."""

    def __init__(self, reason: str) -> None:
        Exception.__init__(self, reason)


def log_events(events: Sequence[Event], session_id: str | None = None) -> None:
    """Log each event at INFO with its fields (``extra={"taskforce": {...}}``)."""
    if not plan_log.isEnabledFor(logging.INFO):
        return  # the message is built per event: skip it when nobody listens
    for event in events:
        fields = {"session_id": session_id, **event}
        plan_log.info(
            "%s %s",
            event["kind"],
            " ".join(f"{k}={v}" for k, v in fields.items() if k != "kind" and v is not None),
            extra={"taskforce": fields},
        )
