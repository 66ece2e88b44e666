"""Provider overflow errors: recognised, and the context size they name read."""

from __future__ import annotations

import pytest

from taskforce.agent.context import ContextBudget
from taskforce.agent.overflow import is_context_overflow, named_window
from taskforce.errors import ContextWindowExceededError, ProviderError

LLAMA_CPP = (
    "litellm.BadRequestError: ContextWindowExceededError: OpenAIException - request (9030 "
    "tokens) exceeds the available context size (8192 tokens), try increasing it"
)


@pytest.mark.parametrize(
    ("message", "size"),
    [
        (LLAMA_CPP, 8192),
        ("This model's maximum context length is 4096 tokens. However, you requested", 4096),
        ("prompt is too long: 210000 tokens > 200000 maximum", 200000),
        ("the prompt does not fit the context window", None),  # no size named
    ],
)
def test_the_size_an_overflow_names_is_read(message: str, size: int | None) -> None:
    assert named_window(ContextWindowExceededError(message)) == size


def test_no_size_is_read_from_an_error_that_is_no_overflow() -> None:
    assert named_window(ProviderError("rate limit: 8192 tokens per minute")) is None
    assert named_window(ValueError("available context size (8192 tokens)")) is None
    assert not is_context_overflow(ProviderError("rate limit"))


def test_a_budget_with_no_window_learns_the_named_one_and_its_reserve() -> None:
    budget = ContextBudget(None)
    assert budget.overflowed(ContextWindowExceededError(LLAMA_CPP))
    assert (budget.window, budget.reserve) == (8192, 2048)


def test_a_smaller_named_window_replaces_a_given_one_a_larger_does_not() -> None:
    budget = ContextBudget(32768, reserve=100)
    assert budget.overflowed(ContextWindowExceededError(LLAMA_CPP))
    assert (budget.window, budget.reserve) == (8192, 100)  # a given reserve is kept
    bigger = "maximum context length is 128000 tokens"
    assert budget.overflowed(ContextWindowExceededError(bigger))
    assert budget.window == 8192


def test_an_error_that_is_no_overflow_teaches_nothing() -> None:
    budget = ContextBudget(None)
    assert not budget.overflowed(ProviderError("rate limit: retry in 8192 ms"))
    assert budget.window is None and budget.reserve == 0
