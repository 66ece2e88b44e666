"""LeanAgent: the ReAct loop. Ask the model, run the tools it calls, repeat until it answers.

The loop and its per-turn helper are the two short methods at the end of the class; the
guards, the context budget, events, persistence and prompt text live in their own modules.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

from taskforce.agent import approvals, echo, grounding, planning, prompts, stuck, textcalls
from taskforce.agent.context import ContextBudget
from taskforce.agent.dispatch import run_calls
from taskforce.agent.events import AgentEvent, EventCallback, EventSink, Redactor
from taskforce.agent.finish import FinishGuard
from taskforce.agent.guards import CallGuard
from taskforce.agent.result import AgentResult, AgentStatus
from taskforce.agent.run import Run, Wiring, user
from taskforce.agent.session import Session, current_request
from taskforce.agent.setup import Tools, build_model, check_tools, header_values, model_record
from taskforce.agent.undo import UndoWatch
from taskforce.agent.watch import PlanWatch
from taskforce.errors import (
    ConfigurationError,
    PlanError,
    ProviderError,
    SessionNotFoundError,
    ToolInputError,
)
from taskforce.models.base import Model
from taskforce.plan import Plan, scrub
from taskforce.plan.requests import PlanRequest
from taskforce.store import MemoryStore, SessionStore, validate_session_id
from taskforce.tools.base import is_read_only, tool_spec


class LeanAgent:
    """A ReAct agent that plans with the `planner` tool and persists each step.

    Args:
        model: A :class:`~taskforce.models.base.Model`, or a litellm model string (then a
            ``LiteLLMModel`` is built with `api_base`, `api_key`, `context_window` and
            `model_options`).
        tools: The tools the model may call: ``ToolProtocol`` objects, or plain functions
            (typed, with a docstring), which are wrapped in a ``FunctionTool``. A
            ``PlannerTool`` is added when none is named ``planner``.
        state_manager: Where sessions are saved (a ``taskforce.store.StateManager``);
            without one, sessions live in this agent's memory.
        system_prompt: Replaces the default system prompt.
        max_steps: Model calls allowed per :meth:`execute`.
        on_event: Called with every :class:`~taskforce.agent.events.AgentEvent`.
        context_window: Overrides the model's context size (tokens) for the budget.
        plan_first: Require a plan on the first turn: None decides per mission (a
            complexity heuristic; a mission that needs no plan is not offered the planner
            either), True always, False never (the planner is still offered).
        max_tool_calls_per_turn: Calls beyond this in one turn are refused.
        max_finish_reminders: How often in a row an early finish is sent back (a reminder
            after which a tool succeeded or a step was finished does not count).
        history_limit: Stored messages loaded when a session continues.
        require_work_before_done: Completion needs evidence: a plan step is not accepted
            as done unless a tool other than the planner ran since it started (one run per
            step), or it needs no tool (e.g. "report the result"). Small models tend to
            tick steps off without doing them.
        planning: False runs the same loop without planning: no ``planner`` tool, no plan
            first, and a system prompt without the planner paragraph (the baseline
            ``taskforce eval`` compares against).
        question_guesses: A call (of any tool but the planner) whose figures (three
            digits or more) or e-mail addresses appear in no message or tool result the
            model was given is answered once without running, naming the values and the
            lookups not used yet; made again, it runs (the model may have worked the value
            out; arithmetic arguments, and numbers one step of arithmetic makes from two
            given ones, are not checked), unless a tool succeeded in between whose result
            does not have the value either: then it is asked once more. Small models
            make up ids, phone numbers, times and amounts instead of looking them up (see
            ``taskforce.agent.grounding``).
        hold_undos: A call that would undo an action the run already did (a cancel of
            the booking it made, a return of the bike it rented), when the request asks
            for nothing to be undone, is not run; the answer names the action and says it
            stands (``taskforce.agent.undo``). Small models undo their own finished work.

    Calls of tools with ``requires_approval`` (and the start of plan steps flagged
    ``requires_approval``) pause the run with status ``paused``; :meth:`resume` continues
    it after a human's decision (see ``taskforce.agent.approvals``).

    Raises:
        ConfigurationError: If anything above is invalid (before anything runs).
    """

    def __init__(
        self,
        model: Model | str,
        tools: Tools | None = None,
        state_manager: SessionStore | None = None,
        system_prompt: str | None = None,
        max_steps: int = 30,
        on_event: EventCallback | None = None,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        context_window: int | None = None,
        plan_first: bool | None = None,
        max_tool_calls_per_turn: int = 8,
        max_finish_reminders: int = 2,
        history_limit: int = 200,
        require_work_before_done: bool = True,
        planning: bool = True,
        question_guesses: bool = True,
        hold_undos: bool = True,
        **model_options: Any,
    ) -> None:
        for label, value in (("max_steps", max_steps), ("history_limit", history_limit),
                             ("max_tool_calls_per_turn", max_tool_calls_per_turn)):  # fmt: skip
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"{label} must be a positive integer, got {value!r}")
        if not isinstance(max_finish_reminders, int) or max_finish_reminders < 0:
            raise ConfigurationError("max_finish_reminders must be an integer >= 0")
        if context_window is not None and (
            not isinstance(context_window, int) or context_window < 256
        ):
            raise ConfigurationError("context_window must be an integer >= 256 tokens or None")
        if system_prompt is not None and (
            not isinstance(system_prompt, str) or not system_prompt.strip()
        ):
            raise ConfigurationError("system_prompt must be a non-empty string or None")
        if on_event is not None and not callable(on_event):
            raise ConfigurationError("on_event must be a callable taking an AgentEvent")
        if not isinstance(planning, bool) or (not planning and plan_first):
            raise ConfigurationError("planning must be a bool, and plan_first needs planning")
        if not isinstance(question_guesses, bool):
            raise ConfigurationError(f"question_guesses must be a bool, got {question_guesses!r}")
        if not isinstance(hold_undos, bool):
            raise ConfigurationError(f"hold_undos must be a bool, got {hold_undos!r}")
        self.model = build_model(model, api_base, api_key, context_window, model_options)
        self.tools, self.planner = check_tools(tools, planning)
        self.specs = [tool_spec(t) for t in self.tools.values()]
        self.redactor = Redactor([api_key, *header_values(model_options)])
        self.store: SessionStore = state_manager if state_manager is not None else MemoryStore()
        self.system_prompt = system_prompt or (
            prompts.DEFAULT_SYSTEM_PROMPT if planning else prompts.NO_PLANNING_SYSTEM_PROMPT
        )
        self.max_steps = max_steps
        self._context_window = context_window
        self._budget: ContextBudget | None = None
        self.events = EventSink(on_event, self.redactor)
        self.plan_first = plan_first if planning else False
        self.planning = planning
        self.max_tool_calls_per_turn = max_tool_calls_per_turn
        self.max_finish_reminders = max_finish_reminders
        self.history_limit = history_limit
        self.require_work_before_done = require_work_before_done
        self.question_guesses = question_guesses
        self.hold_undos = hold_undos
        self._lock = asyncio.Lock()  # one run at a time: the planner holds one session's plan

    @property
    def budget(self) -> ContextBudget:
        """The context budget (the model's window is looked up on first use, not at init)."""
        if self._budget is None:
            self._budget = ContextBudget(self._context_window or self.model.context_window)
        return self._budget

    async def _open(self, mission: str, session_id: str, on_event: EventCallback | None) -> Run:
        """Load (or start) the session and set up the run."""
        mission = self.redactor.text(scrub(mission))  # storable, and without secrets
        session = Session(self.store, session_id, self.redactor)
        existed = await session.open(self.history_limit)
        approvals.refuse_if_paused(session)
        session.state["model"] = model_record(self.model)  # saved with the session below
        self.planner.set_state(session.state.get("plan") if existed else None)
        plan = self.planner.plan
        resume = (
            existed
            and current_request(session.state) == mission
            and (session.state.get("status") != AgentStatus.COMPLETED.value)
        )
        question = planning.asks_about_plan(mission)  # answered from the plan, never planned
        wants_plan = planning.needs_plan(mission) if self.plan_first is None else self.plan_first
        wants_plan = wants_plan and not question
        offer = self.plan_first is not None or wants_plan or bool(plan.steps)
        if resume:
            mine = [i for i, m in enumerate(session.history) if m == user(mission)]
            if not mine:
                session.prepend(user(mission))
            session.add(user(prompts.RESUMED))
            pinned, plan_required = (mine or [0])[-1], wants_plan and not plan.steps
        else:
            session.add(user(mission))
            pinned = len(session.history) - 1
            plan_required = wants_plan and not plan.open_steps()
        run = self._run(session, mission, pinned, plan_required, on_event, offer)
        # a finished plan is not news, except to a resumed run (others may have finished it)
        run.recite(force=resume or question or bool(plan.open_steps()))
        if not question or not current_request(session.state):  # a question leaves the work
            session.take_request(mission)  # a new request keeps the mission as the title
        await session.save(plan=plan, status=AgentStatus.RUNNING.value)
        return run

    async def _reopen(self, session_id: str, on_event: EventCallback | None) -> Run:
        """Load a paused session for :meth:`resume` (nothing is saved yet)."""
        session = Session(self.store, session_id, self.redactor)
        if not await session.open(self.history_limit):
            raise SessionNotFoundError(f"no session {session_id!r}")
        session.state["model"] = model_record(self.model)
        self.planner.set_state(session.state.get("plan"))
        mission = current_request(session.state)
        mine = [i for i, m in enumerate(session.history) if m == user(mission)]
        if not mine:
            session.prepend(user(mission))
        return self._run(session, mission, (mine or [0])[-1], False, on_event)

    def _run(
        self,
        session: Session,
        mission: str,
        pinned: int,
        plan_required: bool,
        on_event: EventCallback | None,
        offer: bool = True,
    ) -> Run:
        version = self.planner.plan.version
        system = self.system_prompt
        if not offer and system == prompts.DEFAULT_SYSTEM_PROMPT:
            system = prompts.NO_PLANNING_SYSTEM_PROMPT  # the planner is not offered
        wiring = Wiring(
            model=self.model, tools=self.tools, specs=self.specs, planner=self.planner,
            system={"role": "system", "content": system}, budget=self.budget,
            events=self.events.with_callback(on_event), redactor=self.redactor,
        )  # fmt: skip
        evidence = None
        if self.question_guesses:  # what the model was given: the system, tools, history
            evidence = grounding.given(system, self.specs, session.history, self.planner.name)
        return Run(
            wiring=wiring, session=session, mission=mission, pinned=pinned,
            watch=PlanWatch(
                required=plan_required, announced=version, recited=version, offered=offer,
                opened=version,
            ),
            guard=CallGuard(
                self.max_tool_calls_per_turn, require_work=self.require_work_before_done,
                lookups=[
                    name for name, tool in self.tools.items()
                    if is_read_only(tool) and tool is not self.planner
                ],
                actions=[n for n, t in self.tools.items() if t is not self.planner],
                evidence=evidence, one_step=self._one_step(mission, offer), draft=self._drafted,
                undo=UndoWatch(mission) if self.hold_undos else None,
            ),
            finish_guard=FinishGuard(self.max_finish_reminders),
        )  # fmt: skip

    def _drafted(self, request: PlanRequest, plan: Plan) -> Plan:
        """`plan` after `request` (the same plan if it is refused); nothing is changed."""
        try:
            return self.planner.change(request, plan).plan
        except (PlanError, ToolInputError):
            return plan

    def _one_step(self, mission: str, offer: bool) -> bool:
        """Whether `mission` is judged one step: its successful actions ask for the answer.

        With planning: the planner was not offered for it; without, by the same judgement.
        """
        if self.planning:
            return self.plan_first is None and not offer
        return not planning.needs_plan(mission)

    # ---- the loop ----------------------------------------------------------------------

    async def stream(
        self, mission: str, session_id: str | None = None
    ) -> AsyncIterator[AgentEvent]:
        """Run like :meth:`execute`, yielding each event as it happens.

        The last event is ``final_answer`` (or ``error`` when the run failed). Leaving the
        loop early cancels the run (what was saved stays saved).
        """
        queue: asyncio.Queue[AgentEvent | None] = asyncio.Queue()
        task = asyncio.create_task(self.execute(mission, session_id, on_event=queue.put_nowait))
        task.add_done_callback(lambda _: queue.put_nowait(None))
        try:
            while (event := await queue.get()) is not None:
                yield event
            task.result()  # a crash of the run is raised here
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def execute(
        self, mission: str, session_id: str | None = None, *, on_event: EventCallback | None = None
    ) -> AgentResult:
        """Run `mission` in `session_id` (new when None or unknown; continued otherwise).

        `on_event` receives this run's events, in addition to the agent's handler.
        """
        if not isinstance(mission, str) or not mission.strip():
            raise ConfigurationError("mission must be a non-empty string")
        if session_id is not None:
            validate_session_id(session_id)  # the store's rule, also for in-memory sessions
        async with self._lock:
            run = await self._open(mission, session_id or uuid.uuid4().hex, on_event)
            return await self._loop(run)

    async def resume(
        self,
        session_id: str,
        approve: bool,
        note: str | None = None,
        *,
        on_event: EventCallback | None = None,
    ) -> AgentResult:
        """Continue a paused session: run the held call (`approve`) or reject it with `note`.

        Approved, the call runs and the loop goes on; rejected, the model gets an error
        result ``rejected by a human: <note>`` and may replan. Either way the run then
        continues like :meth:`execute` (and may pause again).

        Raises:
            SessionNotFoundError: No such session.
            UserError: The session is not paused (never was, or was decided already).
        """
        note = approvals.check_decision(approve, note)
        validate_session_id(session_id)
        async with self._lock:
            run = await self._reopen(session_id, on_event)
            await approvals.decide(run, approve, note)
            return await self._loop(run)

    async def _loop(self, run: Run) -> AgentResult:
        """Turns until an answer, a pause for approval, the step limit or a provider failure."""
        try:
            while run.use.calls < self.max_steps:
                final = await self._turn(run)
                if isinstance(final, approvals.Held):
                    return await approvals.pause(run, final)
                if final is not None:
                    return await run.finish(AgentStatus.COMPLETED, final)
                if run.guard.stuck:  # told to answer, it only repeated calls: stop here
                    return await run.finish(*await stuck.end(run))
            return await run.finish(AgentStatus.MAX_STEPS, run.use.last_content)
        except ProviderError as exc:
            return await run.finish(AgentStatus.FAILED, "", error=exc)
        except Exception as exc:  # a bug or a store failure: never leave the session "running"
            await run.abandon(exc)
            raise

    async def _turn(self, run: Run) -> str | approvals.Held | None:
        """One turn: ask, then accept the answer or run the calls (one may be held).

        Returns the answer, the call held for approval, or None: go on.
        """
        response, items = run.prepare(await run.ask())
        if not response.tool_calls and echo.is_echo(response.content, run.loop_texts()):
            current = planning.current_step(run.plan)  # the echo is dropped: not an answer
            run.session.add(user(prompts.echoed(current, self.planner.name in self.tools)))
            return None
        run.session.add(response.to_message())
        run.use.last_content = response.content or run.use.last_content
        if not response.tool_calls:
            steps = run.open_steps()
            covered = run.guard.require_work and len(steps) <= run.guard.unbacked
            left_out = run.guard.backing.unnamed(run.mission, steps)
            finished = run.watch.finished(run.plan)  # this run's plan: its skips are this run's
            undone = run.guard.backing.undone(run.plan, run.session.history) if finished else []
            progress = (run.guard.backing.runs, run.plan.progress()[0])
            data = textcalls.bare_data(response.content) and "json" not in run.mission.lower()
            reminder = run.finish_guard.check(
                response.content, steps, run.worked(), covered, response.cut_off, left_out,
                undone, progress, data,
            )  # fmt: skip
            if reminder is None:
                return response.content or ""
            run.session.add(user(reminder))
            return None
        items, held = await approvals.hold(run, await run.screen(items))
        await run_calls(items, self.tools, run.on_result)
        if held is None:  # a held call must stay next to its turn: no message between
            run.recite()
        return held
