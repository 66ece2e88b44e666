"""What one ``mark_done`` turn of the agent costs, counted (not timed).

The issue counted, per such turn, 4 plan builds from state, 6 state conversions, 4
renders, 3 argument parses and 2 applications (a draft, then the real one). One door
means: one JSON decode and one validation of the arguments, one application, no
plan->state conversion (the store gets the Plan and encodes its changed steps), at most
one render (which re-renders only the lines that changed), and no plan built from a dict.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from taskforce.agent import LeanAgent
from taskforce.agent import dispatch as dispatch_module
from taskforce.models.base import Message, ModelResponse, ToolSpec
from taskforce.plan import Plan
from taskforce.plan import derive as derive_module
from taskforce.plan.once import once
from taskforce.plan.requests import SetStatus
from taskforce.store import MemoryStore
from taskforce.testing import FunctionModel, call, reply
from taskforce.tools import planner_calls
from taskforce.tools.function import FunctionTool

Wrapped = Callable[..., Any]


class Meter:
    """Counts calls of wrapped functions while `on` is set."""

    def __init__(self) -> None:
        self.on = False
        self.counts: Counter[str] = Counter()

    def wrap(self, name: str, fn: Wrapped) -> Wrapped:
        def counted(*args: Any, **kwargs: Any) -> Any:
            if self.on:
                self.counts[name] += 1
            return fn(*args, **kwargs)

        return counted


@pytest.fixture
def meter(monkeypatch: pytest.MonkeyPatch) -> Meter:
    meter = Meter()
    monkeypatch.setattr(dispatch_module, "_decode", meter.wrap("decode", dispatch_module._decode))
    monkeypatch.setattr(
        planner_calls, "parse_args", meter.wrap("validate", planner_calls.parse_args)
    )
    monkeypatch.setattr(SetStatus, "apply", meter.wrap("apply", SetStatus.apply))
    monkeypatch.setattr(Plan, "to_state", meter.wrap("to_state", Plan.to_state))
    rendered = once(meter.wrap("render", Plan._rendered.compute))
    rendered.__set_name__(Plan, "_rendered")
    monkeypatch.setattr(Plan, "_rendered", rendered)
    monkeypatch.setattr(derive_module, "line_text", meter.wrap("line", derive_module.line_text))
    from_state = Plan.from_state.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(Plan, "from_state", classmethod(meter.wrap("from_state", from_state)))
    return meter


def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"notes on {topic}"


@pytest.mark.parametrize("steps", [3, 200])
async def test_one_mark_done_turn_decodes_validates_applies_converts_and_renders_once(
    meter: Meter, steps: int
) -> None:
    script: list[ModelResponse] = [
        call("planner", action="create_plan", tasks=[f"Step {i}" for i in range(1, steps + 1)]),
        call("lookup", topic="x"),
        call("planner", action="mark_done", step_index=1, note="found"),  # the metered turn
        reply("done"),
    ]
    turn = 0

    def model(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        nonlocal turn
        meter.on = turn == 2  # from asking for the mark_done turn to asking for the next
        turn += 1
        return script[turn - 1]

    agent = LeanAgent(
        FunctionModel(model), tools=[FunctionTool(lookup)], plan_first=False, max_finish_reminders=0
    )
    result = await agent.execute("Research the topic", session_id="cost")
    meter.on = False
    assert result.plan.steps[0].note == "found"  # the turn did what it was asked
    # the one render re-renders one line: the marked step's (nothing waits for it); the
    # session hands the store its Plan, which encodes only the changed step (no to_state)
    assert meter.counts == Counter(decode=1, validate=1, apply=1, render=1, line=1)


async def test_a_bound_planner_call_costs_the_same(meter: Meter) -> None:
    from taskforce.tools import PlannerTool

    store = MemoryStore()
    tool = PlannerTool(state_manager=store, session_id="bound")
    assert (await tool.execute(action="create_plan", tasks=["a", "b"]))["success"]
    meter.on = True
    assert (await tool.execute(action="mark_done", step_index=1))["success"]
    # the planner hands the store its Plan, which encodes only the changed step
    assert meter.counts == Counter(validate=1, apply=1, render=1, line=1)
