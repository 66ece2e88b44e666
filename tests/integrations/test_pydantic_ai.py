"""The pydantic-ai adapter driving pydantic-ai agents whose models are pydantic-ai's own
TestModel and FunctionModel (no network).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent, Tool
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from taskforce.integrations.pydantic_ai import EXAMPLE_CALL, planner_tool
from taskforce.store import StateManager


def scripted(*calls: dict[str, Any] | str) -> FunctionModel:
    """A FunctionModel that plays `calls` in order: a dict is a planner call, a str the answer."""
    queue = list(calls)

    def decide(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = queue.pop(0)
        if isinstance(step, str):
            return ModelResponse(parts=[TextPart(step)])
        return ModelResponse(parts=[ToolCallPart("planner", step)])

    return FunctionModel(decide)


def parts(messages: list[ModelMessage], kind: type[Any]) -> list[Any]:
    return [
        p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, kind)
    ]


def retries(messages: list[ModelMessage]) -> list[str]:
    """What the model was told to fix (a RetryPromptPart, or a 'retried' tool return)."""
    told = [str(p.content) for p in parts(messages, RetryPromptPart)]
    returned = parts(messages, ToolReturnPart)
    return told + [str(p.content) for p in returned if getattr(p, "outcome", None) == "retried"]


def results(messages: list[ModelMessage]) -> list[str]:
    returned = parts(messages, ToolReturnPart)
    return [str(p.content) for p in returned if getattr(p, "outcome", None) != "retried"]


async def test_an_agent_plans_a_refusal_is_a_model_retry_and_the_plan_persists(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'plans.db'}"
    async with StateManager(url) as store:
        agent = Agent(
            scripted(
                {"action": "create_plan", "tasks": ["Collect", "Summarise"]},
                {"action": "mark_done", "step_index": 5},
                {"action": "mark_done", "step_index": 1, "note": "12 files"},
                "Collected 12 files.",
            ),
            tools=[planner_tool(store)],
            deps_type=dict,
        )
        result = await agent.run("Summarise the logs", deps={"session_id": "logs-1"})
    assert result.output == "Collected 12 files."
    messages = result.all_messages()
    (retry,) = retries(messages)
    assert "step_index 5 is out of bounds: the plan has steps 1 to 2" in retry
    returns = results(messages)
    assert returns[0] == "Plan created with 2 tasks.\n\n- [ ] 1. Collect\n- [ ] 2. Summarise"
    assert returns[-1].endswith("- [x] 1. Collect — 12 files\n- [ ] 2. Summarise")

    async with StateManager(url) as store:  # resumed elsewhere: the deps' session has it
        reader = Agent(
            scripted({"action": "read_plan"}, "ok"), tools=[planner_tool(store)], deps_type=dict
        )
        again = await reader.run("Where are we?", deps={"session_id": "logs-1"})
    assert results(again.all_messages()) == ["- [x] 1. Collect — 12 files\n- [ ] 2. Summarise"]


async def test_test_model_runs_a_planning_call(tmp_path: Path) -> None:
    async with StateManager(f"sqlite+aiosqlite:///{tmp_path / 'p.db'}") as store:
        agent = Agent(TestModel(), tools=[planner_tool(store, session_id="t1")])
        result = await agent.run("anything")
        state = await store.load_state("t1")
    (call,) = [
        p
        for m in result.all_messages()
        if isinstance(m, ModelResponse)
        for p in m.parts
        if isinstance(p, ToolCallPart)
    ]
    assert call.args_as_dict() == EXAMPLE_CALL
    assert state is not None
    assert [t["description"] for t in state["plan"]["tasks"]] == EXAMPLE_CALL["tasks"]


async def test_minimal_arguments_get_the_planners_message_to_fix() -> None:
    agent = Agent(
        scripted({"action": "create_plan"}, {"action": "create_plan", "tasks": ["a"]}, "done"),
        tools=[planner_tool()],
    )
    result = await agent.run("plan")
    (retry,) = retries(result.all_messages())
    assert "tasks must be a non-empty list" in retry
    assert result.output == "done"


def test_the_tool_is_pydantic_ais_own_type() -> None:
    tool = planner_tool(max_retries=5, strict=True)
    assert isinstance(tool, Tool)
    assert tool.name == "planner" and tool.max_retries == 5 and tool.strict is True
    assert tool.tool_def.parameters_json_schema["required"] == ["action"]


async def test_a_new_plan_keeps_the_finished_steps(tmp_path: Path) -> None:
    """13.8 at this door: create_plan replaces only the unfinished steps."""
    async with StateManager(f"sqlite+aiosqlite:///{tmp_path / 'p.db'}") as store:
        tool = planner_tool(store, session_id="extend")
        await Agent(
            scripted(
                {"action": "create_plan", "tasks": ["Tag", "Build"]},
                {"action": "mark_done", "step_index": [1], "note": "v2"},
                "tagged",
            ),
            tools=[tool],
        ).run("go")
        later = await Agent(
            scripted({"action": "create_plan", "tasks": ["Publish"]}, "ok"), tools=[tool]
        ).run("now publish")
        state = await store.load_state("extend")
    (made,) = results(later.all_messages())
    assert made.startswith("Plan created with 1 task; 1 finished step kept.")
    assert state is not None
    assert [(t["description"], t["status"]) for t in state["plan"]["tasks"]] == [
        ("Tag", "DONE"), ("Publish", "PENDING"),
    ]  # fmt: skip
