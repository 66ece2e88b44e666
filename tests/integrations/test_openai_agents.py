"""The Agents SDK adapter driving a real `Runner` whose Model is a fake implementing the
SDK's Model interface: it scripts the decisions (tool calls, the answer), nothing else.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, FunctionTool, Model, ModelResponse, RunConfig, Runner, SQLiteSession
from agents.strict_schema import ensure_strict_json_schema
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from taskforce.integrations.openai_agents import planner_tool
from taskforce.store import StateManager
from tests.tools.strict_rules import strict_violations

NO_TRACING = RunConfig(tracing_disabled=True)


class ScriptedModel(Model):
    """Plays a script: a dict is a planner call, a str the final answer. Records inputs."""

    def __init__(self, *script: dict[str, Any] | str) -> None:
        self.script = list(script)
        self.inputs: list[Any] = []

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        self.inputs.append(kwargs.get("input", args[1] if len(args) > 1 else None))
        step = self.script.pop(0)
        if isinstance(step, str):
            text = ResponseOutputText(text=step, type="output_text", annotations=[])
            item: Any = ResponseOutputMessage(
                id="m1", content=[text], role="assistant", status="completed", type="message"
            )
        else:
            n = len(self.script)
            item = ResponseFunctionToolCall(
                arguments=json.dumps(step), call_id=f"c{n}", name="planner", type="function_call"
            )
        return ModelResponse(output=[item], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


NULLS = {k: None for k in ("tasks", "step_index", "status", "note")} | {
    "add_steps": None,
    "insert_at": None,
    "remove_indices": None,
    "text": None,
}


def strict(action: str, **given: Any) -> dict[str, Any]:
    """What a strict model sends: every parameter, null when not meant."""
    return {"action": action, **NULLS, **given}


def tool_outputs(inputs: list[Any]) -> list[str]:
    last = inputs[-1]
    return [
        i["output"] for i in last if isinstance(i, dict) and i.get("type") == "function_call_output"
    ]


async def test_an_agent_with_a_session_plans_gets_errors_as_text_and_resumes(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'plans.db'}"
    session = SQLiteSession("trip-42")  # in memory; closed below (Python 3.13 warns)
    try:
        await _plan_a_trip(url, session)
    finally:
        session.close()


async def _plan_a_trip(url: str, session: SQLiteSession) -> None:
    async with StateManager(url) as store:
        model = ScriptedModel(
            strict("create_plan", tasks=["Book flights", "Find a hotel"]),
            strict("mark_done", step_index=[3], status="DONE"),
            strict("mark_done", step_index=[1], status="DONE", note="AZ 611"),
            "Flights booked.",
        )
        agent = Agent(name="travel", model=model, tools=[planner_tool(store, session=session)])
        result = await Runner.run(
            agent, "Plan a trip to Rome", session=session, run_config=NO_TRACING
        )
    assert result.final_output == "Flights booked."
    outputs = tool_outputs(model.inputs)
    assert outputs[0].startswith("Plan created with 2 tasks.")
    assert outputs[1].startswith(
        "Error: step_index 3 is out of bounds: the plan has steps 1 to 2. "
    )
    assert 'A valid call looks like: planner({"action": "mark_done"' in outputs[1]
    assert outputs[2].endswith("- [x] 1. Book flights — AZ 611\n- [ ] 2. Find a hotel")

    async with StateManager(url) as store:  # a later run, same SDK session: same plan
        state = await store.load_state("trip-42")
        assert state is not None and len(state["plan"]["tasks"]) == 2
        reader = ScriptedModel(strict("read_plan"), "Hotel next.")
        agent = Agent(name="travel", model=reader, tools=[planner_tool(store, session=session)])
        await Runner.run(agent, "What is left?", session=session, run_config=NO_TRACING)
    assert (
        tool_outputs(reader.inputs)[-1] == "- [x] 1. Book flights — AZ 611\n- [ ] 2. Find a hotel"
    )


async def test_the_run_context_can_name_the_session() -> None:
    tool = planner_tool()
    model = ScriptedModel(strict("create_plan", tasks=["A"]), "ok")
    agent = Agent(name="a", model=model, tools=[tool])
    await Runner.run(agent, "go", context={"session_id": "ctx-1"}, run_config=NO_TRACING)
    other = ScriptedModel(strict("read_plan"), "ok")
    agent = Agent(name="a", model=other, tools=[tool])
    await Runner.run(agent, "go", context={"session_id": "ctx-1"}, run_config=NO_TRACING)
    assert tool_outputs(other.inputs) == ["- [ ] 1. A"]


def test_the_tool_is_a_strict_sdk_function_tool() -> None:
    tool = planner_tool()
    assert isinstance(tool, FunctionTool) and tool.strict_json_schema is True
    spec = {
        "type": "function",
        "function": {"name": tool.name, "strict": True, "parameters": tool.params_json_schema},
    }
    assert strict_violations(spec) == []
    assert ensure_strict_json_schema(json.loads(json.dumps(tool.params_json_schema))) == (
        tool.params_json_schema
    )
    loose = planner_tool(strict=False)
    assert loose.params_json_schema["required"] == ["action"]


async def test_a_new_plan_in_a_session_keeps_its_finished_steps() -> None:
    """13.8 at this door: create_plan replaces only the unfinished steps."""
    tool = planner_tool()
    context = {"session_id": "extend"}
    first = ScriptedModel(
        strict("create_plan", tasks=["Tag", "Build"]),
        strict("mark_done", step_index=[1], note="v2"),
        "tagged",
    )
    await Runner.run(Agent(name="a", model=first, tools=[tool]), "go", context=context,
                     run_config=NO_TRACING)  # fmt: skip
    second = ScriptedModel(strict("create_plan", tasks=["Publish"]), "ok")
    await Runner.run(Agent(name="a", model=second, tools=[tool]), "now publish",
                     context=context, run_config=NO_TRACING)  # fmt: skip
    (made,) = tool_outputs(second.inputs)
    assert made.startswith("Plan created with 1 task; 1 finished step kept.")
    assert made.endswith("- [x] 1. Tag — v2\n- [ ] 2. Publish")
