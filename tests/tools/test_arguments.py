"""Tool-call arguments: decoded within bounds, never a RecursionError."""

from __future__ import annotations

import pytest

from taskforce.tools.arguments import (
    MAX_ARGUMENT_CHARS,
    MAX_ARGUMENT_DEPTH,
    ArgumentsError,
    decode_arguments,
    nesting_depth,
)


def test_plain_arguments_decode() -> None:
    assert decode_arguments('{"action": "read_plan"}') == {"action": "read_plan"}
    assert decode_arguments("  ") == {}
    assert decode_arguments('"x"') == "x"


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"a": ' * 50_000 + "1" + "}" * 50_000,
        "[" * (MAX_ARGUMENT_DEPTH + 1) + "]" * (MAX_ARGUMENT_DEPTH + 1),
        "[" * 100_000,  # not even JSON, and deeper than the interpreter's limit
    ],
    ids=["100k-lists", "50k-objects", "just-too-deep", "unclosed"],
)
def test_deep_nesting_is_refused_with_a_message(text: str) -> None:
    with pytest.raises(ArgumentsError, match="levels deep"):
        decode_arguments(text)


def test_allowed_depth_and_size_edges() -> None:
    ok = "[" * MAX_ARGUMENT_DEPTH + "]" * MAX_ARGUMENT_DEPTH
    assert nesting_depth(decode_arguments(ok)) == MAX_ARGUMENT_DEPTH
    with pytest.raises(ArgumentsError, match="too large"):
        decode_arguments('"' + "x" * MAX_ARGUMENT_CHARS + '"')


def test_nesting_depth_is_iterative() -> None:
    deep: object = 1
    for _ in range(100_000):
        deep = {"k": [deep]}
    assert nesting_depth(deep) == 200_000
    assert nesting_depth("text") == 0 and nesting_depth({}) == 1
