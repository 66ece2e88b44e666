"""Completion needs evidence, and a call made early for a later step is that step's evidence.

A small model often does a later step's call while an earlier step is current, then repeats
it when that step comes. The repeat is answered with the earlier result (never run twice);
it backs the step when the earlier run backs no DONE step yet, so the run neither loops on
refusals nor ticks a step with no run behind it.
"""

from __future__ import annotations

from typing import Any

import pytest

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.prompts import FAILED_NOTE, REUSED
from taskforce.errors import ToolInputError
from taskforce.testing import ScriptedModel, call, calls, reply
from taskforce.tools.function import FunctionTool
from tests.agent.helpers import tool_results

TASKS = ["Weather in Oslo", "Multiply", "Save a note"]


async def test_a_repeat_of_a_call_made_early_backs_the_later_step(tools: Any) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=TASKS),
            call("weather", city="Oslo"),
            call("notes", text="rain"),  # step 3's work, done early
            call("planner", action="mark_done", step_index=[1]),
            call("calculator", expression="2 * 3"),
            call("planner", action="mark_done", step_index=[2]),
            call("notes", text="rain"),  # the repeat for step 3: answered, not run
            call("planner", action="mark_done", step_index=[3]),
            reply("Saved."),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False)
    result = await agent.execute("Weather in Oslo, 2 * 3, then a note")
    assert log["notes"] == ["rain"]  # ran once
    repeat = tool_results(model.requests[7].messages)["call_7"]
    assert repeat == {"success": True, "output": "saved note 1", "note": REUSED}
    assert [s.status.value for s in result.plan.steps] == ["DONE", "DONE", "DONE"]
    assert result.status is AgentStatus.COMPLETED and result.steps == 9  # no refusal loop


async def test_a_repeat_of_a_run_that_already_backs_a_step_is_not_evidence(tools: Any) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Weather again"]),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1]),  # backed by the one run
            call("weather", city="Oslo"),  # a repeat: that run backs step 1 already
            call("planner", action="mark_done", step_index=[2]),  # refused
            reply("x"),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False, max_finish_reminders=0)
    result = await agent.execute("Weather in Oslo twice")
    assert log["calls"] == [("weather", "Oslo")]
    repeat = tool_results(model.requests[4].messages)["call_4"]
    assert repeat["error_type"] == "repeated_call"  # not passed off as this step's work
    refused = tool_results(model.requests[5].messages)["call_5"]
    assert refused["error_type"] == "no_work_done"
    assert [s.status.value for s in result.plan.steps] == ["DONE", "PENDING"]


async def test_a_repeat_of_a_failed_call_is_never_evidence(tools: Any) -> None:
    tool_list, _ = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Multiply", "Note"]),
            call("calculator", expression="2 * 3"),
            call("calculator", expression="2 ^ 3"),  # fails
            call("planner", action="mark_done", step_index=[1]),
            call("calculator", expression="2 ^ 3"),  # the same failure, answered
            call("planner", action="mark_done", step_index=[2]),  # refused
            reply("x"),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False, max_finish_reminders=0)
    result = await agent.execute("Multiply, then a note")
    refused = tool_results(model.requests[6].messages)["call_6"]
    assert refused["error_type"] == "no_work_done"
    assert [s.status.value for s in result.plan.steps] == ["DONE", "PENDING"]


async def test_without_the_evidence_rule_a_repeat_is_not_marked_as_reused(
    tools: Any, events: Any
) -> None:
    model = ScriptedModel(
        [
            call("weather", city="Oslo"),
            call("weather", city="Oslo"),
            reply("rain"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], require_work_before_done=False)
    await agent.execute("Weather in Oslo?", on_event=events)
    assert [e.data["reuses"] for e in events.of("tool_call")] == [False, False]


@pytest.mark.parametrize(
    ("second", "named"),
    [
        ("Tell me", "The current step is 2. Tell me. If its tool already ran"),
        # a step written as a sentence keeps its own full stop ("... me.. If" before)
        ("Tell me the weather.", "The current step is 2. Tell me the weather. If its tool"),
        ("Is it cold?", "The current step is 2. Is it cold? If its tool already ran"),
    ],
)
async def test_the_stall_reminder_shows_how_to_mark_the_current_step(
    tools: Any, second: str, named: str
) -> None:
    repeat = call("weather", city="Oslo")
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", second]),
            repeat,
            call("planner", action="mark_done", step_index=[1]),
            repeat,
            repeat,
            reply("Oslo: 4°C"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, max_finish_reminders=0)
    await agent.execute("Weather in Oslo, then tell me")
    nudge = model.requests[5].messages[-1]["content"]
    assert "repeating calls" in nudge and named in nudge and ".." not in nudge
    assert 'planner(action="mark_done", step_index=[2])' in nudge


async def test_the_stall_reminder_without_a_plan_does_not_say_otherwise(tools: Any) -> None:
    """With no step to mark there is no "If ..." before it: no dangling "Otherwise"."""
    repeat = call("weather", city="Oslo")
    model = ScriptedModel([repeat, repeat, repeat, reply("Oslo: 4°C")])
    agent = LeanAgent(model=model, tools=tools[0], planning=False, max_finish_reminders=0)
    await agent.execute("Weather in Oslo?")
    nudge = model.requests[3].messages[-1]["content"]
    assert "already have. Use those results: call a different tool or arguments" in nudge
    assert "Otherwise" not in nudge


async def test_the_stall_reminder_names_a_tool_not_called_yet_that_fits_the_step(
    tools: Any,
) -> None:
    """A small model repeats its lookups at "Save ... a note" and never calls `notes`."""
    repeat = call("weather", city="Oslo")
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Save the notes"]),
            repeat,
            call("planner", action="mark_done", step_index=[1]),
            repeat,
            repeat,
            call("notes", text="Oslo: rain"),
            call("planner", action="mark_done", step_index=[2]),
            reply("Saved."),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False)
    result = await agent.execute("Weather in Oslo, then save it in my notes")
    nudge = model.requests[5].messages[-1]["content"]
    assert "repeating calls" in nudge and "The current step is 2. Save the notes" in nudge
    assert "Call notes for it now: it fits this step and has not run yet." in nudge
    assert "mark_done" not in nudge  # its tool did not run: there is nothing to mark yet
    assert result.status is AgentStatus.COMPLETED and tools[1]["notes"] == ["Oslo: rain"]


