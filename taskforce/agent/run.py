"""One run of the loop: what it works with, and the steps :class:`LeanAgent` is made of.

:class:`Run` asks the model (through the context budget), applies the plan-first rule, screens
and records tool calls, recites the plan when it changed, and finishes with a saved state and
an :class:`AgentResult`. The loop itself (``loop.py``) only sequences these steps. A run's own
state lives in small objects that each own one concern: the model calls (:class:`ModelUse`),
the plan as last shown (``watch.PlanWatch``), the calls (``guards.CallGuard``); what it talks
to is fixed (:class:`Wiring`). A call held for approval is returned by ``approvals.hold``.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from taskforce.agent import echo, planning, prompts, textcalls
from taskforce.agent.context import ContextBudget
from taskforce.agent.dispatch import Prepared, loop_call, parse_call, runs, tool_message
from taskforce.agent.events import EventKind, EventSink, Redactor
from taskforce.agent.finish import FinishGuard
from taskforce.agent.guards import CallGuard
from taskforce.agent.limits import bound_reply
from taskforce.agent.result import AgentResult, AgentStatus
from taskforce.agent.session import Session
from taskforce.agent.watch import PlanWatch
from taskforce.errors import MalformedReplyError, ProviderError, StaleStateError
from taskforce.models.base import Message, Model, ModelResponse, NoCalls, ToolSpec, Usage
from taskforce.plan import Plan
from taskforce.plan.requests import NewPlan, SetStatus
from taskforce.tools.base import ToolProtocol
from taskforce.tools.planner import PlannerTool

log = logging.getLogger("taskforce.agent")


def user(text: str) -> Message:
    """A user message."""
    return {"role": "user", "content": text}


@dataclasses.dataclass
class ModelUse:
    """The model calls of one run: how many, their tokens, and the last text answered."""

    calls: int = 0
    usage: Usage = dataclasses.field(default_factory=Usage)
    last_content: str = ""
    """The last reply text the loop kept (no written call, no echo): a max_steps answer."""

    def record(self, response: ModelResponse) -> None:
        """Count one answered model call."""
        self.calls += 1
        self.usage += response.usage


@dataclasses.dataclass(frozen=True)
class Wiring:
    """What a run talks to, fixed for the run: the model, the tools, where events go."""

    model: Model
    tools: Mapping[str, ToolProtocol]
    specs: Sequence[ToolSpec]
    planner: PlannerTool
    system: Message
    budget: ContextBudget
    events: EventSink
    redactor: Redactor


@dataclasses.dataclass
class Run:
    """One :meth:`LeanAgent.execute` or :meth:`LeanAgent.resume` call.

    Its state is the session (conversation and stored state), the mission and where it
    sits in the history, and the small objects owning one concern each.
    """

    wiring: Wiring
    session: Session
    mission: str
    """The request this run works on (the session's mission, or a later request)."""
    pinned: int
    """Index in the history of the mission's message (kept in every view)."""
    guard: CallGuard
    finish_guard: FinishGuard
    watch: PlanWatch
    use: ModelUse = dataclasses.field(default_factory=ModelUse)

    @property
    def session_id(self) -> str:
        """The session this run belongs to."""
        return self.session.session_id

    @property
    def plan(self) -> Plan:
        """The plan as it stands (the planner holds it)."""
        return self.wiring.planner.plan

    def open_steps(self) -> list[str]:
        """Plan steps still pending or in progress that need a tool (what blocks an answer).

        A step that needs no tool, like "report the total", is done by the answer itself;
        a question about the plan ("What is left?") is answered as the plan stands.
        """
        if planning.asks_about_plan(self.mission):
            return []
        plan = self.plan
        return [f"step {plan.number_of(s)}: {s.description}" for s in planning.tool_steps(plan)]

    def worked(self) -> str | None:
        """The current step's number when a tool already ran for it (the model may mark it)."""
        step = (plan := self.plan).next_step()
        if step is None or not self.guard.worked or not planning.step_needs_tool(plan, step):
            return None
        return str(plan.number_of(step))

    def loop_texts(self) -> list[str]:
        """The loop's own recent messages (recitations, reminders), to spot a copied one."""
        recent = self.session.history[-8:]
        return [
            str(m["content"])
            for m in recent
            if m.get("role") == "user" and prompts.is_loop_note(str(m.get("content") or ""))
        ]

    # ---- asking the model ------------------------------------------------------------

    async def ask(self) -> ModelResponse:
        """One model call on a view that fits the window; one harder retry on overflow."""
        wiring, planner = self.wiring, self.wiring.planner.name
        specs: Sequence[ToolSpec] = list(wiring.specs)
        if self.watch.hides_planner(self.plan):
            specs = [s for s in specs if s["function"]["name"] != planner]
        elif self.watch.working(self.plan):  # mark and revise, no create
            working = wiring.planner.working_spec()
            specs = [working if s["function"]["name"] == planner else s for s in specs]
        if self.watch.required:
            specs = [s for s in specs if s["function"]["name"] == planner]
        answer_now = self.guard.answer_now(self.watch.settled(self.plan))  # repeating: answer
        if answer_now:  # in words: with a plan of its own, the tools shown, none callable
            specs = NoCalls(specs) if self.watch.own(self.plan) else []
        note = self._plan_note()
        count = wiring.model.count_tokens
        for harder in (False, True):
            view, level = wiring.budget.fit(
                wiring.system, self.session.history, specs, count,
                pinned=self.pinned, plan_note=note, harder=harder,
            )  # fmt: skip
            if self.watch.required:
                view.append(user(prompts.plan_first(bool(planning.list_items(self.mission)))))
            if answer_now:
                view.append(user(prompts.ANSWER_NOW))
            try:
                response = bound_reply(await self._complete(view, specs))
                break
            except ProviderError as exc:
                if harder or not wiring.budget.overflowed(exc):  # a size it names is learned
                    raise
                await self._emit(EventKind.ERROR, message=str(exc), recovered=True)
        wiring.budget.calibrate(view, specs, count, level, response.usage.prompt_tokens)
        await self.record_call(response, len(view), level)
        return response

    async def _complete(self, view: list[Message], specs: Sequence[ToolSpec]) -> ModelResponse:
        """One request; a reply the provider could not parse is asked once more, with a note."""
        try:
            return await self.wiring.model.complete(view, specs)
        except MalformedReplyError as exc:
            await self._emit(EventKind.ERROR, message=str(exc), recovered=True)
            note = user(prompts.malformed_reply(str(exc)))
            return await self.wiring.model.complete([*view, note], specs)

    async def record_call(self, response: ModelResponse, messages: int, compaction: int) -> None:
        """Count one answered model call and emit its ``llm_call`` event.

        `messages` is the size of the view it answered, `compaction` its level (0: none).
        """
        self.use.record(response)
        await self._emit(
            EventKind.LLM_CALL, step=self.use.calls, messages=messages, compaction=compaction,
            content=response.content, tool_calls=[c.name for c in response.tool_calls],
            usage=dataclasses.asdict(response.usage),
        )  # fmt: skip

    def prepare(self, response: ModelResponse) -> tuple[ModelResponse, list[Prepared]]:
        """Parse the turn's calls once; on a turn that must plan, add the plan if missing.

        The plan added is the list in the reply, or else the mission's own parts.
        """
        if not response.tool_calls and (moved := self._moved_on(response.content)):
            return dataclasses.replace(response, tool_calls=(moved.call,), content=None), [moved]
        tools = self.wiring.tools
        calls, text = textcalls.read_reply(
            response.content, response.tool_calls, tools, self.use.calls
        )
        response = dataclasses.replace(response, tool_calls=calls, content=text)
        items = [parse_call(c, tools, cut_off=response.cut_off) for c in response.tool_calls]
        for item in items:  # no step copies the loop's instructions or ticks the plan
            if isinstance(item.request, NewPlan):
                copied = functools.partial(echo.copies_prompt, loop_texts=self.loop_texts())
                item.request = planning.joined_branches(planning.work_only(item.request, copied))
        if not self.watch.required or any(isinstance(i.request, NewPlan) for i in items):
            return response, items
        request = planning.plan_for(response.content, self.mission)
        if request is None:
            self.watch.required = bool(response.tool_calls)
            return response, items
        item = loop_call(self.wiring.planner, request, f"call_autoplan_{self.use.calls}")
        calls = (*response.tool_calls, item.call)
        return dataclasses.replace(response, tool_calls=calls), [*items, item]

    def _moved_on(self, content: str | None) -> Prepared | None:
        """A copied recitation that moves "Do now" past the current step, read as its mark.

        The model wrote the next ``[Plan update]`` itself instead of calling the planner:
        the steps before the one it says to do now are marked done through the planner, so
        the evidence rule still decides (a step with no tool run is refused, as a call).
        """
        planner = self.wiring.planner
        moved = echo.step_moved_to(content, self.loop_texts())
        numbers = planning.done_before(self.plan, moved) if moved is not None else ()
        if not numbers or planner.name not in self.wiring.tools:
            return None
        return loop_call(planner, SetStatus(numbers), f"call_text_{self.use.calls}_1")

    # ---- tool calls ------------------------------------------------------------------

    async def screen(self, items: list[Prepared]) -> list[Prepared]:
        """Guard one turn's calls; announce them as events."""
        finished = self.watch.settled(self.plan)
        items = self.guard.screen(items, self.plan, self.watch.required, finished)
        self.watch.required = False
        for item in items:
            await self._emit(
                EventKind.TOOL_CALL, id=item.call.id, name=item.call.name,
                arguments=item.args if item.preset is None else item.call.arguments,
                runs=runs(item), reuses=item.reused,
            )  # fmt: skip
        return items

    async def on_result(self, item: Prepared, result: dict[str, Any]) -> None:
        """Record one tool result, then save plan + new messages at once."""
        result = dict(self.guard.record(item, result))  # a recheck may answer as a repeat
        change = item.change
        if change is not None and change.moved:
            shown = {"success": True, "message": change.message}  # the recitation shows the plan
            self.session.add(tool_message(item.call, shown))
        else:
            self.session.add(tool_message(item.call, result))
            self._remember(item, result)
        await self._emit(
            EventKind.TOOL_RESULT, id=item.call.id, name=item.call.name,
            success=bool(result.get("success")), result=result,
        )  # fmt: skip
        await self._announce()
        events = item.change.events if item.change is not None else ()  # the planner's history
        await self.session.save(events=events, plan=self.plan, status=AgentStatus.RUNNING.value)

    async def _announce(self) -> None:
        """Tell the UI about the plan (a ``plan_updated`` event) when it changed."""
        plan = self.plan
        if self.watch.announce(plan):
            await self._emit(
                EventKind.PLAN_UPDATED, markdown=plan.render(), version=plan.version,
                current_step=planning.current_step(plan),
            )  # fmt: skip

    def _remember(self, item: Prepared, result: dict[str, Any]) -> None:
        """Keep a short text of a tool's result, to recite with the plan."""
        planner = item.call.name == self.wiring.planner.name
        if not planner and item.preset is None and result.get("success"):
            self.watch.remember(planning.result_text(item.call.name, result))

    def recite(self, force: bool = False) -> None:
        """Show the model the plan (as a trailing message) when it changed; nudge a stall."""
        if self.guard.nudge():
            step = planning.current_step(self.plan)
            offered = self.wiring.planner.name in self.wiring.tools
            unused = self.guard.not_called(self.guard.actions)  # every tool but the planner
            fits = planning.fitting_tools(step, unused) if step else []
            self.session.add(user(prompts.stalled(step, offered, fits)))
        if self.watch.recite(self.plan, force):
            note = self._plan_note(results=False)  # the results are in the history above it
            if note is not None:
                self.session.add(note)

    def _plan_note(self, results: bool = True) -> Message | None:
        """The plan and its current step, as a trailing message (None without a plan).

        With `results`, the run's last results too: the note that closes a compacted
        view, which may have lost them.
        """
        if not (plan := self.plan).steps:
            return None
        step = plan.next_step()
        unworked = planning.unworked(plan) if step is None else None  # read with no step open
        return user(
            prompts.plan_message(  # a finished plan's checklist was shown: its notes only
                plan.render() if step is not None or unworked else planning.noted(plan),
                planning.current_step(plan),
                self.watch.results[-6:] if results else (),
                step is None or planning.step_needs_tool(plan, step),
                unworked,
            )
        )

    # ---- ending ----------------------------------------------------------------------

    async def finish(
        self,
        status: AgentStatus,
        final: str,
        error: BaseException | None = None,
        *,
        events: Sequence[dict[str, Any]] = (),
        pending: Mapping[str, Any] | None = None,
    ) -> AgentResult:
        """Save the final state (and history `events`), emit the last event, build the result.

        `pending` is the call held for approval when the run pauses.
        """
        if status is AgentStatus.COMPLETED and final.strip():
            events = [*events, *await self._answered()]
        plan = self.plan
        open_steps = tuple(planning.open_steps(plan))
        if status is AgentStatus.COMPLETED and open_steps:
            status = AgentStatus.INCOMPLETE  # answered, but the plan is not done: say so
        fields: dict[str, Any] = {"plan": plan, "status": status.value}
        redactor = self.wiring.redactor
        message = redactor.text(f"{type(error).__name__}: {error}") if error else None
        if message:
            fields["error"] = message
        else:
            self.session.state.pop("error", None)  # an earlier run's failure is over
        await self.session.save(events=events, **fields)
        if message:
            await self._emit(EventKind.ERROR, message=message, recovered=False)
        else:
            await self._emit(
                EventKind.FINAL_ANSWER, content=final, status=status.value,
                open_steps=list(open_steps),
            )  # fmt: skip
        return AgentResult(
            status=status,
            final_message=redactor.text(message or final),
            plan_markdown=plan.render(),
            steps=self.use.calls,
            usage=self.use.usage,
            session_id=self.session_id,
            open_steps=open_steps,
            error=message,
            pending_approval=redactor.data(dict(pending)) if pending else None,
            plan=plan,
        )

    async def _answered(self) -> Sequence[dict[str, Any]]:
        """Mark done the steps the final answer itself did (all open ones need no tool).

        "Tell me the result" is done by telling it. The planner's history events are
        returned for the final save; a question about the plan does none of its steps.
        """
        numbers = () if planning.asks_about_plan(self.mission) else planning.answered(self.plan)
        if not numbers:
            return ()
        _, change = await self.wiring.planner.run(SetStatus(numbers, note=prompts.ANSWERED))
        if change is None:
            return ()
        await self._announce()
        return change.events

    async def abandon(self, error: BaseException) -> None:
        """After an unexpected error: mark the session ``failed`` (best effort), keep the rest.

        If even that save fails (the messages of this turn may be what cannot be stored),
        it is tried once more without them; a second failure is logged and left alone.
        Another writer's newer version (a concurrent run) is left as it is.
        """
        fields: dict[str, Any] = {
            "status": AgentStatus.FAILED.value,
            "plan": self.plan,
            "error": self.wiring.redactor.text(f"{type(error).__name__}: {error}"),
        }
        for attempt in (1, 2):
            try:
                await self.session.save(**fields)
                return
            except StaleStateError:
                return
            except Exception:
                log.warning(
                    "%s: could not record the failure", self.session_id, exc_info=attempt == 2
                )
                self.session.discard_unsaved()

    async def _emit(self, kind: EventKind, **data: Any) -> None:
        await self.wiring.events.emit(kind, self.session_id, **data)
