"""One run: a mission in an arm with a fresh world and a fresh agent, measured.

Each user turn of the mission is one ``LeanAgent.execute`` in the same session. The
model is wrapped in a :class:`~taskforce.evals.meter.MeteredModel`; the agent's events
feed the plan-tick tally and the transcript; the checker reads the world at the end.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from taskforce.agent import AgentEvent, AgentResult, LeanAgent
from taskforce.agent.planning import step_needs_tool
from taskforce.errors import (
    ConfigurationError,
    ContextWindowExceededError,
    MalformedReplyError,
    ProviderError,
)
from taskforce.evals.arms import Arm
from taskforce.evals.meter import MeteredModel, TokenCounter
from taskforce.evals.mission import Mission, MultiTurnWorld
from taskforce.evals.record import (
    RunKey,
    RunRecord,
    TickTally,
    comparable_settings,
    is_false_completion,
)
from taskforce.models.base import Model
from taskforce.plan import StepStatus

__all__ = ["ModelFactory", "RunSettings", "run_mission"]

ModelFactory = Callable[[Mission, Arm], Model]
"""Builds the model for one run (a fresh one where the model holds state, e.g. a script)."""

_KEPT_EVENTS = {"llm_call", "plan_updated", "error", "final_answer"}


@dataclass(frozen=True)
class RunSettings:
    """Limits and settings shared by every run of an evaluation.

    Args:
        max_steps: Model calls allowed per user turn (LeanAgent's ``max_steps``).
        timeout: Wall-time limit of one run, in seconds (then it counts as ``timeout``).
        context_window: The context size the agent budgets for (None: the model's).
        temperature: 0 (the default) decodes greedily: a repeat is the same run again.
            Above 0 each repeat samples its own path: repeat r's run is seeded
            ``seed + r`` and each of its requests with a seed of its own mixed from that
            (:mod:`taskforce.evals.sampling`), so ``--repeat N`` shows the spread of N
            paths and a rerun of one path asks for the same seeds.
        seed: The first repeat's seed when sampling (ignored at temperature 0).

    Raises:
        ConfigurationError: If the temperature is not in [0, 2] or the seed is negative.
    """

    max_steps: int = 20
    timeout: float = 900.0
    context_window: int | None = None
    temperature: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        t = self.temperature
        if isinstance(t, bool) or not isinstance(t, int | float) or not 0 <= t <= 2:
            raise ConfigurationError("temperature must be a number from 0 to 2")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigurationError("seed must be an integer >= 0")

    @property
    def sampled(self) -> bool:
        """True when runs sample (temperature above 0), so repeats are different paths."""
        return self.temperature > 0

    def seed_of(self, repeat: int) -> int:
        """The seed of a repeat's run (its requests' seeds are mixed from it) when sampling."""
        return self.seed + repeat

    def digest(self, arm: Arm) -> str:
        """A hash of the arm's options and these settings (the runs they make compare).

        Greedy settings hash as they did before sampling existed, so stored greedy runs
        still resume; sampled ones add their temperature and first seed.
        """
        data = {"arm": dict(arm.options), **comparable_settings(asdict(self))}
        if self.sampled:  # how seeds are spread (one per request of a run)
            data["seeds"] = "request"
        text = json.dumps(data, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:12]


def run_key(
    suite: str, mission: Mission, arm: Arm, repeat: int, model: str, s: RunSettings
) -> RunKey:
    """The key a run's result is stored under."""
    return RunKey(suite, mission.id, arm.name, repeat, model, s.digest(arm), mission.fingerprint)


async def run_mission(
    mission: Mission,
    arm: Arm,
    model: Model,
    key: RunKey,
    settings: RunSettings,
    counter: TokenCounter | None = None,
) -> RunRecord:
    """Run `mission` once in `arm` with `model`; never raises for the run's own failures.

    `counter` sizes the requests exactly (see ``meter.py``); None: estimates.

    The model's failures end the run as ``failed`` (a reply the provider cannot parse, a
    prompt too big for the window), other exceptions as ``crashed``, the wall limit as
    ``timeout``; each is recorded with its message. Cancellation propagates (an
    interrupted evaluation resumes this run later).

    Raises:
        ConfigurationError: the mission's world cannot be made, or its tools are not
            tools (a bug in its suite).
        ProviderError: the run failed because the provider did (unreachable, timing out
            after its retries, refusing the key or the model): such a run says nothing
            about the model or the arm, so it is not judged, and not stored, but raised.
    """
    record = RunRecord(key=key, started_at=datetime.now(UTC).isoformat(timespec="seconds"))
    world, tools = await mission.new_world()
    metered = MeteredModel(model, counter)
    events: list[dict[str, Any]] = []
    tally = TickTally()
    counts = {"tasks": 0, "tool_calls": 0}

    agent: LeanAgent

    def on_event(event: AgentEvent) -> None:
        kind, data = event.kind.value, event.data
        if kind == "tool_call":
            tally.on_call(
                str(data.get("id")),
                str(data.get("name")),
                bool(data.get("runs")),
                bool(data.get("reuses")),
            )
            counts["tool_calls"] += data.get("name") != "planner"
        elif kind == "tool_result":
            tally.on_result(str(data.get("id")), data.get("success") is not False)
        elif kind == "plan_updated":
            plan = agent.planner.plan
            steps = plan.steps
            done = sum(s.status is StepStatus.DONE and step_needs_tool(plan, s) for s in steps)
            tally.on_plan(done, created=len(steps) != counts["tasks"])
            counts["tasks"] = len(steps)
        elif kind == "error" and "context" in str(data.get("message", "")).lower():
            record.overflows += 1
        if kind in _KEPT_EVENTS:
            events.append({"kind": kind, **data})

    try:
        agent = LeanAgent(
            model=metered, tools=tools, max_steps=settings.max_steps,
            context_window=settings.context_window, on_event=on_event, **dict(arm.options),
        )  # fmt: skip
    except ConfigurationError as exc:  # e.g. its world's tools: two of one name, not a tool
        raise ConfigurationError(f"mission {mission.id!r}: {exc}") from None
    session_id = uuid.uuid4().hex
    started = time.monotonic()
    result: AgentResult | None = None
    try:
        async with asyncio.timeout(settings.timeout):
            for index, turn in enumerate(mission.turns):
                if isinstance(world, MultiTurnWorld):
                    world.begin_turn(index)
                result = await agent.execute(turn, session_id)
                if result.error:
                    break
        record.status = result.status.value if result else "crashed"
        if result is not None and result.error:
            record.errors.append(result.error)
    except TimeoutError:
        record.status = "timeout"
        record.errors.append(f"timeout: the run took longer than {settings.timeout:g} s")
    except Exception as exc:
        record.status = "crashed"
        record.errors.append(f"crash: {type(exc).__name__}: {exc}"[:2000])
    failure = metered.failure
    if record.status == "failed" and failure is not None and _not_the_models(failure):
        raise failure
    record.seconds = round(time.monotonic() - started, 2)
    answer = result.final_message if result is not None and not result.error else ""
    await _finish(record, mission, world, agent, metered, answer, session_id, events)
    record.tool_calls = counts["tool_calls"]
    record.no_work_ticks = tally.no_work
    return record


async def _finish(
    record: RunRecord,
    mission: Mission,
    world: Any,
    agent: LeanAgent,
    metered: MeteredModel,
    answer: str,
    session_id: str,
    events: list[dict[str, Any]],
) -> None:
    """Judge the world, read the plan and the tokens, keep the transcript."""
    verdict = await mission.judge(world, answer)
    record.solved, record.reason = verdict.solved, verdict.reason
    record.final_answer = answer
    plan = agent.planner.plan
    record.plan_steps = len(plan.steps)
    record.final_plan = plan.render() if plan.steps else ""
    record.all_ticked = bool(plan.steps) and not plan.open_steps()
    record.false_completion = is_false_completion(
        record.solved, record.status, answer, record.all_ticked
    )
    split = metered.split
    record.turns = split.requests
    record.tokens = split.as_dict()
    provider = split.usage.prompt_tokens > 0
    record.input_tokens = split.usage.prompt_tokens if provider else split.estimated_input
    record.output_tokens = split.usage.completion_tokens if provider else split.estimated_output
    record.tokens["source"] = "provider" if provider else "estimate"
    record.tokens["sizes"] = "estimated" if metered.counter is None else "exact"
    record.planning_tokens = round(split.planning_share * record.input_tokens)
    messages = await agent.store.load_messages(session_id)
    record.transcript = {
        "system": agent.system_prompt,
        "tools": [t["function"]["name"] for t in agent.specs],
        "messages": messages,
        "events": events,
        "world": _describe(world),
    }


def _not_the_models(failure: ProviderError) -> bool:
    """Whether the provider failed for a reason of its own (not the model's reply or size)."""
    return not isinstance(failure, MalformedReplyError | ContextWindowExceededError)


def _describe(world: Any) -> Any:
    """The world's own summary for the transcript (``snapshot()`` if it has one)."""
    snapshot = getattr(world, "snapshot", None)
    if callable(snapshot):
        try:
            return snapshot()
        except Exception as exc:
            return f"snapshot failed: {type(exc).__name__}: {exc}"
    return repr(world)[:2000]


def settings_dict(settings: RunSettings) -> dict[str, Any]:
    """The settings as JSON-ready data (for the records' meta)."""
    return asdict(settings)