async def test_once_the_plan_is_finished_a_repeat_is_a_repeat_not_evidence(tools: Any) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Save a note"]),
            call("weather", city="Oslo"),
            call("notes", text="draft"),  # an extra run that backs no step
            call("planner", action="mark_done", step_index=[1]),
            call("notes", text="rain"),
            call("planner", action="mark_done", step_index=[2]),
            call("notes", text="draft"),  # the plan is finished: nothing to back
            reply("Oslo: rain. Saved."),  # the forced answer, after one turn of repeats
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False)
    result = await agent.execute("Weather in Oslo, then save it in a note")
    repeat = tool_results(model.requests[7].messages)["call_7"]
    assert repeat["error_type"] == "repeated_call" and "note" not in repeat
    assert model.requests[7].no_calls  # one turn of repeats on a finished plan: answer
    assert result.status is AgentStatus.COMPLETED and result.final_message == "Oslo: rain. Saved."
    assert log["notes"] == ["draft", "rain"]  # the repeat did not run


async def test_a_failed_call_backs_no_step_so_a_repeat_cannot_stand_in_for_it(
    tools: Any,
) -> None:
    """The evaluation's party-invites: the third contact's lookup failed, then a repeat of the
    second one's was taken as the third step's work and the step was ticked."""
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=TASKS),
            call("weather", city="Oslo"),
            call("calculator", expression="2 * 3"),  # step 2's work, done early
            call("calculator", expression="2 ^ 3"),  # another attempt: fails
            call("planner", action="mark_done", step_index=[1]),
            call("calculator", expression="2 * 3"),  # the repeat backs step 2
            call("planner", action="mark_done", step_index=[2]),
            call("calculator", expression="2 * 3"),  # again: its run backs step 2 already
            call("planner", action="mark_done", step_index=[3]),  # refused: nothing succeeded
            reply("x"),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False, max_finish_reminders=0)
    result = await agent.execute("Weather in Oslo, 2 * 3, then a note")
    assert log["notes"] == []
    assert tool_results(model.requests[6].messages)["call_6"]["note"] == REUSED
    again = tool_results(model.requests[8].messages)["call_8"]
    assert again["error_type"] == "repeated_call" and "note" not in again
    refused = tool_results(model.requests[9].messages)["call_9"]
    assert refused["error_type"] == "no_work_done"
    assert "no tool ran for step 3 (Save a note)" in refused["error"]
    assert [s.status.value for s in result.plan.steps] == ["DONE", "DONE", "PENDING"]


