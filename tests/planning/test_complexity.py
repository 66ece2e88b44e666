"""The complexity heuristic: ordering of simple vs compound goals, bounds, determinism."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taskforce.planning import estimate_complexity, should_plan
from taskforce.planning.complexity import DEFAULT_THRESHOLD, analyse

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
    goal = COMPOUND[0]
    score = estimate_complexity(goal)
    assert should_plan(goal, threshold=score)
    assert not should_plan(goal, threshold=min(1.0, score + 0.01))
    assert should_plan("hi", threshold=0.0)


def test_huge_input_is_bounded() -> None:
    assert 0.0 <= estimate_complexity("and then send " * 1_000_000) <= 1.0


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
