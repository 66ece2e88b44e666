"""A worker on a shared plan: claim a step, work it with an agent of its own, write the result.

The team layer above :class:`~taskforce.agent.LeanAgent` (the loop knows nothing of it).
A :class:`Worker` joins a session's plan through the store from any process or machine
that reaches the database, and until nothing is left to claim:

1. claims the next runnable step (:meth:`~taskforce.store.StateManager.claim_step`),
   with a lease it renews in the background while it works;
2. runs a fresh agent (its own context) on the step, briefed with the plan's mission
   and the notes of the steps it depends on, and told when the step was interrupted
   before (:func:`taskforce.agent.team_prompts.step_briefing`);
3. finishes the step with the agent's answer as its note (FAILED, with why, when the run
   did not complete), so the steps after it see the result.

When nothing can be claimed but other workers hold steps, it waits on the store's change
feed (never polling the plan) until something changes or the first of their leases runs
out; it leaves when every step is finished, or when what is left needs a human.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from taskforce.agent import team_prompts
from taskforce.agent.result import AgentStatus
from taskforce.errors import ClaimError, SessionNotFoundError
from taskforce.plan import Plan, StepStatus
from taskforce.plan.claims import Backlog, Claim, backlog
from taskforce.plan.step import check_owner
from taskforce.plan.text import clean_text

if TYPE_CHECKING:
    from taskforce.agent.loop import LeanAgent
    from taskforce.models.base import Model
    from taskforce.store import StateManager

log = logging.getLogger("taskforce.team")

MAX_WAIT = 30.0
"""Longest wait on the change feed before looking at the plan again (a safety net)."""
_NOTE = 500


@dataclass(frozen=True, slots=True)
class WorkerEvent:
    """What a worker did, for a UI: ``claimed``, ``finished``, ``lost``, ``waiting``, ``left``.

    `step` is the step's number (None for ``waiting``/``left``); `text` says the rest in
    one line (the step, its note, or why the worker waits or leaves).
    """

    kind: str
    owner: str
    text: str
    step: int | None = None
    status: str | None = None


WorkerCallback = Callable[[WorkerEvent], None]
AgentFactory = Callable[[str], "LeanAgent"]
"""Makes the agent that works one step, given its briefing (a fresh one each time)."""


@dataclass
class WorkerReport:
    """What a worker did before it left, and why it left."""

    owner: str
    done: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    lost: list[int] = field(default_factory=list)
    reason: str = ""


class Worker:
    """Works a shared plan's steps until nothing is left to claim.

    Args:
        store: The store holding the session (any process may share it).
        session_id: The session whose plan is worked.
        owner: This worker's name (unique among the session's workers).
        agent: Makes the agent for one step from its briefing (see :func:`step_agent`).
        lease: Seconds a claim lasts without renewal (renewed every third of it).
        on_event: Receives :class:`WorkerEvent` values.
        poll_interval: How often the change feed looks at an SQLite database.
    """

    def __init__(
        self,
        store: StateManager,
        session_id: str,
        owner: str,
        agent: AgentFactory,
        *,
        lease: float = 60.0,
        on_event: WorkerCallback | None = None,
        poll_interval: float = 0.25,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.owner = check_owner(owner)
        self.lease = lease
        self._agent = agent
        self._on_event = on_event
        self._poll = poll_interval
        self.report = WorkerReport(self.owner)

    async def run(self) -> WorkerReport:
        """Claim and work steps until none is left to claim; what this worker did.

        Cancelling it (Ctrl-C) gives the step in hand back (released, with a note).

        Raises:
            SessionNotFoundError: no such session.
        """
        while True:
            claim = await self.store.claim_step(self.session_id, self.owner, self.lease)
            if claim is not None:
                await self.work(claim)
                continue
            plan, approved, version = await self._plan()
            left = backlog(plan, approved)
            if left.claimable:  # another worker finished what it waited for since the claim
                continue
            if left.done or not left.held:
                self.report.reason = team_prompts.leaving(plan, left)
                self._emit("left", self.report.reason)
                return self.report
            self._emit("waiting", team_prompts.waiting(plan, left))
            await self._wait(version, left)

    async def work(self, claim: Claim) -> None:
        """Work one claimed step and finish it (or note that the claim was lost)."""
        number, step = claim.number, claim.step
        self._emit("claimed", step.description, number)
        history = await self.store.get_history(self.session_id)
        before = any(h.kind == "step_interrupted" and h.step_id == step.id for h in history)
        briefing = team_prompts.step_briefing(claim, self.owner, interrupted=before)
        lost = asyncio.Event()
        keeper = asyncio.create_task(self._keep(step.id, lost))
        runner = asyncio.create_task(self._agent(briefing).execute(step.description))
        try:
            await asyncio.wait({runner, keeper}, return_when=asyncio.FIRST_COMPLETED)
            if lost.is_set():
                runner.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await runner
                self.report.lost.append(number)
                self._emit(
                    "lost", "the claim was lost (lease ran out); the result is dropped", number
                )
                return
            result = runner.result()
        except asyncio.CancelledError:
            await self._give_back(step.id, "interrupted: the worker was stopped")
            raise
        except Exception as exc:
            await self._give_back(step.id, f"the worker failed: {type(exc).__name__}")
            raise
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        ok = result.status is AgentStatus.COMPLETED
        note = result.final_message if ok else f"{result.status.value}: {result.final_message}"
        await self.finish(claim, StepStatus.DONE if ok else StepStatus.FAILED, note)

    async def finish(self, claim: Claim, status: StepStatus, note: str) -> None:
        """Finish the claimed step with `note` (cut to one line of 500 characters)."""
        text = clean_text(note)[:_NOTE] or "(no result given)"
        try:
            await self.store.finish_step(self.session_id, claim.step.id, self.owner, status, text)
        except ClaimError as exc:
            self.report.lost.append(claim.number)
            self._emit("lost", str(exc), claim.number)
            return
        (self.report.done if status is StepStatus.DONE else self.report.failed).append(claim.number)
        self._emit("finished", text, claim.number, status.value)

    async def _keep(self, step_id: str, lost: asyncio.Event) -> None:
        """Renew the lease every third of it until cancelled; set `lost` if it is gone."""
        while True:
            await asyncio.sleep(self.lease / 3)
            try:
                await self.store.renew_lease(self.session_id, step_id, self.owner, self.lease)
            except ClaimError:
                lost.set()
                return
            except Exception as exc:  # the database may come back before the lease ends
                log.warning("worker %s: renewing the lease failed: %s", self.owner, exc)

    async def _give_back(self, step_id: str, note: str) -> None:
        with contextlib.suppress(ClaimError, SessionNotFoundError):
            await asyncio.shield(
                self.store.release_step(self.session_id, step_id, self.owner, note)
            )

    async def _plan(self) -> tuple[Plan, Sequence[str], int]:
        state = await self.store.load_state(self.session_id)
        if state is None:
            raise SessionNotFoundError(f"no session {self.session_id!r}")
        approved = state.get("approved_steps")
        ids = [a for a in approved if isinstance(a, str)] if isinstance(approved, list) else []
        return Plan.from_state(state.get("plan")), ids, int(state["version"])

    async def _wait(self, version: int, left: Backlog) -> None:
        """Until the session changes after `version`, or the first held lease runs out."""
        timeout = MAX_WAIT
        expiry = left.next_expiry()
        if expiry is not None:
            timeout = min(timeout, max(0.0, (expiry - datetime.now(UTC)).total_seconds()) + 0.1)
        await next_change(self.store, self.session_id, version, timeout, self._poll)

    def _emit(
        self, kind: str, text: str, step: int | None = None, status: str | None = None
    ) -> None:
        if self._on_event is not None:
            self._on_event(WorkerEvent(kind, self.owner, text, step, status))


def describe(event: WorkerEvent) -> str:
    """One line for a worker event (``alice finished step 3 (DONE): 42 rows``)."""
    where = f" step {event.step}" if event.step is not None else ""
    status = f" ({event.status})" if event.status else ""
    return f"{event.owner} {event.kind}{where}{status}: {event.text}"


def step_agent(model: Model | str, **options: Any) -> AgentFactory:
    """An :data:`AgentFactory` of :class:`LeanAgent` on `model`.

    Each agent gets the briefing added to the default system prompt, no plan required
    first, and keeps its session in memory (the record is the shared plan).

    `options` go to :class:`LeanAgent` (``tools``, ``max_steps``, ...).
    """
    from taskforce.agent.loop import LeanAgent
    from taskforce.agent.prompts import DEFAULT_SYSTEM_PROMPT

    def make(briefing: str) -> LeanAgent:
        prompt = f"{DEFAULT_SYSTEM_PROMPT}\n\n{briefing}"
        return LeanAgent(model, system_prompt=prompt, **{"plan_first": False, **options})

    return make


async def next_change(
    store: StateManager,
    session_id: str,
    version: int,
    wait: float = MAX_WAIT,
    poll_interval: float = 0.5,
) -> None:
    """Until `session_id` changes after `version` (on the store's change feed), or `wait` s."""
    feed = store.changes(session_id, known={session_id: version}, poll_interval=poll_interval)
    try:
        async with asyncio.timeout(wait):
            await anext(feed)
    except TimeoutError:
        pass
    finally:
        await feed.aclose()
