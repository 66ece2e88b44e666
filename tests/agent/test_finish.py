"""FinishGuard: which answer is held back, with what reminder, and how many times."""

from __future__ import annotations

from typing import Any

from taskforce.agent import AgentStatus, LeanAgent, prompts
from taskforce.agent.finish import DATA_ANSWER, FinishGuard
from taskforce.testing import ScriptedModel, call, reply

NAMED = "[Reminder] Not finished yet: the request also names Rome."


def test_open_steps_not_covered_are_named_until_the_budget_is_spent() -> None:
    guard = FinishGuard(max_reminders=2)
    steps = ["step 2: Save a note"]
    first = guard.check("Done.", steps)
    assert first is not None and "step 2: Save a note" in first
    assert guard.check("Done.", steps) is not None
    assert guard.check("Done.", steps) is None  # two reminders spent: the answer is taken


def test_a_reminder_after_progress_is_not_counted() -> None:
    guard = FinishGuard(max_reminders=2)
    steps = ["step 1: Weather in Oslo", "step 2: Save a note"]
    assert guard.check("Cold.", steps, progress=(0, 0)) is not None
    assert guard.check("Cold.", steps, progress=(1, 0)) is not None  # a tool ran: free
    assert guard.check("Cold.", steps, progress=(1, 1)) is not None  # a step done: free
    assert guard.used == 1
    assert guard.check("Cold.", steps[1:], progress=(1, 1)) is not None  # no progress: counted
    assert guard.used == 2
    assert guard.check("Cold.", steps[1:], progress=(1, 1)) is None  # spent: taken
    assert guard.check("Cold.", steps[1:], progress=(2, 1)) is not None  # moved again: free


def test_a_step_set_back_and_finished_again_is_no_progress() -> None:
    guard = FinishGuard(max_reminders=2)
    steps = ["step 1: Weather in Oslo"]
    assert guard.check("Cold.", steps, progress=(1, 1)) is not None
    assert guard.check("Cold.", steps, progress=(1, 0)) is not None  # set back: counted
    assert guard.used == 2
    assert guard.check("Cold.", steps, progress=(1, 1)) is None  # finished again: not forward


def test_progress_frees_nothing_without_an_open_steps_reminder() -> None:
    assert FinishGuard(max_reminders=0).check("Cold.", ["step 1: x"], progress=(5, 0)) is None
    guard = FinishGuard(max_reminders=1)
    assert guard.check("", [], progress=(0, 0)) == prompts.EMPTY_REPLY  # spends the budget
    assert guard.check("Cold.", ["step 1: x"], progress=(1, 0)) is None  # no earlier listing


async def test_a_model_that_answers_between_steps_is_sent_back_while_it_works(
    tools: Any,
) -> None:
    """Each early answer follows new work, so none uses up the two reminders."""
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Weather in Rome",
                                                         "Save a note with both"]),
            call("weather", city="Oslo"),
            reply("Oslo is cold."),  # early: reminder 1 (counted)
            call("weather", city="Rome"),
            reply("Rome is warm."),  # early, after work: reminder 2 (free)
            call("planner", action="mark_done", step_index=[1, 2]),
            reply("Oslo cold, Rome warm."),  # early, after a tick: reminder 3 (free)
            call("notes", text="Oslo cold, Rome warm"),
            call("planner", action="mark_done", step_index=[3]),
            reply("Saved: Oslo cold, Rome warm."),
        ]
    )  # fmt: skip
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False, max_finish_reminders=2)
    result = await agent.execute("Weather in Oslo and Rome, then save a note with both")
    assert result.status is AgentStatus.COMPLETED, result.final_message
    assert result.final_message == "Saved: Oslo cold, Rome warm."
    assert log["notes"] == ["Oslo cold, Rome warm"]
    assert [s.status.value for s in result.plan.steps] == ["DONE", "DONE", "DONE"]