async def test_a_failed_call_alone_is_not_the_step_done(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Multiply", "Save a note"]),
            call("calculator", expression="2 ^ 3"),  # fails
            call("planner", action="mark_done", step_index=[1]),  # refused
            call("calculator", expression="2 * 3"),  # fixed
            call("planner", action="mark_done", step_index=[1]),  # accepted
            call("calculator", expression="2 ^ 4"),  # fails (and is not a note)
            call("planner", action="mark_done", step_index=[2]),  # refused...
            call("planner", action="mark_done", step_index=[2]),  # ...insisting skips it
            reply("6"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False)
    result = await agent.execute("Multiply 2 by 3, then save a note")
    refused = tool_results(model.requests[3].messages)["call_3"]
    assert refused["error_type"] == "no_work_done" and "Fix the call" in refused["error"]
    assert 'status="SKIPPED"' in refused["error"]
    assert [s.status.value for s in result.plan.steps] == ["DONE", "SKIPPED"]
    assert result.plan.steps[1].note == "its tool calls failed"


async def test_steps_of_a_plan_made_in_the_same_turn_need_work_too(tools: Any) -> None:
    """A small model sent create_plan and a mark_done of every new step in one turn."""
    tool_list, log = tools
    model = ScriptedModel(
        [
            calls(
                call("planner", action="create_plan", tasks=TASKS),
                call("planner", action="mark_done", step_index=[1]),  # no work yet
                call("weather", city="Oslo"),
                call("planner", action="mark_done", step_index=[1]),  # backed now
                call("planner", action="update_plan", add_steps=["Email Bob"]),
                call("planner", action="mark_done", step_index=[4]),  # added: no work
            ),
            reply("x"),
        ]
    )
    agent = LeanAgent(model, tool_list, plan_first=False, max_finish_reminders=0)
    result = await agent.execute("Weather in Oslo, 2 * 3, a note, then email Bob")
    results = tool_results(await agent.store.load_messages(result.session_id))
    assert results["call_2"]["error_type"] == "no_work_done"
    assert "step 1 (Weather in Oslo)" in results["call_2"]["error"]
    assert results["call_4"]["success"] is True and results["call_6"]["success"] is False
    assert log["calls"] == [("weather", "Oslo")]
    statuses = [s.status.value for s in result.plan.steps]
    assert statuses == ["DONE", "PENDING", "PENDING", "PENDING"]


# ---- a step whose own tool failed is not done by a lookup ------------------------------


def _beds() -> tuple[list[FunctionTool], list[str]]:
    watered: list[str] = []

    def list_beds() -> list[dict[str, Any]]:
        """The beds with their bed_id and moisture."""
        return [{"bed_id": "GH-14", "moisture_pct": 34}]

    def water_bed(bed_id: str) -> str:
        """Water one bed."""
        if bed_id != "GH-14":
            raise ToolInputError(f"no bed {bed_id!r}; list_beds gives the bed ids")
        watered.append(bed_id)
        return f"watered {bed_id}"

    def calculator(expression: str) -> str:
        """Work out an arithmetic expression."""
        raise ToolInputError(f"cannot read {expression!r}")

    tools = [FunctionTool(list_beds, read_only=True), FunctionTool(water_bed)]
    return [*tools, FunctionTool(calculator, read_only=True)], watered


async def test_a_step_whose_tool_failed_is_not_done_by_a_lookup_until_that_tool_succeeds() -> None:
    """The evaluation's gh-water-dry-beds: ``water_bed`` failed on guessed ids, ``list_beds``
    gave the ids, and "Water every dry bed" was ticked with no bed watered."""
    tools, watered = _beds()
    model = ScriptedModel([
        call("planner", action="create_plan", tasks=["Water every dry bed"]),
        call("water_bed", bed_id="bed1"),  # a guess: fails
        call("list_beds"),  # a success, but not the watering
        call("planner", action="mark_done", step_index=[1]),  # refused
        call("water_bed", bed_id="GH-14"),
        call("planner", action="mark_done", step_index=[1]),
        reply("Watered GH-14."),
    ])  # fmt: skip
    result = await LeanAgent(model, tools, plan_first=False).execute("Water the dry beds")
    refused = tool_results(model.requests[4].messages)["call_4"]
    assert refused["success"] is False and refused["error_type"] == "no_work_done"
    assert refused["error"].startswith(
        "Not marked: water_bed failed for step 1 (Water every dry bed) and has not succeeded since"
    )
    assert watered == ["GH-14"]
    assert [s.status.value for s in result.plan.steps] == ["DONE"]
    assert result.status is AgentStatus.COMPLETED


async def test_asked_twice_a_step_whose_tool_kept_failing_is_skipped_not_done() -> None:
    tools, watered = _beds()
    model = ScriptedModel([
        call("planner", action="create_plan", tasks=["Water every dry bed"]),
        call("water_bed", bed_id="bed1"),
        call("list_beds"),
        call("planner", action="mark_done", step_index=[1]),  # refused
        call("planner", action="mark_done", step_index=[1]),  # again: skipped, with why
        reply("Could not water the beds."),
    ])  # fmt: skip
    result = await LeanAgent(model, tools, plan_first=False).execute("Water the dry beds")
    assert watered == []
    step = result.plan.steps[0]
    assert step.status.value == "SKIPPED" and step.note == FAILED_NOTE


async def test_a_failure_of_a_tool_the_step_does_not_name_does_not_hold_it_back() -> None:
    tools, _ = _beds()
    model = ScriptedModel([
        call("planner", action="create_plan", tasks=["Water every dry bed"]),
        call("calculator", expression="34 < 40"),  # fails; not the step's tool
        call("water_bed", bed_id="GH-14"),
        call("planner", action="mark_done", step_index=[1]),
        reply("Watered GH-14."),
    ])  # fmt: skip
    result = await LeanAgent(model, tools, plan_first=False).execute("Water the dry beds")
    assert "call_4" not in tool_results(model.requests[4].messages)  # not refused
    assert [s.status.value for s in result.plan.steps] == ["DONE"]
