"""A step that lists names is not done while a call used only some of them.

Unit tests of :mod:`taskforce.agent.coverage`, then the loop: "Weather in Oslo and Rome"
ticked after the Oslo lookup alone is held back once, naming Rome and the tool that did Oslo;
a second "done" is taken (the model may know better), and a list no call touched says nothing.
"""

from __future__ import annotations

from typing import Any

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.coverage import Mentions, name_lists
from taskforce.testing import ScriptedModel, call, reply
from tests.agent.helpers import tool_results

TASKS = ["Weather in Oslo and Rome", "Save a note"]


def test_name_lists_finds_capitalised_lists_but_not_the_leading_verb() -> None:
    assert name_lists("Get the temperatures in Madrid and Tokyo") == [["Madrid", "Tokyo"]]
    assert name_lists("Email Bob, Carol and Dan Smith the total") == [["Bob", "Carol", "Dan Smith"]]
    assert name_lists("Email Bob or Carol") == [["Bob", "Carol"]]
    assert name_lists("Convert both to Fahrenheit and write them down") == []
    assert name_lists("Check if it rains in Paris and, if so, email Bob") == []


def test_mentions_name_the_items_left_out_of_a_half_used_list() -> None:
    mentions = Mentions()
    mentions.add("get_weather", {"city": "Madrid"})
    mentions.add("write_file", {"path": "temps.txt", "text": "Madrid: 77F\nTokyo: 77F"})
    step = "Get the temperatures in Madrid and Tokyo"
    assert mentions.left_out(step) == (["Madrid"], ["Tokyo"], ["get_weather"])
    mentions.add("get_weather", {"city": "tokyo"})
    assert mentions.left_out(step) == ([], [], [])


def test_mentions_count_names_inside_lists_and_addresses_but_not_free_text() -> None:
    mentions = Mentions()
    mentions.add("send_email", {"to": ["bob@example.com"], "body": "Hi Bob and Carol, the total"})
    assert mentions.left_out("Email the total to Bob and Carol") == (
        ["Bob"],
        ["Carol"],
        ["send_email"],
    )
    mentions.add("find_contact", {"name": "Carol Jones"})
    assert mentions.left_out("Email the total to Bob and Carol") == ([], [], [])


def test_a_list_no_call_touched_says_nothing() -> None:
    mentions = Mentions()
    mentions.add("calculator", {"expression": "878 * 0.621"})
    assert mentions.left_out("Work out the distance between Paris and Berlin in miles") == (
        [],
        [],
        [],
    )


async def test_a_done_with_a_name_left_out_is_held_back_once(tools: Any) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=TASKS),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1]),  # held back: Rome
            call("weather", city="Rome"),
            call("planner", action="mark_done", step_index=[1]),
            call("notes", text="Oslo rain, Rome sunny"),
            call("planner", action="mark_done", step_index=[2]),
            reply("Saved."),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False)
    result = await agent.execute("Weather in Oslo and Rome, then save a note")
    held = tool_results(model.requests[3].messages)["call_3"]
    assert held["success"] is False and held["error_type"] == "names_left_out"
    assert "also names Rome" in held["error"] and "weather for Oslo" in held["error"]
    assert 'planner(action="mark_done", step_index=[1])' in held["error"]
    assert ("weather", "Rome") in log["calls"]
    assert [s.status.value for s in result.plan.steps] == ["DONE", "DONE"]
    assert result.status is AgentStatus.COMPLETED


async def test_a_second_done_for_the_same_step_is_taken(tools: Any) -> None:
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=TASKS),
            call("weather", city="Oslo"),
            call("planner", action="mark_done", step_index=[1]),  # held back once
            call("planner", action="mark_done", step_index=[1]),  # taken
            call("notes", text="Oslo rain"),
            call("planner", action="mark_done", step_index=[2]),
            reply("Saved."),
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False)
    result = await agent.execute("Weather in Oslo and Rome, then save a note")
    assert ("weather", "Rome") not in log["calls"]
    held = tool_results(model.requests[3].messages)["call_3"]
    assert held["error_type"] == "names_left_out"
    assert [s.status.value for s in result.plan.steps] == ["DONE", "DONE"]  # no skip
    assert result.status is AgentStatus.COMPLETED and result.steps == 7


WARMER = "Which is warmer, Oslo or Rome? Save the warmer city in a note."


def _reminders(model: ScriptedModel) -> list[str]:
    last = model.requests[-1].messages
    return [str(m["content"]) for m in last if "the request also names" in str(m["content"])]


async def test_an_answer_to_a_request_with_a_name_left_out_is_held_back_once(tools: Any) -> None:
    """Its steps name no city, so the Oslo lookup "covers" them; the request names Rome too."""
    tool_list, log = tools
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Find the warmer city", "Save a note"]),
            call("weather", city="Oslo"),
            call("notes", text="Oslo"),
            reply("Oslo is warmer."),  # held back: no call used Rome
            call("weather", city="Rome"),
            reply("Rome is warmer."),  # taken (the steps are covered; once per run)
        ]
    )
    agent = LeanAgent(model=model, tools=tool_list, plan_first=False)
    result = await agent.execute(WARMER)
    (reminder,) = _reminders(model)
    assert reminder.startswith("[Reminder] Not finished yet: the request also names Rome")
    assert "(weather for Oslo)" in reminder and "Do it for Rome too" in reminder
    assert reminder.endswith(  # the open steps too: the note said Oslo
        "finish these open steps with its result:\n- step 1: Find the warmer city\n"
        "- step 2: Save a note\nThen give the final answer."
    )
    assert ("weather", "Rome") in log["calls"]
    assert result.final_message == "Rome is warmer."


async def test_the_plain_loop_holds_it_back_too(tools: Any) -> None:
    tool_list, _ = tools
    model = ScriptedModel([call("weather", city="Oslo"), reply("Oslo."), reply("Oslo, I said.")])
    agent = LeanAgent(model=model, tools=tool_list, planning=False)
    result = await agent.execute("What is the weather in Oslo and Rome?")
    (reminder,) = _reminders(model)  # sent once; the second answer is taken
    assert reminder.endswith("Do it for Rome too, then give the final answer.")
    assert result.status is AgentStatus.COMPLETED and result.final_message == "Oslo, I said."


async def test_no_reminder_when_every_name_or_none_was_used(tools: Any) -> None:
    tool_list, _ = tools
    both = ScriptedModel(
        [call("weather", city="Oslo"), call("weather", city="Rome"), reply("Rome.")]
    )
    agent = LeanAgent(model=both, tools=tool_list, planning=False)
    assert (await agent.execute("Weather in Oslo and Rome?")).final_message == "Rome."
    untouched = ScriptedModel([call("calculator", expression="2 + 3"), reply("5")])
    agent = LeanAgent(model=untouched, tools=tool_list, planning=False)
    result = await agent.execute("Add 2 and 3 for Bob and Carol")
    assert result.final_message == "5" and len(untouched.requests) == 2
