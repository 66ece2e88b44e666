"""Values no message or tool result gave the model are questioned once, then run.

Small models fill an argument they do not know with a plausible value (an id, a phone
number, a time, an amount) instead of looking it up. ``taskforce.agent.grounding`` names
such values; the loop answers the call once without running it, naming the values and the
lookups not used yet, and runs the same call when it is made again.
"""

from __future__ import annotations

from typing import Any

import pytest

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.grounding import Evidence, given, shown, succeeded
from taskforce.agent.prompts import PLAN_HEADER
from taskforce.errors import ConfigurationError
from taskforce.testing import Confirming, ScriptedModel, call, reply
from taskforce.tools.function import FunctionTool
from tests.agent.helpers import tool_results


def evidence(*texts: str) -> Evidence:
    found = Evidence()
    for text in texts:
        found.add(text)
    return found


@pytest.mark.parametrize(
    ("given_text", "value"),
    [
        ("Frank: 555-0175", "555-0175"),  # as written
        ("balance 1250.0", 1250),  # the same number
        ("balance 1250.0", "1,250.00"),
        ("total 1,250.50 USD", 1250.5),
        ("at 09:00 sharp", "9:00"),  # the same parts
        ("on 2026/12/05", "2026-12-05"),
        ("Frank: 555-0175", "555"),  # one part of a figure given
        ("pay 42 now", "42"),
        ("nothing", 42),  # fewer than three digits: never questioned
        ("nothing", "7.5"),
        ("nothing", True),
        ("write to Bob@Example.com", "bob@example.com"),  # case aside
        ("on 18 September 2025", "2025-09-18"),  # a date in words, in the tool's form
        ("on 2025-09-18", "18/09/2025"),  # the same day written another way
        ("on 2025-09-18", "09/18/2025"),
        ("on September 18th; timetable 2025-09-15 to 2025-09-30", "2025-09-18"),  # year given
        ("on 18 September", "18/09"),
        ("meet at 3pm", "15:00"),  # a twelve-hour time in the tool's form
        ("meet at 3pm", "3:00"),
        ("meet at 9.30 a.m.", "09:30:00"),
        ("lunch at noon", "12:00"),
        ("Today is Wednesday 2025-10-15. Book a car for tomorrow.", "2025-10-16"),
        ("Today: 15 October 2025. Two seats for tonight.", "2025-10-15"),
        ("today's date is October 15, 2025; the day after tomorrow", "2025-10-17"),
        ("Today is Wednesday 2025-10-15. Cancel the Saturday trips.", "2025-10-18"),
        ("Today is Wednesday 2025-10-15. Refund last Friday's tickets.", "10/10/2025"),
        ("Today is Wednesday 2025-10-15. The Friday after next.", "2025-10-24"),
    ],
)
def test_a_value_given_in_any_form_is_supported(given_text: str, value: Any) -> None:
    assert evidence(given_text).unsupported({"v": value}) == []


@pytest.mark.parametrize(
    ("given_text", "value", "named"),
    [
        ("Save Frank's number in a note.", "Frank: 123-456-7890", "123-456-7890"),
        ("What time is it in Tokyo?", "14:30", "14:30"),
        ("Convert my balance to pounds.", 100, "100"),
        ("Move 1250 to savings.", 500.0, "500"),
        ("Remind the owner.", {"appointment": "A-12345"}, "12345"),
        ("Email Alice.", ["alice@example.com"], "alice@example.com"),
        ("balance 1000", "1000.5", "1000.5"),
        ("id 12345", "1234", "1234"),  # not part of a larger figure's text
        ("on 18 September", "2025-09-18", "2025-09-18"),  # its year is a guess
        ("on 18 September 2025", "2024-09-18", "2024-09-18"),  # another year
        ("on 2025-09-18", "2025-09-19", "2025-09-19"),  # another day
        ("meet at 3pm", "16:00", "16:00"),
        ("meet at 3am", "15:00", "15:00"),
        ("Book a car for tomorrow.", "2025-10-16", "2025-10-16"),  # no today given
        ("Today is Wednesday 2025-10-15. Book it for tomorrow.", "2025-10-17", "2025-10-17"),
        ("Today is Wednesday 2025-10-15. Cancel the Saturday trips.", "2025-10-17", "2025-10-17"),
        ("Today is Wednesday 2025-10-15. On Saturday.", "2025-11-15", "2025-11-15"),  # too far
        ("The weather today? It is 2025-10-15 there. Tomorrow.", "2025-10-16", "2025-10-16"),
    ],
)
def test_a_value_given_nowhere_is_named(given_text: str, value: Any, named: str) -> None:
    assert evidence(given_text).unsupported({"v": value}) == [named]


