"""Tool calls written as text become real calls; a final answer is never a tool call."""

from __future__ import annotations

import json
from typing import Any

import pytest

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.textcalls import (
    bare_data,
    calls_in_text,
    clean_answer,
    plain_answer,
    read_reply,
)
from taskforce.models.base import ModelResponse, ToolCall
from taskforce.testing import ScriptedModel, call, raw_call, reply
from tests.agent.helpers import tool_results

TOOLS = {"save_note", "weather"}
FENCED = '```json\n{"name": "weather", "arguments": {"city": "Oslo"}}\n```'


def test_a_fenced_call_of_a_known_tool_is_read_back() -> None:
    (found,) = calls_in_text(FENCED, TOOLS, 3)
    assert (found.name, json.loads(found.arguments), found.id) == (
        "weather",
        {"city": "Oslo"},
        "call_text_3_1",
    )


def test_bare_objects_lists_parameters_and_string_arguments_are_read_back() -> None:
    bare = '{"name": "save_note", "parameters": {"title": "a", "text": "b"}}'
    assert json.loads(calls_in_text(bare, TOOLS, 0)[0].arguments) == {"title": "a", "text": "b"}
    encoded = '{"name": "weather", "arguments": "{\\"city\\": \\"Rome\\"}"}'
    assert json.loads(calls_in_text(encoded, TOOLS, 0)[0].arguments) == {"city": "Rome"}
    listed = '```json\n[{"name": "weather", "arguments": {"city": "A"}}, ' + (
        '{"name": "weather", "arguments": {"city": "B"}}]\n```'
    )
    assert [json.loads(c.arguments)["city"] for c in calls_in_text(listed, TOOLS, 0)] == ["A", "B"]
    wire = '{"function": {"name": "weather", "arguments": {"city": "C"}}}'
    assert calls_in_text(wire, TOOLS, 0)[0].name == "weather"


def test_anything_else_stays_an_answer() -> None:
    for text in (
        "It is 4°C in Oslo.",
        '{"name": "unknown_tool"}',  # not a tool of this agent, and no arguments written
        '{"name": "final_answer", "arguments": {"result": "4°C"}}',  # an answer, wrapped
        '{"text": "guest password: tulip42"}',  # no tool named
        "```json\n491.0\n```",
        f"Here you go:\n{FENCED}",  # prose around the call: an answer that quotes one
        '{"name": "weather", "arguments": [1, 2]}',
        '{"name": ' * 3_000,  # nested past the interpreter's limit: no RecursionError
        '{"name": "weather", "arguments": "' + "[" * 5_000 + '"}',
        "",
        None,
    ):
        assert calls_in_text(text, TOOLS, 0) == (), text


def test_a_call_of_a_tool_the_agent_does_not_have_is_read_back_to_be_refused() -> None:
    """`email` beside a `send_email` tool: run as a call, it gets the unknown-tool error
    naming the tools there are, instead of ending the run as its answer."""
    (found,) = calls_in_text('{"name": "email", "arguments": {"to": "erin@example.com"}}', TOOLS, 2)
    assert (found.name, json.loads(found.arguments)) == ("email", {"to": "erin@example.com"})
    mixed = f'```json\n[{{"name": "compose_email", "parameters": {{}}}}, {FENCED[8:-4]}]\n```'
    assert [c.name for c in calls_in_text(mixed, TOOLS, 0)] == ["compose_email", "weather"]
    # a tool named like an answer tool that the agent has is called as usual
    own = '{"name": "final_answer", "arguments": {"result": "x"}}'
    assert calls_in_text(own, {"final_answer"}, 0)[0].name == "final_answer"


def test_an_answer_wrapped_in_a_call_of_an_answer_tool_nobody_offered_is_its_text() -> None:
    wrapped = '{"name": "final_answer", "arguments": {"result": "Order 4 packs."}}'
    assert clean_answer(wrapped, TOOLS) == "Order 4 packs."
    assert clean_answer(f"```json\n{wrapped}\n```", TOOLS) == "Order 4 packs."
    assert plain_answer('{"name": "answer", "arguments": {"value": 42}}', TOOLS) == "42"
    assert clean_answer('{"function": {"name": "respond", "arguments": "Done."}}') == "Done."
    assert clean_answer(wrapped, {"final_answer"}) == wrapped  # a real tool's call is no answer
    for kept in (
        '{"name": "respond", "arguments": {"to": "bob", "body": "hi"}}',  # no answer in it
        '{"name": "reply_email", "arguments": {"text": "hi"}}',  # not an answer tool
        '{"name": "final_answer", "arguments": {"result": ""}}',
        '{"name": "final_answer", "arguments": {"ok": true}}',
    ):
        assert clean_answer(kept, TOOLS) == kept, kept