async def test_early_answers_with_no_work_between_still_end_the_run(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Save a note"]),
            call("weather", city="Oslo"),
            reply("Oslo is cold."),
            reply("Oslo is cold."),
            reply("Oslo is cold."),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, max_finish_reminders=2)
    result = await agent.execute("Weather in Oslo, then save a note")
    assert result.status is AgentStatus.INCOMPLETE and result.final_message == "Oslo is cold."
    assert model.remaining == 0  # two reminders, then the third answer is taken


def test_covered_open_steps_take_the_answer() -> None:
    assert (
        FinishGuard().check("Oslo is warmer.", ["step 1: Find the warmer city"], covered=True)
        is None
    )


def test_a_name_left_out_is_sent_once_and_counts_against_the_budget() -> None:
    guard = FinishGuard(max_reminders=2)
    assert guard.check("Oslo.", [], left_out=NAMED) == NAMED
    assert guard.check("Oslo.", [], left_out=NAMED) is None  # once: the second answer is taken
    assert guard.used == 1
    assert guard.check("", []) == prompts.EMPTY_REPLY  # the budget's second reminder
    assert guard.check("", [], left_out=NAMED) is None  # spent


def test_open_steps_come_before_a_name_left_out() -> None:
    guard = FinishGuard(max_reminders=2)
    first = guard.check("Oslo.", ["step 1: Find the warmer city"], left_out=NAMED)
    assert first is not None and first != NAMED and "step 1" in first
    assert (
        guard.check("Oslo.", ["step 1: Find the warmer city"], covered=True, left_out=NAMED)
        == NAMED
    )


def test_a_spent_budget_takes_any_answer() -> None:
    guard = FinishGuard(max_reminders=0)
    assert guard.check("Oslo.", ["step 1: x"], left_out=NAMED) is None


def test_undone_steps_hold_the_answer_once() -> None:
    guard = FinishGuard(max_reminders=2)
    undone = ["step 1: Save three notes (save_note)"]
    first = guard.check("There are 2 notes.", [], undone=undone)
    assert first == prompts.undone_reminder(undone)
    assert "- step 1: Save three notes (save_note)" in first and "Do that work now" in first
    assert guard.check("There are 2 notes.", [], undone=undone) is None  # once: taken now
    assert guard.used == 1
    fresh = FinishGuard(max_reminders=2)
    open_first = fresh.check("2.", ["step 2: Count the notes"], undone=undone)
    assert open_first is not None and "still open" in open_first  # open steps come first


def test_an_answer_of_bare_json_data_is_sent_back_once_and_counts_against_the_budget() -> None:
    guard = FinishGuard(max_reminders=2)
    assert guard.check('{"name": "Sofia Ruiz"}', [], data=True) == DATA_ANSWER
    assert guard.check('{"name": "Sofia Ruiz"}', [], data=True) is None  # once: taken now
    assert guard.used == 1
    spent = FinishGuard(max_reminders=0)
    assert spent.check("[1, 2]", [], data=True) is None
    steps = FinishGuard(max_reminders=2).check("{}", ["step 1: Assign it"], data=True)
    assert steps is not None and "step 1: Assign it" in steps  # open steps come first


async def test_a_call_written_with_its_tool_left_out_is_sent_back_and_then_made(
    tools: Any,
) -> None:
    """``{"name": "Sofia Ruiz"}`` is no answer: the model meant a call and named no tool."""
    model = ScriptedModel(
        [reply('```json\n{"city": "Oslo"}\n```'), call("weather", city="Oslo"),
         reply("Oslo is 5 C.")]
    )  # fmt: skip
    agent = LeanAgent(model=model, tools=tools[0], planning=False)
    result = await agent.execute("What is the weather in Oslo?")
    assert result.status is AgentStatus.COMPLETED and result.final_message == "Oslo is 5 C."
    assert model.requests[1].messages[-1]["content"] == DATA_ANSWER


async def test_json_data_is_an_answer_when_the_request_asks_for_json(tools: Any) -> None:
    model = ScriptedModel([reply('{"city": "Oslo", "temp_c": 5}')])
    agent = LeanAgent(model=model, tools=tools[0], planning=False)
    result = await agent.execute("Give me Oslo's weather as JSON.")
    assert result.final_message == '{"city": "Oslo", "temp_c": 5}' and model.remaining == 0
