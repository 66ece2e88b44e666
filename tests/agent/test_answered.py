"""The final answer does the steps that need no tool ("Tell me the result"), and no others."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.planning import answered
from taskforce.agent.prompts import ANSWERED
from taskforce.plan import Plan
from taskforce.store import StateManager
from taskforce.testing import ScriptedModel, call, reply
from tests.agent.helpers import Events


@pytest.fixture
async def sm(tmp_path: Path) -> AsyncIterator[StateManager]:
    async with StateManager(f"sqlite+aiosqlite:///{tmp_path / 'answered.db'}") as manager:
        yield manager


def plan_of(*tasks: Any) -> Plan:
    steps = [{"description": t} if isinstance(t, str) else t for t in tasks]
    return Plan.from_state({"tasks": steps})


def test_answered_is_every_open_step_when_none_needs_a_tool() -> None:
    plan = plan_of(
        {"description": "Look up the weather in Oslo", "status": "DONE"},
        "Decide whether a coat is needed",
        "Tell me the result",
    )
    assert answered(plan) == (2, 3)


@pytest.mark.parametrize(
    "tasks",
    [
        ["Look up the weather in Oslo", "Tell me the result"],  # a tool step is still open
        [{"description": "Tell the board the result", "requires_approval": True}],
        [{"description": "Tell me", "status": "DONE"}],  # nothing open
    ],
)
def test_answered_is_nothing_otherwise(tasks: list[Any]) -> None:
    assert answered(plan_of(*tasks)) == ()


async def test_an_answer_finishes_the_report_step(tools: Any, sm: StateManager) -> None:
    events = Events()
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Tell me the result"]),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1]),
            reply("Oslo: 4°C, rain"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], state_manager=sm, plan_first=False)
    result = await agent.execute("Weather in Oslo, then tell me", "s1", on_event=events)
    assert result.status is AgentStatus.COMPLETED and result.open_steps == ()
    assert [s.status.value for s in result.plan.steps] == ["DONE", "DONE"]
    assert result.plan.steps[1].note == ANSWERED
    assert "[x] 2. Tell me the result" in events.of("plan_updated")[-1].data["markdown"]
    stored = await sm.load_state("s1")
    assert stored is not None and stored["status"] == "completed"
    assert [t["status"] for t in stored["plan"]["tasks"]] == ["DONE", "DONE"]
    history = await sm.get_history("s1")
    done = [(e.step_id, e.note) for e in history if e.to_status == "DONE"]
    assert ("s2", ANSWERED) in done, history


async def test_an_answer_with_a_tool_step_open_finishes_nothing(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Tell me the result"]),
            reply("It is probably cold."),  # sent back: step 1 needs a tool
            reply("It is cold."),
            reply("Cold."),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False)
    result = await agent.execute("Weather in Oslo, then tell me")
    assert result.status is AgentStatus.INCOMPLETE
    assert [s.status.value for s in result.plan.steps] == ["PENDING", "PENDING"]


async def test_a_question_about_the_plan_does_not_finish_its_steps(sm: StateManager) -> None:
    state = plan_of({"description": "Book the hall", "status": "DONE"}, "Tell Ann the date")
    await sm.save_state("q", {"mission": "Book the hall and tell Ann", "plan": state.to_state()})
    model = ScriptedModel([reply("Telling Ann the date is left.")])
    agent = LeanAgent(model=model, state_manager=sm)
    result = await agent.execute("What is left?", "q")
    assert result.status is AgentStatus.INCOMPLETE
    assert [s.status.value for s in result.plan.steps] == ["DONE", "PENDING"]
