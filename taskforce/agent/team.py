"""A team in one process: a lead agent plans, N workers work the plan, the lead answers.

A layer above :class:`~taskforce.agent.LeanAgent` and :class:`~taskforce.agent.worker.Worker`:

1. the lead runs one turn on the session with a plan required (``plan_first``): it makes
   the plan, and the turn ends (a session that already has open steps keeps them);
2. N workers (``worker-1`` ... or the names given) claim and work the steps concurrently,
   each step with its own agent; workers in other processes or on other machines
   (``taskforce work SESSION``) can join the same session at any time. With no local
   workers the team waits, on the change feed, for those;
3. when no step is open (or none can be worked any more), the lead continues the session:
   it sees the finished plan with every step's note and writes the answer.

The lead's run and the answer are one session (its conversation and history); the
workers' own conversations live in memory, their results in the plan's notes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from taskforce.agent.worker import (
    AgentFactory,
    Worker,
    WorkerCallback,
    WorkerReport,
    next_change,
)
from taskforce.errors import ConfigurationError
from taskforce.plan import Plan, StepStatus
from taskforce.plan.claims import gated

if TYPE_CHECKING:
    from taskforce.agent.loop import LeanAgent
    from taskforce.agent.result import AgentResult
    from taskforce.store import StateManager


LeadFactory = Callable[[int, bool], "LeanAgent"]
"""Makes the lead's agent from (``max_steps``, ``plan_first``)."""


class Team:
    """A lead and its workers on one session's plan.

    Args:
        store: Where the session lives (workers elsewhere share it through the database).
        lead: Makes the lead agent from ``max_steps`` and ``plan_first`` (the plan turn
            and the answer use two agents on the same session).
        workers: How many local workers, or their names.
        agent: Makes each worker's agent for one step, from its briefing.
        lease: Seconds a worker's claim lasts without renewal.
        on_worker_event: Receives every worker's events.
        max_steps: Model calls the lead may make for its answer.
    """

    def __init__(
        self,
        store: StateManager,
        lead: LeadFactory,
        workers: int | Sequence[str],
        agent: AgentFactory,
        *,
        lease: float = 60.0,
        on_worker_event: WorkerCallback | None = None,
        max_steps: int = 30,
    ) -> None:
        if isinstance(workers, int):
            if workers < 0:
                raise ConfigurationError("workers must be a count >= 0 or distinct names")
            names = [f"worker-{i}" for i in range(1, workers + 1)]
        else:
            names = list(workers)
        if len(set(names)) != len(names):
            raise ConfigurationError("workers must be a count >= 0 or distinct names")
        self.store = store
        self.names = names
        self._lead = lead
        self._agent = agent
        self._lease = lease
        self._emit = on_worker_event
        self._max_steps = max_steps
        self.reports: list[WorkerReport] = []

    async def run(self, mission: str, session_id: str) -> AgentResult:
        """Plan `mission` in `session_id`, have it worked, and answer; the lead's result."""
        plan = await self._plan_of(session_id)
        if plan is None or not plan.open_steps():
            await self._lead(1, True).execute(mission, session_id)  # one turn: the plan
        await self.store.update_state(session_id, self._working(mission))
        workers = [
            Worker(self.store, session_id, n, self._agent, lease=self._lease, on_event=self._emit)
            for n in self.names
        ]
        self.reports = list(await asyncio.gather(*(w.run() for w in workers)))
        if not workers:
            await self._wait_for_others(session_id)
        return await self._lead(self._max_steps, False).execute(mission, session_id)

    async def _plan_of(self, session_id: str) -> Plan | None:
        state = await self.store.load_state(session_id)
        return Plan.from_state(state.get("plan")) if state is not None else None

    @staticmethod
    def _working(
        mission: str,
    ) -> Callable[[dict[str, Any] | None], tuple[dict[str, Any], list[Any]]]:
        """The change marking the session running for its workers.

        When the lead made no plan, the mission itself becomes the one step.
        """

        def change(current: dict[str, Any] | None) -> tuple[dict[str, Any], list[Any]]:
            state = {k: v for k, v in (current or {}).items() if k != "version"}
            plan = Plan.from_state(state.get("plan"))
            if not plan.steps:
                state["plan"] = plan.replaced([mission[:500]]).to_state()
            state["status"] = "running"
            return state, []

        return change

    async def _wait_for_others(self, session_id: str) -> None:
        """With no local workers: wait (on the change feed) until no step can be worked."""
        while True:
            state = await self.store.load_state(session_id)
            if state is None:
                return
            plan = Plan.from_state(state.get("plan"))
            approved = state.get("approved_steps") or []
            held = any(s.status is StepStatus.IN_PROGRESS for s in plan.steps)
            ready = [s for s in plan.runnable_steps() if not gated(plan, s, approved)]
            if not held and not ready:
                return
            await next_change(self.store, session_id, int(state["version"]))
