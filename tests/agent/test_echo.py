"""A reply that repeats the loop's own plan recitation or reminder is not a final answer."""

from __future__ import annotations

from typing import Any

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.echo import copies_prompt, is_echo, step_moved_to
from taskforce.agent.planning import work_only
from taskforce.agent.prompts import PLAN_HEADER, REMINDER_HEADER
from taskforce.plan import StepSpec
from taskforce.plan.requests import NewPlan
from taskforce.testing import ScriptedModel, call, reply

ECHO = f"{PLAN_HEADER}\n- [ ] 1. Multiply\n- [ ] 2. Note\nDo now: step 2. Note"
SAME_STEP = f"{PLAN_HEADER}\n- [ ] 1. Multiply\n- [ ] 2. Note\nDo now: step 1. Multiply"


async def test_an_echoed_recitation_is_dropped_and_the_model_is_told_the_step(
    tools: Any,
) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Multiply", "Note"]),
            call("calculator", expression="6 * 7"),
            reply(SAME_STEP),  # the plan copied back instead of marking step 1 done
            call("planner", action="mark_done", step_index=[1]),
            call("notes", text="42"),
            call("planner", action="mark_done", step_index=[2]),
            reply("The product is 42; noted."),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False)
    result = await agent.execute("Multiply 6 by 7, then note the product.")
    assert result.status is AgentStatus.COMPLETED
    assert result.final_message == "The product is 42; noted." and log["notes"] == ["42"]
    after_echo = model.requests[3].messages
    assert not any(m["role"] == "assistant" and m.get("content") == SAME_STEP for m in after_echo)
    reminder = after_echo[-1]["content"]
    assert reminder.startswith(REMINDER_HEADER) and "The current step is 1. Multiply" in reminder
    assert "step_index=[1]" in reminder


async def test_a_copied_recitation_that_moves_on_marks_the_step_it_leaves(tools: Any) -> None:
    """The model writes the next recitation itself ("Do now: step 2") instead of calling
    the planner: read as its mark of step 1, made through the planner, and the plan
    moves on."""
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Multiply", "Note"]),
            call("calculator", expression="6 * 7"),
            reply(ECHO),  # "Do now: step 2": step 1 is done, it says
            call("notes", text="42"),
            call("planner", action="mark_done", step_index=[2]),
            reply("The product is 42; noted."),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False)
    result = await agent.execute("Multiply 6 by 7, then note the product.")
    assert result.status is AgentStatus.COMPLETED and log["notes"] == ["42"]
    assert [s.status.value for s in result.plan.steps] == ["DONE", "DONE"]
    after_echo = model.requests[3].messages
    assert not any(m.get("content") == ECHO for m in after_echo)
    assert "Do now: step 2." in after_echo[-1]["content"]  # the real recitation


async def test_a_copied_recitation_that_moves_on_with_no_work_done_marks_nothing(
    tools: Any,
) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Multiply", "Note"]),
            reply(ECHO),  # nothing ran for step 1
            reply("ok"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, max_steps=3)
    result = await agent.execute("Multiply 6 by 7, then note the product.")
    assert [s.status.value for s in result.plan.steps] == ["PENDING", "PENDING"]
    refused = [m for m in model.requests[2].messages if m["role"] == "tool"][-1]["content"]
    assert "no_work_done" in refused and "no tool ran for step 1" in refused


def test_step_moved_to_reads_only_copies_of_the_loops_recitation() -> None:
    assert step_moved_to(ECHO) == 2 and step_moved_to(SAME_STEP) == 1
    assert step_moved_to("Do now: step 3. I will call the calculator.") is None  # not a copy
    assert step_moved_to(None) is None and step_moved_to(f"{PLAN_HEADER}\n- [ ] 1. A") is None


async def test_a_model_that_only_echoes_never_completes(tools: Any) -> None:
    model = ScriptedModel(
        [call("planner", action="create_plan", tasks=["Multiply", "Note"])] + [reply(ECHO)] * 9
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, max_steps=6)
    result = await agent.execute("Multiply 6 by 7, then note the product.")
    assert result.status is AgentStatus.MAX_STEPS  # never "completed" with the plan as answer
    assert PLAN_HEADER not in result.final_message  # nor is the echo its last words


async def test_without_a_plan_an_echoed_reminder_asks_for_a_call_or_an_answer(
    tools: Any,
) -> None:
    model = ScriptedModel(
        [reply(f"{REMINDER_HEADER} Your reply was empty."), reply("Oslo: 4°C, rain")]
    )
    result = await LeanAgent(model=model, tools=tools[0], planning=False).execute("Oslo?")
    assert result.final_message == "Oslo: 4°C, rain"
    reminder = model.requests[1].messages[-1]["content"]
    assert "tool call or the final answer" in reminder and "planner" not in reminder


def test_is_echo() -> None:
    assert is_echo(ECHO) and is_echo(f"ok {REMINDER_HEADER} x")
    assert not is_echo("The plan: 1. multiply 2. note") and not is_echo(None)


