"""The LangChain adapter driving a real LangChain agent (create_agent, on LangGraph) whose
model is LangChain's own fake chat model scripted with tool calls (no network).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import StructuredTool

from taskforce.integrations.langchain import planner_tool
from taskforce.store import StateManager
from tests.tools.strict_rules import strict_violations


class ToolCallingFake(GenericFakeChatModel):
    """LangChain's fake chat model; the script decides the tool calls."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ToolCallingFake:
        return self


def call(name: str, call_id: str, **args: Any) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])


async def run(store: StateManager, thread: str, *replies: AIMessage) -> list[Any]:
    model = ToolCallingFake(messages=iter(replies))
    agent = create_agent(model, tools=[planner_tool(store)])
    config = {"configurable": {"thread_id": thread}}
    result = await agent.ainvoke({"messages": [("user", "Ship the release")]}, config)
    return list(result["messages"])


async def test_a_langgraph_agent_plans_is_refused_the_langchain_way_and_resumes(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'plans.db'}"
    async with StateManager(url) as store:
        messages = await run(
            store,
            "release-7",
            call("planner", "c1", action="create_plan", tasks=["Tag", "Build", "Publish"]),
            call("planner", "c2", action="mark_done", step_index=[9]),
            call("planner", "c3", action="mark_done", step_index=[1], note="v1.2.0"),
            AIMessage("Tagged; building next."),
        )
    results = [m for m in messages if isinstance(m, ToolMessage)]
    assert [m.status for m in results] == ["success", "error", "success"]
    assert results[0].content == (
        "Plan created with 3 tasks.\n\n- [ ] 1. Tag\n- [ ] 2. Build\n- [ ] 3. Publish"
    )
    assert results[1].content.startswith(
        "step_index 9 is out of bounds: the plan has steps 1 to 3. "
    )
    assert str(results[2].content).endswith(
        "- [x] 1. Tag — v1.2.0\n- [ ] 2. Build\n- [ ] 3. Publish"
    )

    async with StateManager(url) as store:  # a new process: the thread's plan is there
        state = await store.load_state("release-7")
        assert state is not None and state["plan"]["tasks"][0]["status"] == "DONE"
        again = await run(
            store,
            "release-7",
            call("planner", "r1", action="read_plan"),
            AIMessage("Build is next."),
        )
        other = await run(
            store, "another-thread", call("planner", "o1", action="read_plan"), AIMessage("-")
        )
    (read,) = [m for m in again if isinstance(m, ToolMessage)]
    assert read.content == "- [x] 1. Tag — v1.2.0\n- [ ] 2. Build\n- [ ] 3. Publish"
    (empty,) = [m for m in other if isinstance(m, ToolMessage)]
    assert empty.content == "No active plan."


async def test_the_tool_is_langchains_own_type_with_a_strict_option() -> None:
    tool = planner_tool()
    assert isinstance(tool, StructuredTool) and tool.name == "planner"
    assert tool.tool_call_schema["properties"]["action"]["enum"][0] == "create_plan"
    strict = planner_tool(strict=True)
    spec = {
        "type": "function",
        "function": {"name": "planner", "strict": True, "parameters": strict.args},
    }
    schema = strict.tool_call_schema
    assert isinstance(schema, dict)
    spec["function"]["parameters"] = {k: v for k, v in schema.items() if k != "title"}
    assert strict_violations(spec) == []


async def test_without_a_store_each_thread_keeps_its_plan_in_memory() -> None:
    tool = planner_tool()
    one = {"configurable": {"thread_id": "a"}}
    two = {"configurable": {"thread_id": "b"}}
    await tool.ainvoke({"action": "create_plan", "tasks": ["x"]}, one)
    assert await tool.ainvoke({"action": "read_plan"}, one) == "- [ ] 1. x"
    assert await tool.ainvoke({"action": "read_plan"}, two) == "No active plan."


async def test_a_new_plan_on_a_thread_keeps_its_finished_steps() -> None:
    """13.8 at this door: create_plan replaces only the unfinished steps."""
    tool = planner_tool()
    thread = {"configurable": {"thread_id": "t"}}
    await tool.ainvoke({"action": "create_plan", "tasks": ["Tag", "Build"]}, thread)
    await tool.ainvoke({"action": "mark_done", "step_index": [1], "note": "v2"}, thread)
    made = await tool.ainvoke({"action": "create_plan", "tasks": ["Publish"]}, thread)
    assert str(made).startswith("Plan created with 1 task; 1 finished step kept.")
    assert await tool.ainvoke({"action": "read_plan"}, thread) == (
        "- [x] 1. Tag — v2\n- [ ] 2. Publish"
    )
