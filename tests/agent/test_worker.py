"""Workers on a shared plan, in one process over a real SQLite file (models scripted)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from taskforce.agent import LeanAgent
from taskforce.agent.team import Team
from taskforce.agent.worker import Worker, WorkerEvent, describe, step_agent
from taskforce.errors import ConfigurationError
from taskforce.models.base import Message, ModelResponse, ToolSpec
from taskforce.plan import Plan, StepStatus
from taskforce.store import StateManager
from taskforce.testing import FunctionModel, call, reply


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[StateManager]:
    async with StateManager(f"sqlite+aiosqlite:///{tmp_path / 'team.db'}") as sm:
        yield sm


async def seed(store: StateManager, tasks: list[Any], sid: str = "team") -> None:
    plan = Plan().replaced(tasks)
    await store.save_state(sid, {"mission": "Compare databases", "plan": plan.to_state()})


def answering(seen: list[tuple[str, str]]) -> FunctionModel:
    """A worker model that answers its step at once, recording (system prompt, step)."""

    def fn(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        system, step = str(messages[0]["content"]), str(messages[1]["content"])
        seen.append((system, step))
        return reply(f"result of {step}")

    return FunctionModel(fn)


async def test_workers_share_the_plan_and_pass_results_on(store: StateManager) -> None:
    await seed(store, ["Fetch A", "Fetch B", {"description": "Compare", "depends_on": [1, 2]}])
    seen: list[tuple[str, str]] = []
    events: list[WorkerEvent] = []
    workers = [
        Worker(store, "team", name, step_agent(answering(seen)), lease=30, on_event=events.append)
        for name in ("alice", "bob")
    ]
    reports = await asyncio.gather(*(w.run() for w in workers))
    state = await store.load_state("team")
    assert state is not None
    tasks = state["plan"]["tasks"]
    assert [t["status"] for t in tasks] == ["DONE"] * 3
    assert tasks[2]["note"] == "result of Compare"
    assert sorted(n for r in reports for n in r.done) == [1, 2, 3]
    assert {r.reason for r in reports} == {"every step is finished"}
    system = next(s for s, step in seen if step == "Compare")
    assert "step 1 (Fetch A): result of Fetch A" in system
    assert "step 2 (Fetch B): result of Fetch B" in system
    assert "The plan is for" not in system or "Compare databases" in system
    kinds = [e.kind for e in events]
    assert kinds.count("claimed") == 3 and kinds.count("finished") == 3
    assert describe(events[0]).startswith(("alice claimed step", "bob claimed step"))


async def test_a_step_freed_between_a_failed_claim_and_the_look_is_claimed_not_left(
    store: StateManager,
) -> None:
    """Bob's claim finds nothing (step 1 is held); before he looks at the plan, the holder
    finishes it, so step 2 is ready. Bob must claim it, not leave with it undone.
    """
    await seed(store, ["Fetch", {"description": "Report", "depends_on": [1]}])
    first = await store.claim_step("team", "alice", 30)
    assert first is not None

    class FinishedMeanwhile(StateManager):
        async def claim_step(self, *args: Any, **kwargs: Any) -> Any:
            claim = await super().claim_step(*args, **kwargs)
            if claim is None and first is not None:
                await self.finish_step("team", first.step.id, "alice", StepStatus.DONE, "ok")
            return claim

    seen: list[tuple[str, str]] = []
    async with FinishedMeanwhile(store.engine.url.render_as_string(hide_password=False)) as racing:
        report = await Worker(racing, "team", "bob", step_agent(answering(seen))).run()
    state = await store.load_state("team")
    assert state is not None
    assert [t["status"] for t in state["plan"]["tasks"]] == ["DONE", "DONE"]
    assert report.done == [2]
    assert report.reason == "every step is finished"


async def test_a_run_that_does_not_complete_fails_the_step(store: StateManager) -> None:
    await seed(store, ["Impossible", {"description": "After", "depends_on": [1]}])

    def looping(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        return call("planner", action="read_plan")

    worker = Worker(store, "team", "alice", step_agent(FunctionModel(looping), max_steps=2))
    report = await worker.run()
    state = await store.load_state("team")
    assert state is not None
    first = state["plan"]["tasks"][0]
    assert first["status"] == "FAILED" and first["note"].startswith("max_steps")
    assert report.failed == [1] and "failed step 1" in report.reason


async def test_a_lost_claim_drops_the_result(store: StateManager) -> None:
    await seed(store, ["Slow"])
    started = asyncio.Event()

    async def slow(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        started.set()
        await asyncio.sleep(3600)  # cancelled when the claim is lost
        return reply("never")

    worker = Worker(store, "team", "alice", step_agent(FunctionModel(slow)), lease=0.3)
    task = asyncio.create_task(worker.run())
    await started.wait()
    # a human takes the step away while alice works on it
    await store.finish_step("team", "s1", None, "SKIPPED", "not needed")
    report = await asyncio.wait_for(task, 120)
    assert report.lost == [1] and report.done == []
    state = await store.load_state("team")
    assert state is not None and state["plan"]["tasks"][0]["note"] == "not needed"


async def test_cancelling_a_worker_gives_its_step_back(store: StateManager) -> None:
    await seed(store, ["Long"])
    started = asyncio.Event()

    async def slow(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        started.set()
        await asyncio.sleep(3600)
        return reply("never")

    task = asyncio.create_task(
        Worker(store, "team", "alice", step_agent(FunctionModel(slow))).run()
    )
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    state = await store.load_state("team")
    assert state is not None
    step = state["plan"]["tasks"][0]
    assert step["status"] == "PENDING" and "interrupted" in step["note"]
    assert "step_released" in [h.kind for h in await store.get_history("team")]


async def test_a_team_plans_works_and_answers(store: StateManager) -> None:
    def lead_fn(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        last = str(messages[-1].get("content") or "")
        planned = any(  # the plan shows as a tool result or as the recitation
            m.get("role") == "tool" or str(m.get("content")).startswith("[Plan update]")
            for m in messages
        )
        if not planned:
            return call("planner", action="create_plan", tasks=["Part one", "Part two"])
        assert "result of Part one" in last or any(
            "result of Part two" in str(m.get("content")) for m in messages
        )
        return reply("Both parts are done.")

    lead_model = FunctionModel(lead_fn)

    def lead(max_steps: int, plan_first: bool) -> LeanAgent:
        return LeanAgent(
            lead_model, state_manager=store, max_steps=max_steps, plan_first=plan_first
        )

    seen: list[tuple[str, str]] = []
    team = Team(store, lead, 2, step_agent(answering(seen)), lease=30)
    result = await team.run("Do both parts", "job")
    assert result.status.value == "completed" and result.final_message == "Both parts are done."
    assert sorted(step for _, step in seen) == ["Part one", "Part two"]
    state = await store.load_state("job")
    assert state is not None and state["status"] == "completed"
    assert [t["owner"] for t in state["plan"]["tasks"]] != [None, None]
    with pytest.raises(ConfigurationError):
        Team(store, lead, ["x", "x"], step_agent(answering(seen)))
