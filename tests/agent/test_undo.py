"""An action that would undo one the run already did is asked about once (UndoWatch, CallGuard)."""

from __future__ import annotations

from typing import Any

import pytest

from taskforce.agent import LeanAgent
from taskforce.agent.undo import UndoWatch
from taskforce.errors import ConfigurationError, ToolInputError
from taskforce.testing import ScriptedModel, call, reply
from taskforce.tools import FunctionTool
from tests.agent.helpers import tool_results

BOOKED = {"success": True, "output": "Priya Nair booked into yoga; 8 credits left"}


def test_an_undo_of_an_earlier_action_is_named_once() -> None:
    watch = UndoWatch("Put Priya Nair in the early yoga class on Tuesday.")
    watch.did("book_class", {"member_id": "GM-7731", "class_id": "C-1611"}, BOOKED)
    args = {"member_id": "GM-7731", "class_id": "C-1611"}
    booked = "book_class(member_id='GM-7731', class_id='C-1611')"
    assert watch.undoes("sig", "cancel_booking", args) == (booked, False)
    assert watch.undoes("sig", "cancel_booking", args) == (booked, True)  # made again
    fewer = {"member_id": "GM-7731"}  # every value it names was the action's
    assert watch.undoes("other", "cancel_booking", fewer) == (booked, False)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("return_bike", {"rental_id": "R-103"}),  # the id the action's result gave
        ("returnBike", {"rental_id": "R-103"}),  # camelCase
        ("cancel", {"rental": "R-103", "customer": "Nora Quinn"}),
    ],
)
def test_the_values_may_come_from_the_actions_result(name: str, args: dict[str, Any]) -> None:
    watch = UndoWatch("Rent Nora Quinn the cheapest e-bike for 3 hours.")
    output = {"success": True, "output": "rental R-103: EB-4 to Nora Quinn for 3 h"}
    watch.did("rent_bike", {"bike_id": "EB-4", "customer": "Nora Quinn", "hours": 3}, output)
    rented = "rent_bike(bike_id='EB-4', customer='Nora Quinn', hours=3)"
    assert watch.undoes("sig", name, args) == (rented, False)


@pytest.mark.parametrize(
    ("request_text", "name", "args"),
    [
        ("Put Priya in yoga.", "cancel_booking", {"member_id": "GM-7731", "class_id": "C-1614"}),
        ("Put Priya in yoga.", "return_bike", {"rental_id": "R-10"}),  # R-103 is no R-10
        ("Put Priya in yoga.", "book_class", {"member_id": "GM-7731", "class_id": "C-1611"}),
        ("Put Priya in yoga.", "cancel_booking", {}),
        ("Book her into yoga or cancel her spin class.", "cancel_booking",
         {"member_id": "GM-7731", "class_id": "C-1611"}),  # the request asks to undo
        ("Please refund the ticket.", "refund_ticket", {"member_id": "GM-7731"}),
        ("Has it been cancelled?", "cancel_booking", {"member_id": "GM-7731"}),
    ],
)  # fmt: skip
def test_what_is_no_undo_of_this_runs_action(
    request_text: str, name: str, args: dict[str, Any]
) -> None:
    watch = UndoWatch(request_text)
    watch.did("book_class", {"member_id": "GM-7731", "class_id": "C-1611"}, BOOKED)
    assert watch.undoes("sig", name, args) is None


def test_a_word_that_only_contains_an_undoing_verb_asks_for_nothing() -> None:
    watch = UndoWatch("Avoid the spin class; put Priya in yoga.")  # "void" inside "Avoid"
    watch.did("book_class", {"member_id": "GM-7731", "class_id": "C-1611"}, BOOKED)
    assert watch.undoes("sig", "void_booking", {"member_id": "GM-7731"}) is not None


def test_an_undo_is_no_action_a_later_undo_would_undo() -> None:
    watch = UndoWatch("Move Ana to the later train.")
    watch.did("cancel_booking", {"booking_id": "BK-1"}, {"success": True, "output": "cancelled"})
    assert watch.undoes("sig", "release_seat", {"booking_id": "BK-1"}) is None


class Gym:
    def __init__(self) -> None:
        self.booked: set[str] = set()

    def book_class(self, member_id: str, class_id: str) -> str:
        """Book a member into a class."""
        self.booked.add(class_id)
        return f"{member_id} booked into {class_id}"

    def cancel_booking(self, member_id: str, class_id: str) -> str:
        """Take a member out of a class."""
        if class_id not in self.booked:
            raise ToolInputError(f"{member_id} is not in {class_id}")
        self.booked.discard(class_id)
        return f"{member_id} taken out of {class_id}"

    def tools(self) -> list[FunctionTool]:
        return [FunctionTool(self.book_class), FunctionTool(self.cancel_booking)]


BOOK = call("book_class", member_id="GM-7731", class_id="C-1611")
CANCEL = call("cancel_booking", member_id="GM-7731", class_id="C-1611")


async def test_the_loop_holds_the_undo_and_a_repeat_of_it_is_a_repeat() -> None:
    gym = Gym()
    model = ScriptedModel([BOOK, CANCEL, CANCEL, CANCEL, CANCEL, reply("Priya is in yoga.")])
    agent = LeanAgent(model=model, tools=gym.tools(), max_steps=8, planning=False)
    result = await agent.execute("Please put member GM-7731 in yoga class C-1611.")
    held = tool_results(model.requests[2].messages)["call_2"]
    assert held["error_type"] == "undo_held" and held["success"] is False
    assert "would undo book_class(member_id='GM-7731', class_id='C-1611')" in held["error"]
    assert "If it was a mistake, say so in the final answer." in held["error"]
    again = tool_results(model.requests[3].messages)["call_3"]
    assert again["error_type"] == "repeated_call" and "would still undo" in again["error"]
    assert "repeating calls" in model.requests[4].messages[-1]["content"]  # two idle turns
    assert gym.booked == {"C-1611"} and result.final_message == "Priya is in yoga."


async def test_hold_undos_false_runs_them() -> None:
    gym = Gym()
    model = ScriptedModel([BOOK, CANCEL, reply("Taken out again.")])
    agent = LeanAgent(model=model, tools=gym.tools(), planning=False, hold_undos=False)
    await agent.execute("Please put member GM-7731 in yoga class C-1611.")
    assert tool_results(model.requests[2].messages)["call_2"]["success"] is True
    assert gym.booked == set()
    with pytest.raises(ConfigurationError, match="hold_undos must be a bool"):
        LeanAgent(model=model, tools=gym.tools(), hold_undos="no")  # type: ignore[arg-type]


async def test_a_request_to_cancel_is_left_alone() -> None:
    gym = Gym()
    model = ScriptedModel([BOOK, CANCEL, reply("Booked and cancelled.")])
    agent = LeanAgent(model=model, tools=gym.tools(), max_steps=5, planning=False)
    await agent.execute("Book GM-7731 into C-1611 to test the desk, then cancel it again.")
    assert tool_results(model.requests[2].messages)["call_2"]["success"] is True
    assert gym.booked == set()
