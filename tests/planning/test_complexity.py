"""The complexity heuristic: ordering of simple vs compound goals, bounds, determinism."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taskforce.planning import estimate_complexity, should_plan
from taskforce.planning.complexity import DEFAULT_THRESHOLD, analyse, clause_verbs, is_multi_step

SIMPLE = ["What time is it?", "Say hello", "Translate 'cat' to French", "hi"]
COMPOUND = [
    "Research solar panel prices, then compare three vendors and email the summary to Ana.",
    "First download the sales data; after that clean it, build a chart and finally "
    "publish the report.",
    "1. Fetch the logs\n2. Find the errors\n3. Write a summary\n4. Send it to the team",
    "Build a REST API with authentication, write the tests, set up CI and deploy it to staging. "
    "Then update the documentation and notify the team.",
]


@pytest.mark.parametrize("goal", SIMPLE)
def test_simple_goals_do_not_need_a_plan(goal: str) -> None:
    assert estimate_complexity(goal) < DEFAULT_THRESHOLD
    assert not should_plan(goal)


@pytest.mark.parametrize("goal", COMPOUND)
def test_compound_goals_need_a_plan(goal: str) -> None:
    assert estimate_complexity(goal) >= DEFAULT_THRESHOLD
    assert should_plan(goal)


def test_every_compound_goal_scores_above_every_simple_one() -> None:
    assert max(map(estimate_complexity, SIMPLE)) < min(map(estimate_complexity, COMPOUND))


def test_adding_actions_raises_the_score_monotonically() -> None:
    goals = [
        "Search the web",
        "Search the web and summarize the results",
        "Search the web, summarize the results and then email them",
        "Search the web, summarize the results, then translate them and finally email them",
    ]
    scores = [estimate_complexity(g) for g in goals]
    assert scores == sorted(scores) and len(set(scores)) == len(scores)


def test_signals_and_weights() -> None:
    parts = analyse("1. Fetch data\n2. Sort it\n3. Report")
    assert parts.structure == 1.0
    assert 0 < parts.verbs <= 1 and parts.length < 1
    assert analyse("").score == 0.0


def test_threshold_is_honoured() -> None:
    goal = "Research the history of the Roman aqueducts in southern France in great detail."
    score = estimate_complexity(goal)
    assert should_plan(goal, threshold=score)
    assert not should_plan(goal, threshold=min(1.0, score + 0.01))
    assert should_plan("hi", threshold=0.0)


def test_huge_input_is_bounded() -> None:
    assert 0.0 <= estimate_complexity("and then send " * 1_000_000) <= 1.0


@pytest.mark.parametrize(
    ("goal", "several"),
    [
        ("a" * 10_000, False),  # no question: a backtracking search for one took minutes
        ("a b " * 2_500, False),
        ("Is it late? " * 1_000, False),  # questions only, no action
        ("Is it late? " * 800 + "Email Bob the time.", True),  # within the first 10,000
    ],
)
def test_a_long_goal_is_read_for_questions_in_one_pass(goal: str, several: bool) -> None:
    assert is_multi_step(goal) is several


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_score_is_in_range_and_deterministic(goal: str) -> None:
    score = estimate_complexity(goal)
    assert 0.0 <= score <= 1.0
    assert score == estimate_complexity(goal)


@pytest.mark.parametrize("goal", ["1. Work out 1 / 0 + 1\n2. Work out 2 * 3 + 1", "- a\n- b"])
def test_a_list_of_two_items_needs_a_plan_whatever_its_score(goal: str) -> None:
    assert estimate_complexity(goal) < DEFAULT_THRESHOLD  # short: the score alone says no
    assert should_plan(goal)


SHORT_MULTI_STEP = [
    "Translate the menu into Spanish, then print it.",  # a sequence, two actions
    "Book a table for two and text Maria the time.",  # two actions joined by "and"
    "Find the cheapest flight to Lima; forward it to Tom.",
    "Can you fetch the invoice and then archive it?",
    "Order pizza. Afterwards remind Sam about the game.",
    "Rename each photo in the holiday folder.",  # one action, a quantifier
    "Could you move everything of mine in the Station lockers over to Market Square?",
    "Cancel everyone's bookings for the Monday class.",
    "Ping Ana, Raj and Li about the outage.",  # one action over a series
    "Check the stock of pears and apples both at the shop",
    "- water the plants\n- feed the cat",
    "What's the weather in Rome? Email it to Alice.",  # a question, then an action on it
    "Is it raining in London? If so, add 'Indoor gym' to my calendar.",
    "Which is warmer, Madrid or Cairo? Save the warmer city in a note.",
    "Check the garage temperature. If it is cold, switch on the heater.",  # device verbs
    "If the book is in, borrow it for me; if not, place a hold on it.",
    "Turn off the lamp and lock the front door.",
    "Ship 5 boxes to Oslo, then restock bin A-2.",
    # a condition opening a clause, and an action: check it, then act (or not)
    "Priya wants a city bike. If no city bike is free, rent her a mountain bike instead.",
    "Unless the 9:00 train is full, book Ana a seat on it.",
]
SHORT_SINGLE_STEP = [
    "Send an email to mo@example.org asking whether the report is ready.",
    "Save a note titled 'groceries' with the text 'milk, bread and eggs, then tea'.",
    "What is the capital of Peru?",
    "Add 'Yoga' to my calendar on Tuesday at 7.",
    "How many grams are in 3 pounds?",
    "Please translate 'good night' into German.",
    "Set an alarm for 6:45 tomorrow.",
    "Text Jo that I am running late.",
    "What is the weather in Oslo? Tell me in one word.",  # the second sentence only answers
    "Can you convert 42 km to miles? Thanks!",
    "Email Bob asking 'Is the report ready? Send it over.'",  # the question is quoted
    "Turn on the porch light.",
    "Switch off the heater in the garage.",
    "Return book B-11 for member M-118.",
    "Ask Bob if he can come on Friday.",  # "if" inside a clause asks, it sets no condition
]


@pytest.mark.parametrize("goal", SHORT_MULTI_STEP)
def test_a_short_goal_of_several_steps_needs_a_plan(goal: str) -> None:
    assert is_multi_step(goal)
    assert should_plan(goal, threshold=1.0)  # its shape decides, whatever the score


@pytest.mark.parametrize("goal", SHORT_SINGLE_STEP)
def test_a_single_action_needs_no_plan(goal: str) -> None:
    assert not is_multi_step(goal)
    assert not should_plan(goal)


def test_clause_verbs_read_verbs_that_open_a_clause_not_nouns_or_quotes() -> None:
    assert clause_verbs("Convert 5 km to miles, then email the result to Bob") == [
        "convert",
        "email",
    ]
    assert clause_verbs("Send an email with the note") == ["send"]
    assert clause_verbs("Write 'read the file and print it' on the board") == ["write"]
    assert clause_verbs("") == []


def test_the_same_action_twice_is_not_two_actions() -> None:
    assert clause_verbs("Email Ana or email Raj") == ["email", "email"]
    assert not is_multi_step("Email Ana or email Raj")
