"""FinishGuard: which answer is held back, with what reminder, and how many times."""

from __future__ import annotations

from taskforce.agent import prompts
from taskforce.agent.finish import FinishGuard

NAMED = "[Reminder] Not finished yet: the request also names Rome."


def test_open_steps_not_covered_are_named_until_the_budget_is_spent() -> None:
    guard = FinishGuard(max_reminders=2)
    steps = ["step 2: Save a note"]
    first = guard.check("Done.", steps)
    assert first is not None and "step 2: Save a note" in first
    assert guard.check("Done.", steps) is not None
    assert guard.check("Done.", steps) is None  # two reminders spent: the answer is taken


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
