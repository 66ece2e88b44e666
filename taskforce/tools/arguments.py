"""Decoding the JSON arguments a model sends with a tool call, within bounds.

A model can send anything: ``"[" * 100_000`` would raise ``RecursionError`` from a plain
``json.loads`` (or later, from any recursive walk over the value), and megabytes of text
would be carried into every later prompt and save. :func:`decode_arguments` refuses both
with :class:`ArgumentsError`, a ``ValueError`` whose message tells the model what to fix.
"""

from __future__ import annotations

import json
from typing import Any

MAX_ARGUMENT_CHARS = 1_000_000
"""Longest arguments text accepted (the planner's largest valid call is far smaller)."""

MAX_ARGUMENT_DEPTH = 32
"""Deepest nesting of lists and objects accepted in arguments."""


_CUT = "[arguments cut: "


class ArgumentsError(ValueError):
    """Arguments that are too large or nested too deeply to be decoded safely."""


def cut_arguments(text: str) -> str:
    """The stand-in kept for arguments too large to keep (:func:`decode_arguments` refuses it)."""
    return f"{_CUT}{len(text)} characters]"


def nesting_depth(value: Any) -> int:
    """How deeply lists and objects nest in `value` (0 for a scalar); iterative, no recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        stack.extend((child, depth + 1) for child in children)
    return deepest


def decode_arguments(text: str) -> Any:
    """The JSON value in `text` (``{}`` for empty text).

    Raises:
        ArgumentsError: longer than :data:`MAX_ARGUMENT_CHARS` or nested deeper than
            :data:`MAX_ARGUMENT_DEPTH`.
        ValueError: not JSON.
    """
    size, cut = len(text), text.startswith(_CUT)
    counted = text[len(_CUT) : -len(" characters]")] if cut else ""
    if counted.isdigit():
        size = int(counted)
    if size > MAX_ARGUMENT_CHARS or cut:
        raise ArgumentsError(
            f"the arguments are too large ({size:,} characters; at most "
            f"{MAX_ARGUMENT_CHARS:,} in a reply): send less, e.g. fewer or shorter steps per call"
        )
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
        too_deep = nesting_depth(value) > MAX_ARGUMENT_DEPTH
    except RecursionError:  # deeper than the interpreter's own limit
        too_deep = True
    if too_deep:
        raise ArgumentsError(
            f"the arguments nest lists or objects more than {MAX_ARGUMENT_DEPTH} levels deep; "
            "send a flat JSON object"
        )
    return value
