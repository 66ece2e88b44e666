"""MeteredModel: each request's tokens sorted into planning parts and the rest."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from taskforce.agent.prompts import PLAN_HEADER, REMINDER_HEADER
from taskforce.errors import ConfigurationError, ProviderError
from taskforce.evals import MeteredModel
from taskforce.evals.meter import PLANNING_PARTS
from taskforce.models.base import Message, ToolSpec
from taskforce.testing import ScriptedModel, estimate_tokens, reply
from tests.evals.helpers import PrefixWordCounter, WordCounter, prompt_of, size_of

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


class _Failing:
    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    async def count(self, messages: object, tools: object) -> int:
        raise self.exc


async def test_a_counter_sizes_each_part_by_what_the_request_loses_without_it() -> None:
    exchange = {"role": "assistant", "content": None, "tool_calls": [_call("p1", "planner")]}
    mixed = {"role": "assistant", "content": None,
             "tool_calls": [_call("p2", "planner"), _call("w1", "weather")]}  # fmt: skip
    recitation = {"role": "user", "content": f"{PLAN_HEADER}\n- [ ] 1. look it up\nDo now: 1."}
    reminder = {"role": "user", "content": f"{REMINDER_HEADER} These plan steps are open"}
    messages = [
        {"role": "system", "content": "be useful"},
        {"role": "user", "content": "do things"},
        exchange,
        {"role": "tool", "tool_call_id": "p1", "content": "Plan created with 1 task."},
        recitation,
        mixed,
        {"role": "tool", "tool_call_id": "p2", "content": "Step 1 marked DONE."},
        {"role": "tool", "tool_call_id": "w1", "content": "sunny and warm"},
        reminder,
    ]
    tools = [PLANNER_SPEC, OTHER_SPEC]
    model = MeteredModel(ScriptedModel([reply("ok")]), WordCounter())
    await model.complete(messages, tools)
    parts, full = model.split.parts, size_of(messages, tools)
    assert model.split.estimated_input == sum(parts.values()) == full
    assert parts["planner_tool"] == full - size_of(messages, [OTHER_SPEC])
    without_rec = [m for m in messages if m is not recitation]
    assert parts["recitations"] == full - size_of(without_rec, tools)
    without_rem = [m for m in messages if m is not reminder]
    assert parts["plan_reminders"] == full - size_of(without_rem, tools)
    only_weather = {**mixed, "tool_calls": [_call("w1", "weather")]}
    no_exchange = [messages[0], messages[1], recitation, only_weather, messages[7], reminder]
    lost = full - size_of(no_exchange, tools)
    assert parts["planner_calls"] > 0 and parts["planner_results"] > 0
    assert abs(parts["planner_calls"] + parts["planner_results"] - lost) <= 1  # rounding
    assert parts["other"] == full - sum(parts[p] for p in PLANNING_PARTS)


async def test_without_a_planner_the_counter_finds_no_planning() -> None:
    model = MeteredModel(ScriptedModel([reply("ok")]), WordCounter())
    messages = [{"role": "user", "content": "hi there"}]
    await model.complete(messages, [OTHER_SPEC])
    assert model.split.planning == 0 and model.split.parts["other"] == size_of(
        messages, [OTHER_SPEC]
    )


@pytest.mark.parametrize(
    "exc", [ProviderError("tokenize: connection refused"), ConfigurationError("not llama.cpp")]
)
async def test_a_counter_failure_is_the_providers_and_stops_the_request(exc: Exception) -> None:
    inner = ScriptedModel([reply("ok")])
    model = MeteredModel(inner, _Failing(exc))
    with pytest.raises(ProviderError, match=str(exc)):
        await model.complete([{"role": "user", "content": "hi"}], [])
    assert isinstance(model.failure, ProviderError) and inner.remaining == 1  # not asked


class _TemplateLike(WordCounter):
    """Refuses, as llama.cpp's Qwen template does, two assistant messages at the end."""

    async def count(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        if [m.get("role") for m in messages[-2:]] == ["assistant", "assistant"]:
            raise ProviderError("answered HTTP 400: Cannot have 2 or more assistant messages")
        return await super().count(messages, tools)


async def test_a_cut_request_the_server_refuses_is_sized_by_its_estimate() -> None:
    """BFCL's entry 7: two answers, each sent back with a reminder; cut of the reminders,
    the request ends with two assistant messages, which the template refuses."""
    reminder = {"role": "user", "content": f"{REMINDER_HEADER} These plan steps are open"}
    messages = [
        {"role": "user", "content": "do things"},
        {"role": "assistant", "content": "done"},
        reminder,
        {"role": "assistant", "content": "done, really"},
        {**reminder},
    ]
    model = MeteredModel(ScriptedModel([reply("ok")]), _TemplateLike())
    await model.complete(messages, [PLANNER_SPEC, OTHER_SPEC])
    parts, full = model.split.parts, size_of(messages, [PLANNER_SPEC, OTHER_SPEC])
    assert parts["plan_reminders"] == estimate_tokens([reminder], []) * 2  # the estimate
    assert parts["planner_tool"] == full - size_of(messages, [OTHER_SPEC])  # still exact
    assert model.split.estimated_input == full and model.failure is None


async def test_a_cut_request_that_fails_for_a_retryable_reason_still_stops() -> None:
    class _GoneAfterOne(WordCounter):
        calls = 0

        async def count(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
            self.calls += 1
            if self.calls > 1:
                raise ProviderError("connection refused", retryable=True)
            return await super().count(messages, tools)

    inner = ScriptedModel([reply("ok")])
    model = MeteredModel(inner, _GoneAfterOne())
    with pytest.raises(ProviderError, match="connection refused"):
        await model.complete([{"role": "user", "content": "hi"}], [PLANNER_SPEC])
    assert inner.remaining == 1  # not asked


SYSTEM = {"role": "system", "content": "be useful"}
MISSION = {"role": "user", "content": "do things"}
RECITATION = {"role": "user", "content": f"{PLAN_HEADER}\n- [ ] 1. look it up\nDo now: 1."}


def _words(messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> int:
    return len(prompt_of(messages, tools).split())


async def test_fresh_input_is_what_a_request_adds_to_the_previous_ones_prefix() -> None:
    model = MeteredModel(ScriptedModel([reply("a"), reply("b")]), PrefixWordCounter())
    first = [SYSTEM, MISSION]
    result = {"role": "assistant", "content": "it is sunny in every town we know of"}
    await model.complete(first, [OTHER_SPEC])
    await model.complete([*first, result], [OTHER_SPEC])
    split = model.split
    assert split.fresh_input == _words(first, [OTHER_SPEC]) + _words([result])
    assert split.fresh_planning == 0
    assert split.as_dict()["fresh_input"] == split.fresh_input


async def test_a_recitation_added_is_fresh_planning() -> None:
    model = MeteredModel(ScriptedModel([reply("a"), reply("b")]), PrefixWordCounter())
    tools = [PLANNER_SPEC, OTHER_SPEC]
    await model.complete([SYSTEM, MISSION], tools)
    await model.complete([SYSTEM, MISSION, RECITATION], tools)
    assert model.split.fresh_input == _words([SYSTEM, MISSION], tools) + _words([RECITATION])
    assert model.split.fresh_planning == _words([PLANNER_SPEC]) + _words([RECITATION])


async def test_the_planner_hidden_makes_the_whole_prompt_fresh_and_that_is_planning() -> None:
    """The tools come first: leaving the planner out changes the prompt from its start,
    so all of it is processed again, though only the planner changed."""
    model = MeteredModel(ScriptedModel([reply("a"), reply("b")]), PrefixWordCounter())
    talk = [SYSTEM, MISSION, {"role": "assistant", "content": "all done now"}]
    await model.complete(talk[:2], [PLANNER_SPEC, OTHER_SPEC])
    before = model.split.fresh_input or 0
    await model.complete(talk, [OTHER_SPEC])
    fresh = (model.split.fresh_input or 0) - before
    old, new = (prompt_of(talk[:2], [PLANNER_SPEC, OTHER_SPEC]).split(),
                prompt_of(talk, [OTHER_SPEC]).split())  # fmt: skip
    shared = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), len(old))
    assert shared < 5 and fresh == len(new) - shared  # almost nothing: the tools changed
    added = _words(talk[2:])  # what the same request adds without the planner
    assert model.split.fresh_planning == _words([PLANNER_SPEC]) + fresh - added


async def test_a_counter_without_token_ids_counts_no_fresh_input() -> None:
    model = MeteredModel(ScriptedModel([reply("ok")]), WordCounter())
    await model.complete([SYSTEM, MISSION], [PLANNER_SPEC])
    assert model.split.fresh_input is None and "fresh_input" not in model.split.as_dict()


async def test_a_bare_request_the_server_refuses_adds_no_fresh_planning() -> None:
    class _NoBare(PrefixWordCounter):
        refusing = False

        async def tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> list[int]:
            if self.refusing and RECITATION not in messages:
                raise ProviderError("answered HTTP 400: the template refuses")
            return await super().tokens(messages, tools)

    counter = _NoBare()
    model = MeteredModel(ScriptedModel([reply("a"), reply("b")]), counter)
    await model.complete([SYSTEM, MISSION], [OTHER_SPEC])
    counter.refusing = True
    await model.complete([SYSTEM, MISSION, RECITATION], [OTHER_SPEC])
    assert model.split.fresh_input == _words([SYSTEM, MISSION], [OTHER_SPEC]) + _words([RECITATION])
    assert model.split.fresh_planning == 0  # the bare request refused: nothing to compare
