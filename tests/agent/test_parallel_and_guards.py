"""Parallel tool calls, the serialised planner, and the guards against loops and floods."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.planning import list_items, needs_plan, split_mission
from taskforce.agent.prompts import NO_PLANNING_SYSTEM_PROMPT
from taskforce.testing import ScriptedModel, call, calls, reply
from taskforce.tools.function import FunctionTool
from tests.agent.helpers import tool_results


async def test_parallel_calls_really_run_concurrently() -> None:
    ping_seen, pong_seen = asyncio.Event(), asyncio.Event()

    async def ping() -> str:
        """Waits for pong."""
        ping_seen.set()
        await pong_seen.wait()  # deadlocks unless pong runs at the same time
        return "ping done"

    async def pong() -> str:
        """Waits for ping."""
        pong_seen.set()
        await ping_seen.wait()
        return "pong done"

    model = ScriptedModel([calls(call("ping"), call("pong")), reply("both")])
    agent = LeanAgent(model=model, tools=[FunctionTool(ping), FunctionTool(pong)])
    result = await asyncio.wait_for(agent.execute("ping pong"), timeout=30)
    assert result.final_message == "both"
    outputs = {r["output"] for r in tool_results(model.requests[1].messages).values()}
    assert outputs == {"ping done", "pong done"}


async def test_non_parallel_tools_and_planner_run_one_at_a_time_in_order() -> None:
    active: list[str] = []
    overlaps: list[tuple[str, ...]] = []
    order: list[str] = []

    async def step(label: str) -> str:
        """Records overlap with other serial calls."""
        if active:
            overlaps.append((*active, label))
        active.append(label)
        order.append(label)
        for _ in range(3):
            await asyncio.sleep(0)
        active.remove(label)
        return label

    serial = FunctionTool(step, supports_parallelism=False)
    model = ScriptedModel(
        [
            calls(
                call("planner", action="create_plan", tasks=["one", "two"]),
                call("step", label="a"),
                call("step", label="b"),
                call("planner", action="mark_done", step_index=[1]),
            ),
            reply("ok"),
        ]
    )
    agent = LeanAgent(model=model, tools=[serial], plan_first=False, max_finish_reminders=0)
    result = await agent.execute("go")
    assert overlaps == [] and order == ["a", "b"]
    # create_plan ran before mark_done (serialised in call order), so mark_done succeeded
    assert result.plan_markdown.startswith("- [x] 1. one")


async def test_repeated_call_is_answered_with_the_earlier_result(tools: Any) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("weather", city="Oslo"),
            call("weather", city="Oslo"),
            call("weather", city="Oslo"),
            reply("Oslo is rainy"),
        ]
    )
    result = await LeanAgent(model=model, tools=tool_list).execute("Weather in Oslo?")
    assert result.status is AgentStatus.COMPLETED
    assert log["calls"] == [("weather", "Oslo")]  # ran once
    second = tool_results(model.requests[2].messages)["call_2"]
    assert second["success"] is False and second["error_type"] == "repeated_call"
    assert second["previous_result"] == {"success": True, "output": "4°C, rain"}


async def test_same_call_twice_in_one_turn_runs_once(tools: Any) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [calls(call("weather", city="Rome"), call("weather", city="Rome")), reply("ok")]
    )
    await LeanAgent(model=model, tools=tool_list).execute("Rome?")
    assert log["calls"] == [("weather", "Rome")]
    results = tool_results(model.requests[1].messages)
    assert results["call_1"]["output"] == "19°C, sunny"
    assert results["call_2"]["error_type"] == "repeated_call"
    assert results["call_2"]["previous_result"]["output"] == "19°C, sunny"


async def test_read_plan_again_after_a_change_is_not_a_repeat(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["a", "b"]),
            call("planner", action="read_plan"),
            call("planner", action="mark_done", step_index=[1]),
            call("planner", action="read_plan"),
            call("planner", action="read_plan"),
            call("planner", action="mark_done", step_index=[2]),
            reply("done"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, require_work_before_done=False)
    await agent.execute("go")
    results = tool_results(model.requests[5].messages)
    assert results["call_4"]["success"] is True  # plan changed since call_2
    assert results["call_5"]["error_type"] == "repeated_call"


async def test_flood_of_calls_is_capped(tools: Any) -> None:
    tool_list, log = tools
    flood = calls(*(call("calculator", expression=f"{i}*2") for i in range(12)))
    model = ScriptedModel([flood, reply("ok")])
    await LeanAgent(model=model, tools=tool_list, max_tool_calls_per_turn=5).execute("double")
    assert len(log["calls"]) == 5
    results = tool_results(model.requests[1].messages)
    assert len(results) == 12  # every call id is answered
    refused = [r for r in results.values() if r.get("error_type") == "too_many_calls"]
    assert len(refused) == 7 and "limit 5" in refused[0]["error"]


async def test_plan_first_offers_only_the_planner_on_the_first_turn(tools: Any) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            calls(call("weather", city="Oslo"), call("planner", action="create_plan", tasks=["a"])),
            reply("done"),
            reply("done"),
            reply("done"),
        ]
    )
    mission = "Check the weather in Oslo and then save a note about it."
    await LeanAgent(model=model, tools=tool_list).execute(mission)
    first = model.requests[0]
    assert first.tool_names == ["planner"]
    assert "create_plan" in first.messages[-1]["content"]
    assert model.requests[1].tool_names == ["planner", "calculator", "weather", "notes"]
    assert log["calls"] == []  # weather was held back until the plan existed
    held = tool_results(model.requests[1].messages)["call_1"]
    assert held["error_type"] == "plan_required"


async def test_free_text_plan_becomes_a_real_plan(tools: Any) -> None:
    text = "My plan:\n1. Get the weather in Oslo\n2. Compute 6*7\n3. Save a note"
    model = ScriptedModel([reply(text), reply("x"), reply("x"), reply("x")])
    mission = "Get the weather in Oslo, compute 6*7 and save a note with both results."
    result = await LeanAgent(model=model, tools=tools[0]).execute(mission)
    assert result.plan_markdown.splitlines() == [
        "- [ ] 1. Get the weather in Oslo",
        "- [ ] 2. Compute 6*7",
        "- [ ] 3. Save a note",
    ]
    assert "Do now: step 1.\n" in model.requests[1].messages[-1]["content"]


async def test_model_that_never_plans_gets_a_plan_from_the_mission(tools: Any) -> None:
    model = ScriptedModel([reply("Sure, it is 20 degrees."), reply("a"), reply("b"), reply("c")])
    mission = "Get the weather in Rome, then compute 19*2 and save a note with the answer."
    result = await LeanAgent(model=model, tools=tools[0]).execute(mission)
    assert result.plan_markdown.count("- [ ]") == 3, result.plan_markdown
    # the premature answer was not accepted: the open steps were sent back
    assert result.final_message == "c" and len(result.open_steps) == 3


async def test_simple_mission_is_not_forced_to_plan_nor_offered_the_planner(tools: Any) -> None:
    model = ScriptedModel([reply("19°C")])
    result = await LeanAgent(model=model, tools=tools[0]).execute("Weather in Rome?")
    # adaptive exposure: a mission that needs no plan does not pay for the planner
    assert model.requests[0].tool_names == ["calculator", "weather", "notes"]
    assert model.requests[0].messages[0]["content"] == NO_PLANNING_SYSTEM_PROMPT
    assert result.plan_markdown == "No active plan."


def test_complexity_heuristic() -> None:
    assert not needs_plan("What is 2+2?")
    assert not needs_plan("Weather in Rome?")
    assert needs_plan("Get the weather in Oslo, then compute 2*21 and save a note.")
    assert needs_plan("Do these:\n- fetch the data\n- summarise it")
    assert needs_plan("Find the weather in Paris. Then write a note about it.")


def test_mission_splitting_and_list_items() -> None:
    assert split_mission("Get the weather in Oslo, then compute 2*21 and save a note.") == [
        "Get the weather in Oslo",
        "Compute 2*21",
        "Save a note",
    ]
    assert split_mission("What is the capital of France?") == []
    assert list_items("Plan:\n1) one thing\n2) another\n") == ["one thing", "another"]
    assert list_items("- only one") == []


async def test_a_stalled_model_is_nudged(tools: Any) -> None:
    repeat = call("weather", city="Oslo")
    model = ScriptedModel([repeat, repeat, repeat, reply("Oslo: 4°C")])
    await LeanAgent(model=model, tools=tools[0]).execute("Weather in Oslo?")
    assert "repeating calls" not in str(model.requests[2].messages[-1]["content"])
    nudge = model.requests[3].messages[-1]
    assert nudge["role"] == "user" and "repeating calls" in nudge["content"]


async def test_a_model_stuck_after_two_nudges_must_answer_without_tools(tools: Any) -> None:
    """No plan of the run's own: no tools are shown (shown, a plain loop answered wrongly
    where it used to stop: session 42)."""
    repeat = call("weather", city="Oslo")
    model = ScriptedModel([*([repeat] * 5), reply("Oslo: 4°C")])
    result = await LeanAgent(model=model, tools=tools[0]).execute("Weather in Oslo?")
    assert result.status is AgentStatus.COMPLETED and result.final_message == "Oslo: 4°C"
    nudged = [
        i
        for i, r in enumerate(model.requests)
        if r.messages[-1]["role"] == "user" and "repeating" in r.messages[-1]["content"]
    ]
    assert nudged == [3, 5]
    told = model.requests[5]
    assert told.tools == [] and not told.no_calls and "plain text" in told.messages[-1]["content"]
    assert all(r.tools for r in model.requests[:5])


async def test_completion_needs_evidence_by_default(tools: Any) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Save a note", "Email Bob", "Tell me"]),
            call("planner", action="mark_done", step_index=[1]),  # refused: nothing ran
            call("notes", text="milk"),
            call("planner", action="mark_done", step_index=[1]),  # accepted: notes ran
            call("planner", action="mark_done", step_index=[2]),  # refused: nothing ran...
            call("planner", action="mark_done", step_index=[2]),  # ...insisting skips it
            call("planner", action="mark_done", step_index=[3]),  # "Tell me" needs no tool
            reply("done"),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False)
    result = await agent.execute("Save a note, email Bob, then tell me")
    assert log["notes"] == ["milk"]
    refused = tool_results(model.requests[2].messages)["call_2"]
    assert refused["error_type"] == "no_work_done"
    assert "step 1 (Save a note)" in refused["error"]
    assert "with the tool it needs (notes), then" in refused["error"]  # its words fit it
    again = tool_results(model.requests[5].messages)["call_5"]
    assert again["error_type"] == "no_work_done"
    assert "with the tool it needs, then" in again["error"]  # no tool fits "Email Bob"
    statuses = [s.status.value for s in result.plan.steps]
    assert statuses == ["DONE", "SKIPPED", "DONE"]  # never DONE without a tool run
    assert result.plan.steps[1].note == "no tool ran for it"


async def test_a_step_composing_the_message_a_later_step_sends_is_marked_without_a_tool() -> None:
    sent: list[str] = []

    def send_email(to: str, body: str) -> str:
        """Send an email."""
        sent.append(f"{to}: {body}")
        return f"Email to {to} sent."

    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Compose the email", "Send it to Bob"]),
            call("planner", action="mark_done", step_index=[1]),  # writing it is the model's own
            call("send_email", to="bob@example.com", body="Party on Saturday"),
            call("planner", action="mark_done", step_index=[2]),
            reply("Sent."),
        ]
    )
    agent = LeanAgent(model=model, tools=[FunctionTool(send_email)], plan_first=False)
    result = await agent.execute("Email Bob (bob@example.com) that the party is on Saturday")
    first = model.requests[1].messages[-1]["content"]
    assert "Do now: step 1.\nThis step needs no tool" in first
    second = model.requests[2].messages[-1]["content"]  # marked at once, not refused
    assert "- [x] 1. Compose the email" in second and "Do now: step 2." in second
    assert sent == ["bob@example.com: Party on Saturday"]
    assert [s.status.value for s in result.plan.steps] == ["DONE", "DONE"]
    assert result.final_message == "Sent."


async def test_a_plan_closed_by_skips_is_not_called_done(tools: Any) -> None:
    """Steps skipped because no tool ran are named when no step is left open."""
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Save a note", "Email Bob", "Tell me"]),
            call("planner", action="mark_done", step_index=[1, 2]),  # refused: nothing ran
            call("planner", action="mark_done", step_index=[1, 2]),  # insisting skips them
            call("planner", action="mark_done", step_index=[3]),  # needs no tool: done
            call("notes", text="milk"),  # the closing note sent it back to the work
            reply("Saved the note; Bob was not emailed."),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False)
    result = await agent.execute("Save a note, email Bob, then tell me")
    closing = model.requests[4].messages[-1]["content"]
    assert "All steps are done" not in closing
    assert "no tool ran for steps 1 and 2" in closing
    assert log["notes"] == ["milk"]
    assert [s.status.value for s in result.plan.steps] == ["SKIPPED", "SKIPPED", "DONE"]
    assert result.status is AgentStatus.COMPLETED


async def test_the_closing_note_says_which_skipped_steps_only_had_failed_calls(
    tools: Any,
) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Compute the total", "Save a note"]),
            call("calculator", expression="two plus two"),  # fails
            call("planner", action="mark_done", step_index=[1]),  # refused: only a failure
            call("planner", action="mark_done", step_index=[1]),  # insisting skips it
            call("planner", action="mark_done", step_index=[2]),  # refused: nothing ran
            call("planner", action="mark_done", step_index=[2]),  # insisting skips it
            reply("Nothing was done."),  # held once: no note was ever saved
            reply("Nothing was done."),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False)
    result = await agent.execute("Compute the total, then save a note")
    assert "- step 2: Save a note (notes)" in model.requests[7].messages[-1]["content"]
    closing = model.requests[6].messages[-1]["content"]
    assert "no tool ran for step 2 and the calls for step 1 failed" in closing
    assert [s.note for s in result.plan.steps] == ["its tool calls failed", "no tool ran for it"]


async def test_one_tool_run_is_evidence_for_one_step(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather", "Note"]),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1, 2]),  # 1 run, 2 steps
            reply("x"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, max_finish_reminders=0)
    result = await agent.execute("Weather in Oslo and a note")
    refused = tool_results(model.requests[3].messages)["call_3"]
    assert refused["error_type"] == "no_work_done" and "step 2 (Note)" in refused["error"]
    assert [s.status.value for s in result.plan.steps] == ["PENDING", "PENDING"]


async def test_without_evidence_rule_steps_tick_freely(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather", "Note"]),
            call("planner", action="mark_done", step_index=[1, 2]),
            reply("x"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, require_work_before_done=False)
    assert (await agent.execute("Weather in Oslo and a note")).open_steps == ()


async def test_work_and_mark_done_in_the_same_turn_is_fine(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Note"]),
            calls(call("notes", text="x"), call("planner", action="mark_done", step_index=[1])),
            reply("ok"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, require_work_before_done=True)
    assert (await agent.execute("note x")).open_steps == ()


async def test_missing_argument_error_shows_the_corrected_call_and_repeats_keep_it() -> None:
    def save_note(title: str, text: str) -> str:
        """Save a note."""
        return f"saved {title}"

    same = call("save_note", text="491")
    model = ScriptedModel([same, same, reply("gave up")])
    agent = LeanAgent(model=model, tools=[FunctionTool(save_note)], planning=False)
    await agent.execute("Save 491 as a note titled result")
    first = tool_results(model.requests[1].messages)["call_1"]
    assert first["error_type"] == "invalid_arguments" and "title" in first["error"]
    assert (
        '{"name": "save_note", "arguments": {"title": "<string>", "text": "491"}}'
        in (first["error"])
    )
    again = tool_results(model.requests[2].messages)["call_2"]
    assert again["error_type"] == "repeated_call"
    assert first["error"] in again["error"] and "change the arguments" in again["error"]


async def test_the_planner_is_hidden_once_the_plan_is_finished(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather", "Tell me"]),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1, 2]),
            reply("4°C"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False)  # offered from the start
    await agent.execute("Get the weather in Oslo and tell me")
    assert [r.tool_names[0] for r in model.requests] == ["planner"] * 3 + ["calculator"]
    closing = model.requests[3].messages[-1]["content"]
    assert "All steps are done" in closing
    assert "Weather" not in closing  # the checklists before showed the steps: not again


async def test_update_plan_refuses_to_add_an_open_step_again(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather", "Email Bob"]),
            call("planner", action="update_plan", add_steps=["email bob"]),
            reply("x"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, max_finish_reminders=0)
    result = await agent.execute("go")
    refused = tool_results(model.requests[2].messages)["call_2"]
    assert refused["success"] is False and "step 2 already reads" in refused["error"]
    assert "A valid call looks like: planner(" in refused["error"]
    assert len(result.plan.steps) == 2


async def test_the_stall_reminder_names_the_planner_only_when_there_is_one(tools: Any) -> None:
    repeat = call("weather", city="Oslo")
    model = ScriptedModel([repeat, repeat, repeat, reply("Oslo: 4°C")])
    await LeanAgent(model=model, tools=tools[0], planning=False).execute("Weather in Oslo?")
    nudge = model.requests[3].messages[-1]["content"]
    assert "repeating calls" in nudge and "planner" not in nudge


async def test_a_note_or_a_human_approval_stands_in_for_a_tool_run(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather", "Note"]),
            call("planner", action="mark_done", step_index=[1], note="known: 4°C from the user"),
            call("planner", action="mark_done", step_index=[2]),  # no note, no work: refused
            reply("x"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, max_finish_reminders=0)
    result = await agent.execute("go")
    assert [s.status.value for s in result.plan.steps] == ["DONE", "PENDING"]


async def test_the_same_amount_written_as_a_float_is_the_same_call() -> None:
    """250.0 and 250 are one JSON number: an action sent twice that way runs once."""
    moved: list[float] = []

    def transfer(amount: float) -> str:
        """Move money to savings."""
        moved.append(amount)
        return f"moved {amount}"

    model = ScriptedModel(
        [call("transfer", amount=250.0), call("transfer", amount=250), reply("Moved 250.")]
    )
    agent = LeanAgent(model=model, tools=[FunctionTool(transfer)], planning=False)
    result = await agent.execute("Move 250 to savings.")
    assert moved == [250.0] and result.final_message == "Moved 250."
    second = list(tool_results(model.requests[2].messages).values())[-1]
    assert second["error_type"] == "repeated_call"
    assert "250" in str(second["previous_result"])


@pytest.mark.parametrize(
    ("mission", "planning", "noted"),
    [
        ("Save a note saying hi.", True, True),  # judged one step: the planner is not offered
        ("Save a note saying hi.", False, True),  # the plain loop: the same judgement
        ("Get the weather in Oslo, then save a note with it.", True, False),  # planned
        ("Get the weather in Oslo, then save a note with it.", False, False),
    ],
)
async def test_an_action_in_a_mission_judged_one_step_asks_for_the_answer(
    mission: str, planning: bool, noted: bool
) -> None:
    """Small models go on acting after the asked-for action; one step judged, one note.

    Both arms judge alike, so a single-step mission still asks the model the same in both.
    """
    saved: list[str] = []

    def weather(city: str) -> str:
        """The weather in a city."""
        return f"{city}: 4C"

    def notes(text: str) -> str:
        """Save a note."""
        saved.append(text)
        return "saved"

    tool_list = [FunctionTool(weather, read_only=True), FunctionTool(notes)]
    script = [call("weather", city="Oslo"), call("notes", text="hi"), reply("Saved.")]
    if planning and not noted:
        script = [
            call("planner", action="create_plan", tasks=["Get the weather", "Save a note"]),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1]),
            call("notes", text="hi"),
            call("planner", action="mark_done", step_index=[2]),
            reply("Saved."),
        ]
    model = ScriptedModel(script)
    await LeanAgent(model, tool_list, planning=planning).execute(mission)
    results = [r for r in tool_results(model.requests[-1].messages).values() if "output" in r]
    by_output = {r["output"]: r for r in results}
    assert saved == ["hi"]
    assert ("note" in by_output["saved"]) is noted
    assert "note" not in by_output["Oslo: 4C"]  # a lookup is no action
    if noted:
        assert by_output["saved"]["note"].startswith("If that was all the mission asked for")