@pytest.mark.parametrize(
    ("given_text", "value"),
    [
        ("hotel 800 EUR, flights 350 EUR", 1150),  # a sum
        ("costs 1500; checking has 1250.0", 250.0),  # a difference, either order
        ("12 items at 3.5 each", "42"),  # a product
        ("1250 shared by 3", "416.67"),  # a quotient, as written to two decimals
        ("a budget of 600", 1200),  # a number with itself
    ],
)
def test_a_value_worked_out_from_two_given_numbers_is_supported(
    given_text: str, value: Any
) -> None:
    assert evidence(given_text).unsupported({"v": value}) == []


@pytest.mark.parametrize(
    ("given_text", "value"),
    [
        ("hotel 800 EUR, flights 350 EUR", 1151),
        ("1250 shared by 3", "416.6"),  # not the quotient as written
        ("hotel 800, flights 350, taxi 40", 1190),  # three numbers: not one step
        ("call 555-0175", 555175),  # parts of a figure are no operands
    ],
)
def test_a_value_no_single_step_gives_is_named(given_text: str, value: Any) -> None:
    assert evidence(given_text).unsupported({"v": value}) == [str(value)]


@pytest.mark.parametrize("expression", ["1500 - 1250", "250 + 1250", "(84.6 + 45) / 3", "12*7"])
def test_arithmetic_is_not_questioned(expression: str) -> None:
    """An argument that is all arithmetic works a value out (a calculator's input)."""
    assert evidence("nothing").unsupported({"expression": expression}) == []


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("2026-12-05", ["2026-12-05"]),  # a date, not a subtraction
        ("12/05/2026", ["12/05/2026"]),
        ("+1 555 0175", ["555", "0175"]),  # a phone number, not an addition
        ("Total: 250 + 1250", ["250", "1250"]),  # text with a sum in it is checked
    ],
)
def test_dates_phones_and_text_are_not_arithmetic(value: str, named: list[str]) -> None:
    assert evidence("nothing").unsupported({"v": value}) == named


def test_an_address_is_not_read_as_figures_and_each_value_is_named_once() -> None:
    found = evidence("Mail the report.").unsupported(
        {"to": "bob123@example.com", "cc": "bob123@example.com", "body": "call 555-9999"}
    )
    assert found == ["bob123@example.com", "555-9999"]


def test_a_structured_result_is_evidence_as_json() -> None:
    found = Evidence()
    found.add_value({"success": True, "output": {"phone": "555-0175", "balance": 1250.0}})
    assert found.unsupported({"text": "555-0175", "amount": 1250}) == []


def test_a_failed_result_is_evidence_only_for_what_it_adds_to_its_call() -> None:
    found = Evidence()
    error = "checking has only 1250.00 USD, not 1500; ask ops@bank.example"
    found.add_failure({"success": False, "error": error}, {"account": "checking", "amount": 1500})
    assert found.unsupported({"amount": "1250", "to": "ops@bank.example"}) == []
    assert found.unsupported({"amount": 1500}) == ["1500"]  # the call's own guess, echoed


def test_shown_quotes_the_first_three() -> None:
    assert shown(["1", "2"]) == "'1', '2'"
    assert shown(["1", "2", "3", "4"]) == "'1', '2', '3' ..."


