"""Stored runs measured again from a replay of their replies (no model call)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from taskforce.evals import ResultStore, Suite, evaluate, load_suite, reference_model
from taskforce.evals.replay import remeasure, remeasure_results
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
        assert record.solved == old.solved and record.input_tokens == old.input_tokens
        assert record.tokens["sizes"] == "exact" and old.tokens["sizes"] == "estimated"
        assert sum(record.tokens["parts"].values()) == record.tokens["estimated_input"]
        assert record.meta["remeasured"]["sizes"] == "exact"
        share = record.tokens["planning_share"]
        assert record.planning_tokens == round(share * record.input_tokens)
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