def test_an_answer_written_as_a_tool_result_is_its_text() -> None:
    assert clean_answer('{"result": "4°C"}', TOOLS) == "4°C"
    assert clean_answer('{"success": true, "output": "5 notes."}', TOOLS) == "5 notes."
    assert clean_answer('```json\n{"error": "Short by 9 units."}\n```') == "Short by 9 units."
    for kept in (
        '{"content": "Hello", "file_name": "a.txt"}',  # two texts: data, not an answer
        '{"total": 42}',  # no text
        '{"note": "x"}',  # not an answer's key
        '{"text": "t", "lines": [1, 2]}',  # more data beside it
        '{"text": "  "}',
    ):
        assert clean_answer(kept, TOOLS) == kept, kept


def _sent(name: str, arguments: str) -> tuple[ToolCall, ...]:
    return (ToolCall("c1", name, arguments),)


def test_an_answer_tool_called_through_the_tool_channel_is_the_answer_it_wraps() -> None:
    said = read_reply("Done.", _sent("final_answer", '{"answer": "4 packs"}'), TOOLS, 3)
    assert said == ((), "4 packs")
    result = '{"previous_result": {"success": true, "output": "Ruiz is on the waiting list"}}'
    assert read_reply(None, _sent("final_answer", result), TOOLS, 3) == (
        (),
        "Ruiz is on the waiting list",
    )
    assert read_reply(None, _sent("respond", '"Sent."'), TOOLS, 3) == ((), "Sent.")
    failed = '{"previous_result": {"success": false, "error": "x", "error_type": "repeated"}}'
    for kept in (
        _sent("final_answer", "{}"),  # no answer in it: refused as an unknown tool, with a hint
        _sent("final_answer", '{"pet_id": "P-1", "date": "2025-06-11"}'),  # data, not an answer
        _sent("final_answer", failed),  # a failed result wraps no answer
        _sent("final_answer", "not json"),
        _sent("book_table", '{"text": "4 packs"}'),  # not an answer tool
        (*_sent("final_answer", '{"answer": "x"}'), ToolCall("c2", "weather", '{"city": "Oslo"}')),
    ):
        assert read_reply("Working.", kept, TOOLS, 3) == (kept, "Working."), kept
    own = _sent("final_answer", '{"answer": "x"}')  # the agent's own tool of that name runs
    assert read_reply(None, own, {"final_answer"}, 3) == (own, None)


def test_a_reply_without_calls_is_read_as_before() -> None:
    written = read_reply(FENCED, (), TOOLS, 2)
    assert [c.name for c in written[0]] == ["weather"] and written[1] is None
    assert read_reply("```\nOslo: 4°C.\n```", (), TOOLS, 2) == ((), "Oslo: 4°C.")
    assert read_reply(None, (), TOOLS, 2) == ((), None)


def test_a_fence_never_closed_is_read_as_closed_at_the_end() -> None:
    """A reply that stops before its closing fence: its call runs, its answer is unwrapped."""
    call = '```json\n{"name": "save_note", "arguments": {"title": "x", "text": "y"}}'
    (found,) = calls_in_text(call, TOOLS, 3)
    assert (found.name, json.loads(found.arguments)) == ("save_note", {"title": "x", "text": "y"})
    assert clean_answer("```json\nThe cheapest e-bike is EB-4.") == "The cheapest e-bike is EB-4."
    assert plain_answer("```\nFinal answer: 42\n") == "42"
    assert clean_answer("Total: 42 ```") == "Total: 42 ```"  # a fence that opens nothing


def test_a_fenced_plain_answer_is_unwrapped() -> None:
    assert clean_answer("```json\nThe commission is $300.\n```") == "The commission is $300."
    assert clean_answer("```\n491.0\n```") == "491.0"
    assert clean_answer("Plain answer.") == "Plain answer."
    assert clean_answer("See ```x``` and more") == "See ```x``` and more"


def test_a_plain_answer_loses_its_final_answer_lead_and_the_quotes_around_it() -> None:
    assert plain_answer('The final answer is: "Call booked at 16:00."') == "Call booked at 16:00."
    assert plain_answer("Final answer: 42") == "42"
    assert plain_answer("```\nthe final answer is: 'done'\n```") == "done"
    assert plain_answer('The final answer is: "a" and "b"') == '"a" and "b"'  # not one quote
    assert plain_answer("My final answer: see the note") == "My final answer: see the note"
    assert plain_answer("Erin lives in Vienna.") == "Erin lives in Vienna."