def test_a_run_starts_from_what_the_model_was_given_not_from_the_plan() -> None:
    history = [
        {"role": "user", "content": "Send the 4,300 report."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "p1", "type": "function",
             "function": {"name": "planner", "arguments": "{}"}},
            {"id": "t1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}},
        ]},
        {"role": "tool", "tool_call_id": "p1", "content": "- [ ] 1. Call 555-1111"},
        {"role": "tool", "tool_call_id": "t1", "content": "{\"output\": \"id 777\"}"},
        {"role": "user", "content": f"{PLAN_HEADER}\n- [ ] 1. Call 555-2222"},
    ]  # fmt: skip
    specs = [{"type": "function", "function": {"name": "x", "description": "port 8080"}}]
    found = given("You serve account 9001.", specs, history, "planner")
    assert found.unsupported({"a": "4300 777 9001 8080"}) == []
    assert found.unsupported({"a": "555-1111 555-2222"}) == ["555-1111", "555-2222"]


def test_a_failed_result_in_the_history_grounds_only_what_it_adds() -> None:
    history = [
        {"role": "user", "content": "Move my savings."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "t1", "type": "function",
             "function": {"name": "transfer", "arguments": "{\"amount\": 5000}"}},
        ]},
        {"role": "tool", "tool_call_id": "t1",
         "content": "{\"success\": false, \"error\": \"savings has only 4200 USD, not 5000\"}"},
    ]  # fmt: skip
    found = given("", [], history, "planner")
    assert found.unsupported({"amount": 4200}) == []
    assert found.unsupported({"amount": 5000}) == ["5000"]


# ---- in the loop ----------------------------------------------------------------------


def phone_book() -> tuple[list[FunctionTool], dict[str, Any]]:
    state: dict[str, Any] = {"notes": {}, "runs": []}

    def find_contact(name: str) -> str:
        """Look a contact's phone number up."""
        state["runs"].append(("find_contact", name))
        return f"{name}: 555-0175"

    def save_note(title: str, text: str) -> str:
        """Save a note."""
        state["runs"].append(("save_note", text))
        state["notes"][title] = text
        return f"saved {title}"

    return [FunctionTool(find_contact, read_only=True), FunctionTool(save_note)], state


MISSION = "Save Frank's phone number in a note titled 'frank'."


async def test_a_guessed_value_is_answered_with_the_lookups_and_not_run() -> None:
    tools, state = phone_book()
    model = ScriptedModel([
        call("save_note", title="frank", text="Frank: 123-456-7890"),
        call("find_contact", name="Frank"),
        call("save_note", title="frank", text="Frank: 555-0175"),
        reply("Saved."),
    ])  # fmt: skip
    result = await LeanAgent(model, tools, planning=False).execute(MISSION)
    asked = tool_results(model.requests[1].messages)["call_1"]
    assert asked["success"] is False and asked["error_type"] == "unsupported_value"
    assert "'123-456-7890'" in asked["error"] and "not used yet: find_contact" in asked["error"]
    assert state["runs"] == [("find_contact", "Frank"), ("save_note", "Frank: 555-0175")]
    assert result.status is AgentStatus.COMPLETED and state["notes"] == {"frank": "Frank: 555-0175"}


async def test_the_same_call_made_again_runs() -> None:
    tools, state = phone_book()
    model = Confirming(ScriptedModel([
        call("save_note", title="frank", text="Frank: 123-456-7890"), reply("Saved."),
    ]))  # fmt: skip
    result = await LeanAgent(model, tools, planning=False).execute(MISSION)
    assert state["runs"] == [("save_note", "Frank: 123-456-7890")]  # asked once, then run
    assert result.status is AgentStatus.COMPLETED


async def test_a_guess_kept_after_a_lookup_that_does_not_have_it_is_asked_once_more() -> None:
    """Questioned, looked up, then saved as guessed: asked again; the third time it runs."""
    tools, state = phone_book()
    guess = call("save_note", title="frank", text="Frank: 123-456-7890")
    model = ScriptedModel([
        guess, call("find_contact", name="Frank"), guess, guess, reply("Saved."),
    ])  # fmt: skip
    result = await LeanAgent(model, tools, planning=False).execute(MISSION)
    again = tool_results(model.requests[3].messages)["call_3"]
    assert again["error_type"] == "unsupported_value"
    assert "'123-456-7890' is still in no tool result, the new ones included" in again["error"]
    assert "make the same call again and it will run" in again["error"]
    assert state["runs"] == [("find_contact", "Frank"), ("save_note", "Frank: 123-456-7890")]
    assert result.status is AgentStatus.COMPLETED  # asked twice at most, never refused


