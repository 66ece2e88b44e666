"""A new request on a session extends it (13.8): finished steps stay, the title stays.

`run "Now also publish it" --session S` (and every chat message) is a new request on an
existing session; it used to replace the plan (finished steps gone) and the mission.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.session import current_request
from taskforce.models.base import Message, ModelResponse, ToolSpec
from taskforce.models.offline import NO_TOOL_NOTE, OfflineModel
from taskforce.plan import Plan
from taskforce.store import StateManager
from taskforce.testing import FunctionModel, ScriptedModel, call, reply

REPORT = "Write the quarterly report"
DONE_STEPS = ["Collect the numbers", "Draft the text", "Check the figures"]


@pytest.fixture
async def sm(tmp_path: Path) -> AsyncIterator[StateManager]:
    async with StateManager(f"sqlite+aiosqlite:///{tmp_path}/requests.db") as manager:
        yield manager


async def finished_session(sm: StateManager, sid: str) -> None:
    """A session (as a Plan.md import leaves it) whose three steps are done."""
    tasks = [{"description": d, "status": "DONE"} for d in DONE_STEPS]
    state = {"mission": REPORT, "plan": Plan.from_state({"tasks": tasks}).to_state()}
    await sm.save_state(sid, {**state, "status": "completed"})


async def test_the_offline_model_adds_the_new_request_to_the_plan(sm: StateManager) -> None:
    await finished_session(sm, "report")
    agent = LeanAgent(OfflineModel(), state_manager=sm)
    result = await agent.execute("Now also publish it", session_id="report")
    assert result.status is AgentStatus.COMPLETED, result
    state = await sm.load_state("report")
    assert state is not None and state["mission"] == REPORT
    assert current_request(state) == "Now also publish it"
    tasks = state["plan"]["tasks"]
    assert [(t["description"], t["status"]) for t in tasks] == [
        *((d, "DONE") for d in DONE_STEPS),
        ("Now also publish it", "SKIPPED"),  # no demo tool here: skipped, saying so
    ]
    assert tasks[3]["note"] == NO_TOOL_NOTE
    (summary,) = await sm.list_sessions()
    assert summary.title == REPORT


async def test_a_model_replanning_the_session_keeps_finished_work(sm: StateManager) -> None:
    await finished_session(sm, "replan")
    model = ScriptedModel(
        [
            # a model that restates its whole plan with the new step at the end
            call("planner", action="create_plan", tasks=[*DONE_STEPS, "Publish it"]),
            call("planner", action="mark_done", step_index=[4], note="published"),
            reply("Published."),
        ]
    )
    result = await LeanAgent(model, state_manager=sm, plan_first=True).execute(
        "Now also publish it", session_id="replan"
    )
    assert result.status is AgentStatus.COMPLETED, result
    state = await sm.load_state("replan")
    assert state is not None and state["mission"] == REPORT
    tasks = state["plan"]["tasks"]
    assert [(t["description"], t["status"]) for t in tasks] == [
        *((d, "DONE") for d in DONE_STEPS), ("Publish it", "DONE"),
    ]  # fmt: skip
    sessions = await sm.list_sessions()
    assert [s.title for s in sessions if s.session_id == "replan"] == [REPORT]


async def test_a_later_request_that_stopped_is_resumed_not_asked_again(
    sm: StateManager,
) -> None:
    """The same request again continues it (the title is not what it is compared with)."""
    await finished_session(sm, "again")
    first = ScriptedModel([call("planner", action="update_plan", add_steps=["Publish it"])])
    stopped = await LeanAgent(first, state_manager=sm, max_steps=1).execute(
        "Now also publish it", session_id="again"
    )
    assert stopped.status is AgentStatus.MAX_STEPS
    second = ScriptedModel(
        [call("planner", action="mark_done", step_index=[4], note="published"), reply("Done.")]
    )
    done = await LeanAgent(second, state_manager=sm).execute(
        "Now also publish it", session_id="again"
    )
    assert done.status is AgentStatus.COMPLETED, done
    messages = await sm.load_messages("again")
    asked = [m for m in messages if m == {"role": "user", "content": "Now also publish it"}]
    assert len(asked) == 1  # resumed: the request is not appended a second time
    state = await sm.load_state("again")
    assert state is not None and state["mission"] == REPORT
    assert [t["status"] for t in state["plan"]["tasks"]] == ["DONE"] * 4


async def test_a_new_session_takes_its_first_request_as_its_mission(sm: StateManager) -> None:
    agent = LeanAgent(ScriptedModel([reply("Hi.")]), state_manager=sm)
    await agent.execute("Say hello", session_id="fresh")
    state = await sm.load_state("fresh")
    assert state is not None and state["mission"] == "Say hello"
    assert current_request(state) == "Say hello"


def test_current_request_falls_back_to_the_mission() -> None:
    assert current_request({"mission": "M"}) == "M"
    assert current_request({"mission": "M", "request": "R"}) == "R"
    assert current_request({"mission": "M", "request": "  "}) == "M"
    assert current_request({}) == ""


async def test_a_question_about_the_plan_is_answered_not_planned(sm: StateManager) -> None:
    """Issue 13: "What is left?" is answered from the plan, with nothing forced or held back."""
    tasks = [{"description": DONE_STEPS[0], "status": "DONE"}, {"description": "Publish it"}]
    state = {"mission": REPORT, "plan": Plan.from_state({"tasks": tasks}).to_state()}
    await sm.save_state("ask", {**state, "status": "incomplete"})
    seen: list[tuple[list[Message], list[str]]] = []

    def answer(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        seen.append((messages, [t["function"]["name"] for t in tools]))
        return reply("Publishing is left.")

    agent = LeanAgent(FunctionModel(answer), state_manager=sm, plan_first=True)
    result = await agent.execute("What is left?", session_id="ask")
    assert result.final_message == "Publishing is left."
    assert result.status is AgentStatus.INCOMPLETE  # the plan still has its open step
    ((messages, tools),) = seen  # one call: no plan demanded first, no reminder after
    assert "planner" in tools
    assert "[ ] 2. Publish it" in str(messages[-1]["content"])  # the plan, shown to answer
    stored = await sm.load_state("ask")
    assert stored is not None and stored["plan"]["tasks"] == state["plan"]["tasks"]
    assert current_request(stored) == REPORT  # the work to continue is not the question
