"""Questions about the plan are told apart from requests for work (13.8, chat)."""

from __future__ import annotations

import pytest

from taskforce.planning.questions import MAX_WORDS, asks_about_plan


@pytest.mark.parametrize(
    "text",
    [
        "What is left?",
        "what's left",
        "What\u2019s left to do?",
        "Where are we?",
        "How far are we?",
        "What is next?",
        "Which steps are still open?",
        "Is it done yet?",
        "Did you finish the report?",
        "Show me the plan",
        "status?",
        "  What remains?  ",
    ],
)
def test_a_question_about_the_plan_is_recognised(text: str) -> None:
    assert asks_about_plan(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Now also publish it",
        "Add a step to deploy",
        "Plan a trip to Rome and book a hotel",
        "Write a poem, then read it aloud",
        "What is 2 + 2?",
        "What is the capital of France?",
        "How many steps does it take to bake bread?",
        "What is left? Then also write the summary and send it.",
        "What is left?\nAlso publish it",
        "hello",
    ],
)
def test_work_and_other_questions_are_not_about_the_plan(text: str) -> None:
    assert not asks_about_plan(text)


def test_a_long_request_is_a_mission_even_when_it_asks() -> None:
    words = " ".join(["and"] * MAX_WORDS)
    assert not asks_about_plan(f"What is left {words}?")