async def test_a_copied_reminder_without_its_header_is_an_echo_too(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Note it"]),
            reply("Done."),  # too early: the finish reminder comes back
            reply(  # the reminder copied, header dropped
                "Not finished yet: these plan steps are still open: - step 1: Weather in Oslo"
            ),
            reply("Oslo: 4°C"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, max_finish_reminders=1)
    result = await agent.execute("Weather in Oslo, then note it")
    copied = model.requests[3].messages
    assert not any(m.get("content", "").startswith("Not finished yet") for m in copied)
    assert "Do not repeat the plan or reminders" in copied[-1]["content"]
    assert result.final_message == "Oslo: 4°C"


async def test_an_answer_right_after_the_steps_tool_is_shown_how_to_mark_it(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Note it"]),
            call("weather", city="Oslo"),
            reply("It is 4°C in Oslo."),  # answers instead of marking step 1
            reply("ok"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, max_finish_reminders=1)
    await agent.execute("Weather in Oslo, then note it")
    reminder = model.requests[3].messages[-1]["content"]
    assert "A tool already ran for step 1" in reminder
    assert 'planner(action="mark_done", step_index=[1])' in reminder


async def test_an_early_answer_with_no_work_is_told_to_do_the_step(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Note it"]),
            reply("It is sunny."),
            reply("ok"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False, max_finish_reminders=1)
    await agent.execute("Weather in Oslo, then note it")
    reminder = model.requests[2].messages[-1]["content"]
    assert "Do step 1 now with the tool it needs" in reminder and "already ran" not in reminder


async def test_an_answer_after_the_work_of_every_open_step_is_taken_unticked(tools: Any) -> None:
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Weather in Oslo", "Note it"]),
            call("weather", city="Oslo"),
            call("notes", text="Oslo: 4°C, rain"),
            reply("Oslo: 4°C, rain; noted."),  # the work is done, the ticks are not
            reply("never asked"),
        ]
    )
    agent = LeanAgent(model=model, tools=tools[0], plan_first=False)
    result = await agent.execute("Weather in Oslo, then note it")
    assert result.final_message == "Oslo: 4°C, rain; noted." and len(model.requests) == 4
    assert result.status is AgentStatus.INCOMPLETE  # honest: the steps were not ticked
    assert [s.status.value for s in result.plan.steps] == ["PENDING", "PENDING"]


COPIED_TASK = (
    "Reminder: This mission has several parts. Before anything else, call the `planner` "
    'tool with action="create_plan" and tasks=[...](one short task per step)'
)


async def test_a_task_that_copies_the_plan_first_instruction_is_left_out(tools: Any) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Multiply", "Note", COPIED_TASK]),
            call("calculator", expression="6 * 7"),
            call("planner", action="mark_done", step_index=[1]),
            call("notes", text="42"),
            call("planner", action="mark_done", step_index=[2]),
            reply("The product is 42; noted."),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list)  # plan first: the instruction is sent
    result = await agent.execute("Multiply 6 by 7, then note the product in my notes.")
    assert [s.description for s in result.plan.steps] == ["Multiply", "Note"]
    assert result.status is AgentStatus.COMPLETED and result.open_steps == ()
    assert log["notes"] == ["42"]


def test_copies_prompt_knows_the_instruction_and_the_loop_texts_but_not_real_tasks() -> None:
    assert copies_prompt(COPIED_TASK)
    reminder = f"{REMINDER_HEADER} You are repeating calls whose results you already have."
    assert copies_prompt("You are repeating calls whose results you already have", [reminder])
    for task in ("Set a reminder for the next step", "Reminder to call Bob at 5", "Note"):
        assert not copies_prompt(task, [reminder, ECHO])


def test_work_only_keeps_numbered_plans_and_never_empties_one() -> None:
    copied = lambda task: task.startswith("Reminder")  # noqa: E731
    plain = NewPlan((StepSpec("A"), StepSpec("Reminder: plan"), StepSpec("B")))
    assert [t.description for t in work_only(plain, copied).tasks] == ["A", "B"]
    numbered = NewPlan((StepSpec("A"), StepSpec("Reminder: plan"), StepSpec("B", (1,))))
    assert work_only(numbered, copied) is numbered  # "B" waits on step 1 by number
    only = NewPlan((StepSpec("Reminder: plan"),))
    assert work_only(only, copied) is only


async def test_a_task_about_the_plan_itself_is_left_out(tools: Any) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Multiply", "Note", "Mark done"]),
            call("calculator", expression="6 * 7"),
            call("planner", action="mark_done", step_index=[1]),
            call("notes", text="42"),
            call("planner", action="mark_done", step_index=[2]),
            reply("The product is 42; noted."),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list)
    result = await agent.execute("Multiply 6 by 7, then note the product in my notes.")
    assert [s.description for s in result.plan.steps] == ["Multiply", "Note"]
    assert result.status is AgentStatus.COMPLETED and result.open_steps == ()
    assert log["notes"] == ["42"]
    recited = model.requests[1].messages[-1]["content"]  # the plan the model is shown
    assert "Mark done" not in recited and "2. Note" in recited


async def test_a_plan_with_both_branches_of_a_condition_gets_them_as_one_step(
    tools: Any,
) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            call(
                "planner",
                action="create_plan",
                tasks=["Weather in Oslo", "If it rains, note 'umbrella'", "Otherwise note 'sun'"],
            ),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1]),
            call("notes", text="umbrella"),
            call("planner", action="mark_done", step_index=[2]),
            reply("It rains in Oslo: noted 'umbrella'."),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False)
    result = await agent.execute("Check Oslo's weather; if it rains note 'umbrella', else 'sun'.")
    assert result.status is AgentStatus.COMPLETED and log["notes"] == ["umbrella"]
    assert [s.description for s in result.plan.steps] == [
        "Weather in Oslo",
        "If it rains, note 'umbrella'; otherwise note 'sun'",
    ]
