"""Replies and plan tasks that copy the loop's own messages instead of acting (pure).

Small models sometimes copy the last ``[Plan update]`` or reminder back, or list the loop's
instruction as a plan task. The loop drops such a reply (it is neither a call nor an
answer), reads a copied recitation that moves "Do now" on as the mark of the step it leaves,
and leaves copied tasks out of a new plan.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from taskforce.agent.prompts import PLAN_HEADER, REMINDER_HEADER, plan_first

_ECHO_CHARS = 40


def is_echo(content: str | None, loop_texts: Sequence[str] = ()) -> bool:
    """Whether a reply repeats the loop's own messages (a plan recitation or a reminder).

    Small models sometimes copy the last ``[Plan update]`` or reminder back instead of
    acting, with or without its header; such a reply is neither a tool call nor an answer.
    `loop_texts` are the loop's recent messages; a reply opening with 40 or more of their
    characters is a copy.
    """
    text = _spaced(str(content or ""))
    if PLAN_HEADER in text or REMINDER_HEADER in text:
        return True
    return _opens_with_copy(text, loop_texts, _spaced)


_DO_NOW = re.compile(r"Do now: step (\d{1,4})\b")


def step_moved_to(content: str | None, loop_texts: Sequence[str] = ()) -> int | None:
    """The step a copied recitation says to do now, or None when `content` is no such copy.

    Instead of calling the planner to mark its step done, a small model often writes the
    next ``[Plan update]`` itself, moving "Do now" on to the following step (85 of the 91
    copied recitations in the stored evaluation runs did). That copy is the model saying
    which step it thinks comes next.
    """
    if not is_echo(content, loop_texts):
        return None
    found = _DO_NOW.findall(str(content))
    return int(found[-1]) if found else None


def copies_prompt(text: str, loop_texts: Sequence[str] = ()) -> bool:
    """Whether `text`, a plan task the model wrote, copies the loop's own instructions.

    A small model told to plan sometimes lists the instruction itself as a task
    ("Reminder: This mission has several parts. Before anything else, call the planner…").
    Compared on letters and digits only (it drops brackets, quotes and spaces): a task
    whose first 40 of them appear in the plan-first instruction or in one of `loop_texts`
    (the loop's recent messages) is a copy.
    """
    sources = (plan_first(True), plan_first(False), *loop_texts)
    return _opens_with_copy(text, sources, _letters)


def _opens_with_copy(text: str, sources: Sequence[str], norm: Callable[[str], str]) -> bool:
    """Whether the first 40 characters of `text` appear in one of `sources` (both `norm`ed)."""
    head = norm(text)[:_ECHO_CHARS]
    return len(head) == _ECHO_CHARS and any(head in norm(t) for t in sources)


def _spaced(text: str) -> str:
    return " ".join(text.split())


def _letters(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())
