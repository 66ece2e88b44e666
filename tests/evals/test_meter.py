"""MeteredModel: each request's tokens sorted into planning parts and the rest."""

from __future__ import annotations

from taskforce.agent.prompts import PLAN_HEADER, REMINDER_HEADER
from taskforce.evals import MeteredModel
from taskforce.evals.meter import PLANNING_PARTS
from taskforce.testing import ScriptedModel, estimate_tokens, reply

PLANNER_SPEC = {"type": "function", "function": {"name": "planner", "parameters": {}}}
OTHER_SPEC = {"type": "function", "function": {"name": "weather", "parameters": {}}}


def _call(id_: str, name: str) -> dict[str, object]:
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": "{}"}}


async def test_every_part_is_sorted() -> None:
    mixed = {"role": "assistant", "content": None,
             "tool_calls": [_call("p1", "planner"), _call("w1", "weather")]}  # fmt: skip
    messages = [
        {"role": "system", "content": "be useful"},
        {"role": "user", "content": "do things"},
        mixed,
        {"role": "tool", "tool_call_id": "p1", "content": "- [ ] 1. a"},
        {"role": "tool", "tool_call_id": "w1", "content": "sunny"},
        {"role": "user", "content": f"{PLAN_HEADER}\n- [ ] 1. a"},
        {"role": "user", "content": f"{REMINDER_HEADER} These plan steps are open"},
        {"role": "user", "content": f"{REMINDER_HEADER} Your reply was empty."},
        {"role": "user", "content": f"{REMINDER_HEADER} Repeating: mark it with the planner."},
    ]
    model = MeteredModel(ScriptedModel([reply("ok", prompt_tokens=500, completion_tokens=5)]))
    await model.complete(messages, [PLANNER_SPEC, OTHER_SPEC])
    parts = model.split.parts
    assert all(parts[p] > 0 for p in PLANNING_PARTS), parts
    assert parts["planner_tool"] == estimate_tokens([], [PLANNER_SPEC])
    assert parts["planner_results"] == estimate_tokens([messages[3]], [])
    whole = estimate_tokens([mixed], [])
    assert 0 < parts["planner_calls"] < whole  # only the planner's half of the mixed turn
    assert parts["plan_reminders"] == estimate_tokens([messages[6]], [])  # not the others
    others = ("system", "do things", "sunny", "empty", "weather")
    assert parts["other"] >= len(others)
    assert model.split.estimated_input == sum(parts.values())
    assert 0 < model.split.planning_share < 1
    assert model.split.usage.prompt_tokens == 500 and model.split.requests == 1


async def test_a_request_without_planning_has_no_planning_share() -> None:
    model = MeteredModel(ScriptedModel([reply("ok")]))
    await model.complete([{"role": "user", "content": "hi"}], [OTHER_SPEC])
    assert model.split.planning == 0 and model.split.planning_share == 0.0
    assert model.name == "scripted" and model.context_window is None