async def test_a_guess_made_again_with_nothing_learned_since_runs_even_after_other_calls() -> None:
    """Only a successful result is something learned: a failed lookup does not ask again."""
    tools, state = phone_book()
    guess = call("save_note", title="frank", text="Frank: 123-456-7890")
    model = ScriptedModel([guess, call("missing_tool"), guess, reply("Saved.")])
    await LeanAgent(model, tools, planning=False).execute(MISSION)
    assert state["runs"] == [("save_note", "Frank: 123-456-7890")]


async def test_a_value_from_an_earlier_result_runs_at_once() -> None:
    tools, state = phone_book()
    model = ScriptedModel([
        call("find_contact", name="Frank"),
        call("save_note", title="frank", text="Frank: 555-0175"),
        reply("Saved."),
    ])  # fmt: skip
    await LeanAgent(model, tools).execute(MISSION)
    assert state["runs"] == [("find_contact", "Frank"), ("save_note", "Frank: 555-0175")]


@pytest.mark.parametrize(
    ("opening", "mission", "date"),
    [
        (
            "bookings open 2025-09-01 to 2025-09-30",
            "Book a table for 18 September at 3pm.",
            "2025-09-18",
        ),
        ("today is Wednesday 2025-10-15", "Book me a table for tomorrow at 3pm.", "2025-10-16"),
    ],
)
async def test_a_day_and_time_the_user_wrote_in_words_run_in_the_tools_form(
    opening: str, mission: str, date: str
) -> None:
    """The user's "18 September" (or "tomorrow", from the today a tool's description gives)
    and "3pm" are booked as 2025-09-18 and 15:00 at once."""
    booked: list[tuple[str, str]] = []

    def book_table(date: str, time: str) -> str:
        booked.append((date, time))
        return f"booked {date} {time}"

    book_table.__doc__ = f"Book a table (date YYYY-MM-DD, {opening})."
    model = ScriptedModel([call("book_table", date=date, time="15:00"), reply("Booked.")])
    result = await LeanAgent(model, [FunctionTool(book_table)], planning=False).execute(mission)
    assert booked == [(date, "15:00")]  # run at the first call, not questioned
    assert result.status is AgentStatus.COMPLETED and len(model.requests) == 2


async def test_a_failed_result_does_not_ground_the_guess_it_echoes() -> None:
    """``no contact '4711'`` repeats the guess: it is no evidence for the next call."""
    state: list[str] = []

    def find_contact(name: str) -> str:
        """Look a contact up by name or id."""
        raise KeyError(f"no contact {name!r}")

    def call_number(number: str) -> str:
        """Dial a number."""
        state.append(number)
        return "dialled"

    tools = [FunctionTool(find_contact, read_only=True), FunctionTool(call_number)]
    model = ScriptedModel([
        call("find_contact", name="Frank"),
        call("call_number", number="4711"),
        reply("Could not."),
    ])  # fmt: skip
    await LeanAgent(model, tools, planning=False).execute("Call Frank.")
    assert tool_results(model.requests[-1].messages)["call_2"]["error_type"] == "unsupported_value"
    assert state == []


async def test_values_given_in_an_earlier_run_of_the_session_are_evidence() -> None:
    tools, state = phone_book()
    model = ScriptedModel([
        reply("Noted: Frank is 555-0175."),
        call("save_note", title="frank", text="555-0175"),
        reply("Saved."),
    ])  # fmt: skip
    agent = LeanAgent(model, tools, planning=False)
    await agent.execute("Frank's number is 555-0175.", "s1")
    await agent.execute("Now save it in a note titled 'frank'.", "s1")
    assert state["notes"] == {"frank": "555-0175"}


