"""A tool whose calls failed three times in a row is left out of the next request.

Unit tests of :mod:`taskforce.agent.streak`, then the loop: guessed booking ids one after
another (``B-01``, ``B-02``, ...) make the next request offer only the other tools, with a
note naming the lookup; a call of the held tool written anyway is not run; the request after
offers it again.
"""

from __future__ import annotations

from taskforce import ToolInputError
from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.streak import LIMIT, FailureStreak
from taskforce.testing import ScriptedModel, call, reply
from taskforce.tools.function import FunctionTool
from tests.agent.helpers import tool_results


def test_a_streak_of_one_tools_failures_holds_it_once() -> None:
    streak = FailureStreak()
    for _ in range(LIMIT - 1):
        streak.record("cancel", failed=True, error="no booking")
    assert streak.hold(others=True) is None
    streak.record("cancel", failed=True, error="no booking 'B-03'")
    assert streak.error == "no booking 'B-03'"
    assert streak.hold(others=True) == "cancel" and streak.holding == "cancel"
    assert streak.hold(others=True) is None and streak.holding is None  # once, then counted anew


def test_a_success_or_another_tool_breaks_the_streak_and_a_lone_tool_is_never_held() -> None:
    streak = FailureStreak()
    streak.record("cancel", failed=True)
    streak.record("cancel", failed=True)
    streak.record("find", failed=False)
    streak.record("cancel", failed=True)
    assert streak.count == 1
    streak.record("other", failed=True)
    streak.record("other", failed=True)
    streak.record("other", failed=True)
    assert streak.hold(others=False) is None  # nothing else to offer
    assert streak.hold(others=True) == "other"


class Bookings:
    def __init__(self) -> None:
        self.cancelled: list[str] = []
        self.tried: list[str] = []

    def tools(self) -> list[FunctionTool]:
        def find_bookings(name: str) -> list[dict[str, str]]:
            """The bookings of a member, by name."""
            return [{"booking_id": "BK-7", "name": name, "day": "Saturday"}]

        def cancel_booking(booking_id: str) -> str:
            """Cancel a booking by its booking_id."""
            self.tried.append(booking_id)
            if booking_id != "BK-7":
                raise ToolInputError(f"no booking {booking_id!r}; see find_bookings")
            self.cancelled.append(booking_id)
            return f"cancelled {booking_id}"

        return [FunctionTool(find_bookings, read_only=True), FunctionTool(cancel_booking)]


async def test_guessed_ids_in_a_row_leave_the_tool_out_of_the_next_request() -> None:
    world = Bookings()
    model = ScriptedModel(
        [
            call("cancel_booking", booking_id="B-01"),
            call("cancel_booking", booking_id="B-02"),
            call("cancel_booking", booking_id="B-03"),
            call("cancel_booking", booking_id="B-04"),  # written anyway: not run
            call("find_bookings", name="Ben Carter"),
            call("cancel_booking", booking_id="BK-7"),
            reply("Cancelled BK-7."),
        ]
    )
    agent = LeanAgent(model, world.tools(), planning=False)
    result = await agent.execute("Cancel Ben Carter's Saturday booking.")
    assert world.tried == ["B-01", "B-02", "B-03", "BK-7"]  # B-04 was not run
    assert world.cancelled == ["BK-7"]
    held = model.requests[3]
    assert held.tool_names == ["find_bookings"]
    note = held.messages[-1]["content"]
    assert note.startswith("[Reminder] cancel_booking failed several times in a row")
    assert "no booking 'B-03'" in note and "(find_bookings)" in note
    refused = tool_results(model.requests[4].messages)["call_4"]
    assert refused["error_type"] == "held_back" and "cancel_booking" in refused["error"]
    assert model.requests[4].tool_names == ["find_bookings", "cancel_booking"]  # offered again
    assert result.status is AgentStatus.COMPLETED


async def test_two_failures_and_a_success_hold_nothing() -> None:
    world = Bookings()
    model = ScriptedModel(
        [
            call("cancel_booking", booking_id="B-01"),
            call("cancel_booking", booking_id="B-02"),
            call("find_bookings", name="Ben Carter"),
            call("cancel_booking", booking_id="B-03"),
            call("cancel_booking", booking_id="BK-7"),
            reply("Cancelled BK-7."),
        ]
    )
    agent = LeanAgent(model, world.tools(), planning=False)
    await agent.execute("Cancel Ben Carter's Saturday booking.")
    assert all(r.tool_names == ["find_bookings", "cancel_booking"] for r in model.requests)
    assert world.cancelled == ["BK-7"]
