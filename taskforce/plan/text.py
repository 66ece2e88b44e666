r"""Text hygiene for everything that enters a plan: one normaliser and one cleaner.

* :func:`scrub` is the one normaliser for text that must be storable: a lone surrogate
  (a half emoji from a small model, a non-UTF-8 byte smuggled in by ``surrogateescape``,
  ``"\ud800"`` in a JSON string) becomes U+FFFD. Every door calls it, directly or through
  :func:`clean_text`: the planner's arguments, a mission, a Plan.md import, CLI input,
  stored data shown again. :func:`scrub_data` does the same over JSON-like data.
* :func:`clean_text` folds a step's text into one safe line, in linear time.
* :func:`check_length` refuses text by its raw length *before* any cleaning, so a 10 MB
  argument costs one ``len``.
* :func:`plural` counts things in messages: "1 task", "2 tasks".

Pure functions, no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from taskforce.errors import PlanError

REPLACEMENT = "\ufffd"
RAW_FACTOR = 8
"""Raw text may be this many times the limit (room for whitespace and list syntax that
cleaning removes); longer text is refused unread."""

_FOLDED = frozenset({"Cc", "Cf", "Zl", "Zp"})
_LEADING_SYNTAX = re.compile(
    r"""(?:
        [-*+•]\s+                # bullet
      | \d{1,4}[.)](?:\s+|$)     # ordered-list number: "1." "2)"
      | \[[ xX✓-]?\]\s*          # checkbox "[ ]" "[x]"
      | \#{1,6}\s+               # heading
      | >\s*                     # block quote
      | (?:step|task)\s*\d{1,4}\s*[:.)-]\s*   # "Step 3:"
    )""",
    re.VERBOSE | re.IGNORECASE,
)


def scrub(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (storable as UTF-8).

    Paired surrogates (an astral character split in two by a JSON escape) are joined.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def scrub_data(value: Any) -> Any:
    """JSON-like `value` with :func:`scrub` applied to every string (keys included).

    Returns `value` itself when nothing needed replacing.
    """
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, Mapping):
        items = [(scrub_data(k), scrub_data(v)) for k, v in value.items()]
        same = all(a is k and b is v for (a, b), (k, v) in zip(items, value.items(), strict=True))
        return value if same else dict(items)
    if isinstance(value, list | tuple):
        parts = [scrub_data(v) for v in value]
        same = all(a is b for a, b in zip(parts, value, strict=True))
        return value if same else type(value)(parts)
    return value


def check_length(text: str, limit: int, what: str) -> None:
    """Refuse `text` longer than :data:`RAW_FACTOR` times `limit`, before reading it."""
    if len(text) > RAW_FACTOR * limit:
        raise PlanError(f"{what} is {len(text)} characters; the limit is {limit}")


def _fold(ch: str) -> str:
    category = unicodedata.category(ch)
    if category in _FOLDED:
        return " "
    return REPLACEMENT if category == "Cs" else ch


def clean_text(text: str) -> str:
    """Fold a step's text into one safe line, in time linear in its length.

    Control and format characters (newlines, NUL, bidi overrides) become spaces, lone
    surrogates U+FFFD, runs of whitespace collapse, and leading list, checkbox, heading or
    quote syntax is stripped (repeatedly, so ``- [ ] 1. Do it`` becomes ``Do it``).
    """
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else _fold(ch) for ch in text)
    line = " ".join(text.split())
    start = 0
    while (match := _LEADING_SYNTAX.match(line, start)) is not None and match.end() > start:
        start = match.end()
        if start < len(line) and line[start] == " ":
            start += 1
    return line[start:].strip() if start else line


def escape_inline(text: str) -> str:
    """Escape what could render as HTML inside a Markdown line."""
    return text.replace("<", "&lt;").replace(">", "&gt;")


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``"1 step"``, ``"0 steps"``, ``"3 steps"`` (`nouns`: an irregular plural)."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"