async def test_a_guess_in_a_lookup_is_questioned_before_its_result_passes_for_a_fact() -> None:
    """A lookup run on a made-up time returns an answer that grounds the guess: asked first."""
    log: list[str] = []

    def clock(city: str) -> str:
        """The current time in a city."""
        log.append(f"clock {city}")
        return "09:00"

    def convert_time(time: str, from_city: str, to_city: str) -> str:
        """Convert a time of day from one city to another."""
        log.append(f"convert {time}")
        return "18:00" if time == "09:00" else "23:30"

    tools = [FunctionTool(clock, read_only=True), FunctionTool(convert_time, read_only=True)]
    model = ScriptedModel([
        call("convert_time", time="14:30", from_city="London", to_city="Tokyo"),
        call("clock", city="London"),
        call("convert_time", time="09:00", from_city="London", to_city="Tokyo"),
        reply("It is 18:00 in Tokyo."),
    ])  # fmt: skip
    await LeanAgent(model, tools, planning=False).execute("What time is it in Tokyo now?")
    asked = tool_results(model.requests[1].messages)["call_1"]
    assert asked["error_type"] == "unsupported_value" and "'14:30'" in asked["error"]
    assert "not used yet: clock" in asked["error"]
    assert log == ["clock London", "convert 09:00"]


async def test_a_lookup_with_arithmetic_or_given_values_runs_and_its_result_is_evidence() -> None:
    log: list[str] = []

    def calculator(expression: str) -> str:
        """Evaluate arithmetic."""
        log.append(expression)
        return "1250"

    def convert(amount: float) -> float:
        """Convert dollars to pounds."""
        log.append(f"convert {amount}")
        return amount * 0.8

    tools = [FunctionTool(calculator, read_only=True), FunctionTool(convert, read_only=True)]
    tools += phone_book()[0]
    model = ScriptedModel([
        call("calculator", expression="1500 - 250"), call("convert", amount=1250),
        call("save_note", title="gbp", text="1000.0 GBP"), reply("Saved."),
    ])  # fmt: skip
    await LeanAgent(model, tools, planning=False).execute("Save my balance in pounds.")
    results = tool_results(model.requests[-1].messages)
    assert log == ["1500 - 250", "convert 1250.0"]
    assert results["call_3"]["success"] is True and results["call_3"]["output"] == "saved gbp"


async def test_a_figure_a_failed_action_gives_grounds_the_next_call() -> None:
    """ "checking has only 1250.00" is the model's to use; the guess it refused is not."""
    moved: list[float] = []

    def transfer(amount: float) -> str:
        """Move money from checking to savings."""
        if amount > 1250:
            raise ValueError(f"checking has only 1250.00 USD, not {amount:.2f}")
        moved.append(amount)
        return "moved"

    model = ScriptedModel([
        call("transfer", amount=1500), call("transfer", amount=1500), call("transfer", amount=1250),
        reply("Moved 1250."),
    ])  # fmt: skip
    agent = LeanAgent(model, [FunctionTool(transfer)], planning=False)
    await agent.execute("Move 1500 from checking to savings, or all of it if that is less.")
    results = tool_results(model.requests[-1].messages)
    assert results["call_2"]["error_type"] == "repeated_call"  # failed; not run again as is
    assert results["call_3"] == {"success": True, "output": "moved"} and moved == [1250]


async def test_question_guesses_false_runs_every_call() -> None:
    tools, state = phone_book()
    model = ScriptedModel([call("save_note", title="frank", text="123-456-7890"), reply("ok")])
    await LeanAgent(model, tools, planning=False, question_guesses=False).execute(MISSION)
    assert state["notes"] == {"frank": "123-456-7890"}


def test_question_guesses_must_be_a_bool() -> None:
    with pytest.raises(ConfigurationError, match="question_guesses"):
        LeanAgent(ScriptedModel([]), [], question_guesses="yes")  # type: ignore[arg-type]


def test_succeeded_names_the_tools_whose_results_in_a_conversation_did_not_fail() -> None:
    def exchange(call_id: str, name: str, content: str) -> list[dict[str, Any]]:
        call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
        return [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call_id, "content": content},
        ]

    history = [
        *exchange("a", "save_note", '{"success": false, "error": "no title"}'),
        *exchange("b", "list_notes", '{"success": true, "output": []}'),
        *exchange("c", "read_file", '{"output": "long text… [cut: 9 more chars]'),  # cut: no JSON
        {"role": "tool", "tool_call_id": "nobody", "content": '{"success": true}'},
    ]
    assert succeeded(history) == {"list_notes", "read_file"}
