"""One run, measured: false completions, ticks without work, errors, limits, transcripts."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from taskforce.errors import (
    ConfigurationError,
    ContextWindowExceededError,
    MalformedReplyError,
    ProviderError,
)
from taskforce.evals import Mission, RunSettings
from taskforce.evals.builtin import SUITE
from taskforce.evals.runner import run_key, run_mission
from taskforce.models.base import Message, ModelResponse, ToolSpec
from taskforce.testing import FunctionModel, call, calls, reply
from tests.evals.helpers import LAX, PLANNER, run_script

MISSIONS = {m.id: m for m in SUITE.missions}
CHAIN = MISSIONS["calc-chain-note"]  # compute, add 100, save a note


async def test_ticking_steps_without_work_is_counted_and_is_a_false_completion() -> None:
    record = await run_script(
        CHAIN,
        [
            call("planner", action="create_plan", tasks=["Multiply", "Add 100", "Save note"]),
            call("calculator", expression="17 * 23"),
            call("planner", action="mark_done", step_index=[1]),
            call("planner", action="mark_done", step_index=[2]),  # nothing ran for it
            call("planner", action="mark_done", step_index=[3]),  # nor for this one
            reply("The note is saved: 491."),
        ],
        LAX,
    )
    assert not record.solved and record.reason == "no note titled 'result'"
    assert record.no_work_ticks == 2
    assert record.all_ticked and record.plan_steps == 3
    assert record.false_completion and record.status == "completed"
    assert "- [x] 3. Save note" in record.final_plan


async def test_a_batch_tick_counts_the_steps_beyond_the_work_done() -> None:
    record = await run_script(
        CHAIN,
        [
            call("planner", action="create_plan", tasks=["Multiply", "Add 100", "Save note"]),
            calls(call("calculator", expression="17 * 23"), call("calculator", expression="491")),
            call("planner", action="mark_done", step_index=[1, 2, 3]),
            reply("Done."),
        ],
        LAX,
    )
    assert record.no_work_ticks == 1  # 3 steps ticked after 2 tool runs


async def test_a_failed_call_is_no_work_for_a_tick() -> None:
    record = await run_script(
        CHAIN,
        [
            call("planner", action="create_plan", tasks=["Multiply", "Add 100", "Save note"]),
            call("calculator", expression="17 * 23"),
            call("planner", action="mark_done", step_index=[1]),
            call("calculator", expression="391 plus 100"),  # fails
            call("planner", action="mark_done", step_index=[2]),  # no work behind it
            reply("491"),
        ],
        LAX,
    )
    assert record.no_work_ticks == 1


async def test_the_evidence_rule_leaves_no_tick_without_work() -> None:
    record = await run_script(
        CHAIN,
        [
            call("planner", action="create_plan", tasks=["Multiply", "Add 100", "Save note"]),
            call("calculator", expression="17 * 23"),
            call("planner", action="mark_done", step_index=[1, 2, 3]),  # refused
            call("planner", action="mark_done", step_index=[1]),
            reply("The note is saved: 491."),
        ],
        PLANNER,
    )
    assert record.no_work_ticks == 0 and not record.all_ticked


async def test_a_guarded_repeat_is_not_work() -> None:
    record = await run_script(
        CHAIN,
        [
            call("planner", action="create_plan", tasks=["Multiply", "Multiply again"]),
            call("calculator", expression="17 * 23"),
            call("planner", action="mark_done", step_index=[1]),
            call("calculator", expression="17 * 23"),  # answered by the guard, not run
            call("planner", action="mark_done", step_index=[2]),
            reply("391"),
        ],
        LAX,
    )
    assert record.no_work_ticks == 1


async def test_an_unfinished_run_is_not_a_false_completion() -> None:
    script: list[Any] = [call("calculator", expression=f"{i} + 1") for i in range(5)]
    record = await run_script(CHAIN, script, settings=RunSettings(max_steps=3))
    assert record.status == "max_steps" and not record.solved
    assert not record.false_completion and record.turns == 3


async def test_the_models_failures_and_a_crash_are_recorded_not_raised() -> None:
    broken = MalformedReplyError("the model's reply could not be parsed")
    failed = await run_script(CHAIN, [broken, broken])  # asked once more, broken again
    assert failed.status == "failed" and failed.crashed
    assert "could not be parsed" in failed.errors[0] and failed.final_answer == ""
    crashed = await run_script(CHAIN, [call("calculator", expression="1")])  # script runs out
    assert crashed.status == "crashed" and "ScriptExhaustedError" in crashed.errors[0]


@pytest.mark.parametrize(
    "failure",
    [ProviderError("connection refused (gave up after 3 attempts)", retryable=True),
     ProviderError("authentication failed"), ProviderError("model or endpoint not found")],
)  # fmt: skip
async def test_a_run_the_provider_failed_is_raised_not_judged(failure: ProviderError) -> None:
    with pytest.raises(ProviderError) as raised:
        await run_script(CHAIN, [call("calculator", expression="17 * 23"), failure])
    assert raised.value is failure  # the run says nothing about the model: not recorded


async def test_a_failure_the_agent_got_over_does_not_stop_the_run() -> None:
    record = await run_script(
        CHAIN,
        [ContextWindowExceededError("context length exceeded"), reply("I could not do it.")],
    )
    assert record.status == "completed" and record.overflows == 1 and not record.solved


async def test_a_world_that_cannot_be_made_names_its_mission() -> None:
    def broken_world() -> Any:
        raise RuntimeError("no such table")

    mission = Mission("broken-world", "Say hi", broken_world, lambda _w, _a: True)
    with pytest.raises(ConfigurationError, match="mission 'broken-world': its world could not"):
        await run_script(mission, [reply("hi")])


async def test_a_world_whose_tools_are_not_tools_names_its_mission() -> None:
    class Twice:
        def tools(self) -> list[Any]:
            def note(text: str) -> str:
                """Save a note."""
                return "saved"

            return [note, note]

    mission = Mission("twice", "Save a note", Twice, lambda _w, _a: True)
    with pytest.raises(ConfigurationError, match="mission 'twice': two tools are named 'note'"):
        await run_script(mission, [reply("hi")])


async def test_a_world_of_plain_functions_runs() -> None:
    class Notes:
        def __init__(self) -> None:
            self.saved: list[str] = []

        def tools(self) -> list[Any]:
            def note(text: str) -> str:
                """Save a note."""
                self.saved.append(text)
                return "saved"

            return [note]

    mission = Mission("plain", "Save 'hi'", Notes, lambda w, _a: w.saved == ["hi"])
    record = await run_script(mission, [call("note", text="hi"), reply("Saved.")])
    assert record.solved and record.tool_calls == 1


async def test_async_world_factory_tools_and_checker() -> None:
    class Notes:
        def __init__(self) -> None:
            self.saved: list[str] = []

        async def tools(self) -> list[Any]:
            def note(text: str) -> str:
                """Save a note."""
                self.saved.append(text)
                return "saved"

            return [note]

    async def make() -> Notes:
        await asyncio.sleep(0)
        return Notes()

    async def check(world: Notes, answer: str) -> tuple[bool, str]:
        return world.saved == ["hi"], f"saved: {world.saved}"

    mission = Mission("async", "Save 'hi'", make, check)
    record = await run_script(mission, [call("note", text="hi"), reply("Saved.")])
    assert record.solved and record.reason == "saved: ['hi']"


async def test_context_overflows_are_counted() -> None:
    record = await run_script(
        CHAIN,
        [
            ContextWindowExceededError("context length exceeded"),
            ContextWindowExceededError("context length exceeded"),
        ],
    )
    assert record.overflows >= 1 and record.status == "failed"


async def test_the_wall_time_limit_ends_a_run() -> None:
    async def slow(_messages: list[Message], _tools: list[ToolSpec]) -> ModelResponse:
        await asyncio.sleep(30)
        return reply("late")

    settings = RunSettings(timeout=0.2)
    model = FunctionModel(slow)
    key = run_key("test", CHAIN, PLANNER, 0, model.name, settings)
    record = await run_mission(CHAIN, PLANNER, model, key, settings)
    assert record.status == "timeout" and record.crashed and "timeout" in record.errors[0]


async def test_tokens_split_planning_from_the_rest() -> None:
    mission = MISSIONS["oslo-fahrenheit"]
    script = [
        call("planner", action="create_plan", tasks=["Weather", "Convert"]),
        call("get_weather", city="Oslo"),
        call("planner", action="mark_done", step_index=[1]),
        call("convert_units", value=4, from_unit="c", to_unit="f"),
        call("planner", action="mark_done", step_index=[2]),
        call("planner", action="read_plan"),  # after the latest recitation: stays in view
        reply("39.2°F", prompt_tokens=1000, completion_tokens=10),
    ]
    record = await run_script(mission, script, PLANNER)
    parts = record.tokens["parts"]
    for part in ("planner_tool", "planner_calls", "planner_results", "recitations"):
        assert parts[part] > 0, part
    assert record.tokens["source"] == "provider" and record.input_tokens == 1000
    assert record.planning_tokens == round(record.tokens["planning_share"] * 1000)
    plain = await run_script(mission, [script[1], script[3], script[6]])
    assert plain.planning_tokens == 0 and plain.tokens["parts"]["planner_tool"] == 0
    assert plain.solved and plain.transcript["tools"] == ["get_weather", "convert_units"]


async def test_the_transcript_has_the_whole_conversation() -> None:
    record = await run_script(CHAIN, [call("calculator", expression="17 * 23"), reply("391")])
    messages = record.transcript["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert record.transcript["world"] == {"notes": {}, "outbox": [], "files": {}, "events": []}
    assert [e["kind"] for e in record.transcript["events"]][-1] == "final_answer"
    assert record.tool_calls == 1 and record.turns == 2


async def test_a_repeat_of_a_call_made_early_backs_its_step_and_is_not_a_no_work_tick() -> None:
    record = await run_script(
        CHAIN,
        [
            call("planner", action="create_plan", tasks=["Multiply", "Add 100", "Save note"]),
            call("calculator", expression="17 * 23"),
            call("save_note", title="result", text="491"),  # step 3's call, made early
            call("planner", action="mark_done", step_index=[1]),
            call("calculator", expression="391 + 100"),
            call("planner", action="mark_done", step_index=[2]),
            call("save_note", title="result", text="491"),  # answered with the early run
            call("planner", action="mark_done", step_index=[3]),
            reply("Saved 491 in the note 'result'."),
        ],
        PLANNER,
    )
    assert record.solved and record.status == "completed"
    assert record.no_work_ticks == 0 and record.all_ticked
    assert "- [x] 3. Save note" in record.final_plan


async def test_a_step_that_needs_no_tool_is_not_a_no_work_tick() -> None:
    """The tally follows the agent's rule: "Tell me the result" is done by telling it."""
    record = await run_script(
        CHAIN,
        [
            call("planner", action="create_plan", tasks=["Multiply", "Tell me the result"]),
            call("calculator", expression="17 * 23"),
            call("planner", action="mark_done", step_index=[1]),
            call("planner", action="mark_done", step_index=[2]),  # no tool ran: none needed
            reply("391"),
        ],
        LAX,
    )
    assert record.no_work_ticks == 0 and record.all_ticked