async def test_a_call_written_as_text_runs_and_the_run_goes_on(tools: Any) -> None:
    tool_list, log = tools
    model = ScriptedModel([reply(FENCED), reply("```\nOslo: 4°C, rain.\n```")])
    result = await LeanAgent(model=model, tools=tool_list, planning=False).execute("Oslo?")
    assert log["calls"] == [("weather", "Oslo")]
    assert result.status is AgentStatus.COMPLETED and result.final_message == "Oslo: 4°C, rain."
    sent = model.requests[1].messages
    assert (
        sent[-2]["content"] is None and sent[-2]["tool_calls"][0]["function"]["name"] == "weather"
    )
    assert tool_results(sent)["call_text_1_1"]["output"] == "4°C, rain"


async def test_a_written_call_of_a_missing_tool_is_refused_and_the_run_goes_on(
    tools: Any,
) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            reply('{"name": "forecast", "arguments": {"city": "Oslo"}}'),
            reply(FENCED),
            reply('{"name": "final_answer", "arguments": {"result": "Oslo: 4°C, rain."}}'),
        ]
    )
    result = await LeanAgent(model=model, tools=tool_list, planning=False).execute("Oslo?")
    refused = tool_results(model.requests[1].messages)["call_text_1_1"]
    assert refused["success"] is False and refused["error_type"] == "unknown_tool"
    assert "'forecast'" in refused["error"] and "weather" in refused["error"]
    assert log["calls"] == [("weather", "Oslo")]
    assert result.status is AgentStatus.COMPLETED and result.final_message == "Oslo: 4°C, rain."


async def test_a_run_out_of_steps_ends_with_its_last_words_not_a_call_it_wrote(
    tools: Any,
) -> None:
    tool_list, _ = tools
    model = ScriptedModel(
        [
            call("weather", city="Oslo", content="Looking it up."),
            reply('```json\n{"name": "compose_email", "arguments": {"to": "bob"}}\n```'),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, planning=False, max_steps=2)
    result = await agent.execute("Oslo?")
    assert result.status is AgentStatus.MAX_STEPS and result.final_message == "Looking it up."


async def test_an_answer_tool_in_the_tool_channel_ends_the_run_or_is_told_to_use_words(
    tools: Any,
) -> None:
    tool_list, log = tools
    said = call("final_answer", answer="Oslo: 4°C, rain.")  # wraps an answer: it is the answer
    empty = raw_call("final_answer", "{}")  # wraps none: refused, with how to answer instead
    runs: list[tuple[list[ModelResponse], int, list[tuple[str, str]]]] = [
        ([call("weather", city="Oslo"), said], 0, [("weather", "Oslo")]),
        ([empty, said], 1, []),
    ]
    for replies, refusals, calls in runs:
        log["calls"].clear()
        model = ScriptedModel(replies)
        result = await LeanAgent(model=model, tools=tool_list, planning=False).execute("Oslo?")
        assert result.status is AgentStatus.COMPLETED
        assert result.final_message == "Oslo: 4°C, rain."
        refused = [
            r for r in tool_results(model.requests[-1].messages).values() if not r["success"]
        ]
        assert len(refused) == refusals
        for error in refused:
            assert error["error_type"] == "unknown_tool"
            assert "plain text, with no tool call" in error["error"]
        assert log["calls"] == calls


def test_bare_data_is_a_json_object_or_list_alone_fenced_or_not() -> None:
    assert bare_data('{"name": "Sofia Ruiz"}') and bare_data("[1, 2]")
    assert bare_data('```json\n{"total": 1500.0}\n```') and bare_data('```\n["a"]')
    assert not bare_data("The total is 1500.") and not bare_data('"1500"') and not bare_data("42")
    assert not bare_data('Total: {"a": 1}') and not bare_data("{not json}")
    assert not bare_data("") and not bare_data(None)


def test_bare_data_of_json_nested_past_the_parsers_limit_is_no_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the parser gives up on nesting (a RecursionError; 3.11 at a few thousand levels,
    3.13 later), the answer is taken as words rather than failing the run."""

    def too_deep(text: str) -> object:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(json, "loads", too_deep)  # the module textcalls parses with
    assert not bare_data("[[[1]]]")
