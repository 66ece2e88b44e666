"""Stored runs measured again from a replay of their replies (no model call)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from taskforce.evals import ResultStore, Suite, evaluate, load_suite, reference_model
from taskforce.evals.replay import _replies, remeasure, remeasure_results
from taskforce.testing import ScriptedModel, reply
from tests.evals.helpers import WordCounter


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite("builtin")


MISSIONS = ("kg-to-pounds", "three-events", "multiply")


async def _stored(tmp_path: Path, suite: Suite) -> ResultStore:
    store = ResultStore(tmp_path / "results.jsonl")
    await evaluate(suite, reference_model, missions=MISSIONS, results=store)
    return store


async def test_a_replay_gives_the_run_back_and_sizes_it_exactly(
    tmp_path: Path, suite: Suite
) -> None:
    store = await _stored(tmp_path, suite)
    stored = {(r.key.mission, r.key.arm): r for r in store.latest()}
    counter = WordCounter()
    outcome = await remeasure_results(store, suite, counter)
    assert outcome.differing == []
    assert len(outcome.records) == len(stored) == 6
    again = {(r.key.mission, r.key.arm): r for r in ResultStore(store.path).latest()}
    for key, record in again.items():
        old = stored[key]
        assert record.key == old.key and record.transcript == old.transcript
        assert record.solved == old.solved
        assert record.input_tokens == record.tokens["estimated_input"]  # counted, not kept
        assert record.tokens["sizes"] == "exact" and old.tokens["sizes"] == "estimated"
        assert sum(record.tokens["parts"].values()) == record.tokens["estimated_input"]
        assert record.meta["remeasured"]["sizes"] == "exact"
        share = record.tokens["planning_share"]
        assert record.planning_tokens == round(share * record.input_tokens)
    assert any(again[k].input_tokens != stored[k].input_tokens for k in stored)  # words
    planned = again[("kg-to-pounds", "planner")].tokens["parts"]
    assert planned["planner_tool"] > 0 and planned["recitations"] > 0
    assert again[("kg-to-pounds", "none")].tokens["planning_share"] == 0


async def test_a_replay_that_differs_keeps_the_stored_run(tmp_path: Path, suite: Suite) -> None:
    store = await _stored(tmp_path, suite)
    record = next(
        r for r in store.latest() if r.key.mission == "kg-to-pounds" and r.key.arm == "none"
    )
    messages = [dict(m) for m in record.transcript["messages"]]
    first = next(m for m in messages if m["role"] == "assistant" and m.get("tool_calls"))
    first["tool_calls"] = [
        {**first["tool_calls"][0], "function": {"name": "convert_units", "arguments": "{}"}}
    ]  # not the call that made the stored result
    changed = dataclasses.replace(record, transcript={**record.transcript, "messages": messages})
    assert await remeasure(changed, suite, WordCounter()) is None
    store.add(changed)
    before = len(list(store.records()))
    outcome = await remeasure_results(
        store, suite, WordCounter(), arms=["none"], missions=["kg-to-pounds"]
    )
    assert outcome.differing == ["kg-to-pounds/none#0"] and outcome.records == []
    assert len(list(store.records())) == before  # nothing appended


async def test_a_run_of_another_mission_text_is_not_replayed(tmp_path: Path, suite: Suite) -> None:
    store = await _stored(tmp_path, suite)
    record = store.latest()[0]
    moved = dataclasses.replace(record, key=dataclasses.replace(record.key, mission_hash="x"))
    assert await remeasure(moved, suite, WordCounter()) is None
    gone = dataclasses.replace(record, key=dataclasses.replace(record.key, mission="no-such"))
    assert await remeasure(gone, suite, WordCounter()) is None


async def test_replies_the_loop_rewrote_are_replayed_as_the_model_wrote_them(
    tmp_path: Path, suite: Suite
) -> None:
    call = {"name": "convert_units", "arguments": {"value": 10, "from_unit": "kg", "to_unit": "lb"}}
    written = f"```json\n{json.dumps(call)}\n```"
    script = [reply(written), reply("The final answer is: 22.05 lb")]
    store = ResultStore(tmp_path / "results.jsonl")
    await evaluate(suite, lambda _m, _a: ScriptedModel(list(script)), arms="none",
                   missions=["kg-to-pounds"], results=store)  # fmt: skip
    record = store.latest()[0]
    turns = [m for m in record.transcript["messages"] if m["role"] == "assistant"]
    assert turns[0]["tool_calls"][0]["id"].startswith("call_text_")  # the loop's call
    assert turns[0]["content"] != written  # stored as the call it read, not as written
    again = await remeasure(record, suite, WordCounter())
    assert again is not None and again.transcript == record.transcript
    replies = _replies(record.transcript["messages"], record.transcript["events"])
    assert [(r.content, r.tool_calls) for r in replies] == [(written, ()), (script[1].content, ())]


def test_the_replies_are_the_models_own_text_and_calls() -> None:
    native = {"id": "srv-1", "type": "function",
              "function": {"name": "weather", "arguments": '{"city": "Oslo"}'}}  # fmt: skip
    added = {**native, "id": "call_autoplan_1", "function": {"name": "planner", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [native, added]},
        {"role": "assistant", "content": "It is sunny."},
    ]
    events = [
        {"kind": "llm_call", "content": "Let me look.", "tool_calls": ["weather"]},
        {"kind": "plan_updated"},
        {"kind": "llm_call", "content": "The final answer is: It is sunny.", "tool_calls": []},
    ]
    first, last = _replies(messages, events)
    assert first.content == "Let me look." and [c.id for c in first.tool_calls] == ["srv-1"]
    assert first.tool_calls[0].arguments == '{"city": "Oslo"}'
    assert last.content == "The final answer is: It is sunny." and last.tool_calls == ()
    as_stored = _replies(messages, [])  # no events (a run stored without them)
    assert [len(r.tool_calls) for r in as_stored] == [2, 0]
