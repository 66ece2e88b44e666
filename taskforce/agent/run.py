"""One run of the loop: its working state and the steps :class:`LeanAgent` is made of.

:class:`Run` asks the model (through the context budget), applies the plan-first rule,
screens and records tool calls, recites the plan when it changed, and finishes with a
saved state and an :class:`AgentResult`. The loop itself (``loop.py``) only sequences
these steps.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from taskforce.agent import planning, prompts
from taskforce.agent.context import ContextBudget, is_context_overflow
from taskforce.agent.dispatch import PLANNER, Prepared, parse_call, tool_message
from taskforce.agent.events import EventKind, EventSink, Redactor
from taskforce.agent.guards import CallGuard, FinishGuard
from taskforce.agent.planning import PlanHolder
from taskforce.agent.result import AgentResult, AgentStatus
from taskforce.agent.session import Session
from taskforce.errors import ProviderError
from taskforce.models.base import Message, Model, ModelResponse, ToolCall, ToolSpec, Usage
from taskforce.tools.base import ToolProtocol


def user(text: str) -> Message:
    """A user message."""
    return {"role": "user", "content": text}


@dataclasses.dataclass
class Run:
    """The state of one :meth:`LeanAgent.execute` call."""

    model: Model
    tools: Mapping[str, ToolProtocol]
    specs: Sequence[ToolSpec]
    planner: PlanHolder
    session: Session
    system: Message
    budget: ContextBudget
    events: EventSink
    redactor: Redactor
    mission: str
    pinned: int
    plan_required: bool
    guard: CallGuard
    finish_guard: FinishGuard
    steps: int = 0
    usage: Usage = dataclasses.field(default_factory=Usage)
    overflows: int = 0
    last_content: str = ""
    nudges: int = 0
    recited: int = -1
    seen_plan: int = -1
    pending: dict[str, Any] | None = None
    """The call held for approval this turn (see ``approvals.py``); the run then pauses."""

    @property
    def session_id(self) -> str:
        """The session this run belongs to."""
        return self.session.session_id

    def plan_state(self) -> dict[str, Any]:
        """The planner's current state."""
        return self.planner.get_state()

    def open_steps(self) -> list[str]:
        """Plan steps still pending or in progress."""
        return planning.open_steps(self.plan_state())

    # ---- asking the model ------------------------------------------------------------

    async def ask(self) -> ModelResponse:
        """One model call on a view that fits the window; one harder retry on overflow."""
        specs = list(self.specs)
        if self.plan_required:
            specs = [s for s in specs if s["function"]["name"] == PLANNER]
        answer_now = self.nudges >= 2  # nudged twice and still repeating: no tools this turn
        if answer_now:
            self.nudges, specs = 0, []
        note = self._plan_note(self.plan_state())
        count = self.model.count_tokens
        for harder in (False, True):
            view, level = self.budget.fit(
                self.system, self.session.history, specs, count,
                pinned=self.pinned, plan_note=note, harder=harder,
            )  # fmt: skip
            if self.plan_required:
                view.append(user(prompts.plan_first(bool(planning.list_items(self.mission)))))
            if answer_now:
                view.append(user(prompts.ANSWER_NOW))
            try:
                response = await self.model.complete(view, specs)
                break
            except ProviderError as exc:
                if harder or not is_context_overflow(exc):
                    raise
                self.overflows += 1
                await self._emit(EventKind.ERROR, message=str(exc), recovered=True)
        self.steps += 1
        self.usage += response.usage
        self.last_content = response.content or self.last_content
        await self._emit(
            EventKind.LLM_CALL, step=self.steps, messages=len(view), compaction=level,
            content=response.content, tool_calls=[c.name for c in response.tool_calls],
            usage=dataclasses.asdict(response.usage),
        )  # fmt: skip
        return response

    def plan_first(self, response: ModelResponse) -> ModelResponse:
        """On a turn that must plan: turn a listed plan (or the mission's parts) into one."""
        if not self.plan_required:
            return response
        for call in response.tool_calls:
            item = parse_call(call, self.tools)
            if call.name == PLANNER and item.args.get("action") == "create_plan":
                return response
        tasks = planning.list_items(response.content or "") or planning.split_mission(self.mission)
        if not tasks:
            self.plan_required = bool(response.tool_calls)
            return response
        args = json.dumps({"action": "create_plan", "tasks": tasks}, ensure_ascii=False)
        call = ToolCall(id=f"call_autoplan_{self.steps}", name=PLANNER, arguments=args)
        return dataclasses.replace(response, tool_calls=(*response.tool_calls, call))

    # ---- tool calls ------------------------------------------------------------------

    async def screen(self, calls: Sequence[ToolCall]) -> list[Prepared]:
        """Parse and guard one turn's calls; announce them as events."""
        version = planning.plan_version(self.plan_state())
        items = self.guard.prepare(calls, self.tools, version, self.plan_required)
        self.plan_required = False
        for item in items:
            await self._emit(
                EventKind.TOOL_CALL, id=item.call.id, name=item.call.name,
                arguments=item.args if item.preset is None else item.call.arguments,
                runs=item.preset is None and item.duplicate_of is None,
            )  # fmt: skip
        return items

    async def on_result(self, item: Prepared, result: dict[str, Any]) -> None:
        """Record one tool result, then save plan + new messages at once."""
        self.guard.record(item, result)
        self.session.add(tool_message(item.call, result))
        await self._emit(
            EventKind.TOOL_RESULT, id=item.call.id, name=item.call.name,
            success=bool(result.get("success")), result=result,
        )  # fmt: skip
        state = self.plan_state()
        if planning.plan_version(state) != self.seen_plan:
            self.seen_plan = planning.plan_version(state)
            await self._emit(
                EventKind.PLAN_UPDATED, markdown=self.planner.get_plan_summary(),
                version=self.seen_plan, current_step=planning.current_step(state),
            )  # fmt: skip
        await self.session.save(plan=state, status=AgentStatus.RUNNING.value, mission=self.mission)

    def recite(self, force: bool = False) -> None:
        """Show the model the plan (as a trailing message) when it changed; nudge a stall."""
        state = self.plan_state()
        if self.guard.stalled >= 2:
            self.guard.stalled = 0
            self.nudges += 1
            self.session.add(user(prompts.stalled(planning.current_step(state))))
        version = planning.plan_version(state)
        if planning.has_plan(state) and (force or version != self.recited):
            self.recited = version
            note = self._plan_note(state)
            if note is not None:
                self.session.add(note)

    def _plan_note(self, state: dict[str, Any]) -> Message | None:
        if not planning.has_plan(state):
            return None
        summary = self.planner.get_plan_summary()
        return user(prompts.plan_message(summary, planning.current_step(state)))

    # ---- ending ----------------------------------------------------------------------

    async def finish(
        self,
        status: AgentStatus,
        final: str,
        error: BaseException | None = None,
        *,
        events: Sequence[dict[str, Any]] = (),
    ) -> AgentResult:
        """Save the final state (and history `events`), emit the last event, build the result."""
        state = self.plan_state()
        fields: dict[str, Any] = {"plan": state, "status": status.value, "mission": self.mission}
        message = self.redactor.text(f"{type(error).__name__}: {error}") if error else None
        if message:
            fields["error"] = message
        await self.session.save(events=events, **fields)
        open_steps = tuple(planning.open_steps(state))
        if message:
            await self._emit(EventKind.ERROR, message=message, recovered=False)
        else:
            await self._emit(
                EventKind.FINAL_ANSWER, content=final, status=status.value,
                open_steps=list(open_steps),
            )  # fmt: skip
        return AgentResult(
            status=status,
            final_message=self.redactor.text(message or final),
            plan_markdown=self.planner.get_plan_summary(),
            steps=self.steps,
            usage=self.usage,
            session_id=self.session_id,
            open_steps=open_steps,
            error=message,
            pending_approval=self.redactor.data(self.pending) if self.pending else None,
        )

    async def _emit(self, kind: EventKind, **data: Any) -> None:
        await self.events.emit(kind, self.session_id, **data)
