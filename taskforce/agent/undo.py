"""An action that would undo one the run already did, when the request asked for no undoing.

Small models keep calling tools after the work is done, down the list they were given: in
the evaluation they booked a class and cancelled it at once, rented a bike and returned it,
sold a ticket and refunded it, each time ending with nothing done; told once, a greedy model
made the same call again at once. Such a call is not run: the answer names the action it
would undo and says that action stands if it was what the request asked for (a mistake is
for the final answer to say, and the user to undo). Made again, it is answered as a repeat
(:class:`~taskforce.agent.guards.CallGuard` counts it as a stall). In the stored evaluation
runs (46 distinct runs in which such an undo ran) none ended solved.

An undo is a call of a tool whose name starts with an undoing verb (``cancel_booking``,
``return_bike``, ``refund_ticket``, ...) each of whose values appears in the arguments or
the result of one successful earlier action of the run (``book_class(member_id, class_id)``,
then ``cancel_booking`` with those two; ``rent_bike`` saying ``rental R-103``, then
``return_bike("R-103")``). A request that itself asks to undo something (it says "cancel",
"return", "refund", ...) is left alone: there the call may well be the work. So is an agent
built with ``hold_undos=False``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["UNDOING", "UndoWatch", "held"]

UNDOING = frozenset({
    "cancel", "return", "refund", "delete", "remove", "undo", "unassign", "unbook", "revoke",
    "release", "withdraw", "void", "reverse", "unsubscribe", "drop", "uninstall",
})  # fmt: skip
"""A tool name's first word that undoes; a request with a word starting so asks to undo."""

_WORD = re.compile(r"[A-Za-z]+")
_MIN_CHARS = 2  # a value shorter than this (a 1, an "M") says nothing about what it names


def _verb(name: str) -> str | None:
    """The undoing verb a tool's name starts with (``cancelBooking`` too), or None."""
    first = _WORD.match(re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name))
    verb = first.group().lower() if first else ""
    return verb if verb in UNDOING else None


def _values(args: Mapping[str, Any]) -> list[str]:
    """The call's scalar values as text (what names the thing it acts on)."""
    texts = [
        str(v).strip()
        for v in args.values()
        if isinstance(v, str | int | float) and not isinstance(v, bool)
    ]
    return [t for t in texts if len(t) >= _MIN_CHARS]


class UndoWatch:
    """The run's successful actions, and the check of a call that would undo one of them."""

    def __init__(self, request: str) -> None:
        words = {w.lower() for w in _WORD.findall(request)}
        self._asked = {v for v in UNDOING if any(w.startswith(v) for w in words)}  # "cancelled"
        self._done: list[tuple[str, set[str], str]] = []  # (call, its values, its result text)
        self._held: set[str] = set()  # signatures answered already

    def did(self, name: str, args: Mapping[str, Any], result: Mapping[str, Any]) -> None:
        """Note a successful action (a call of a tool that is not read-only)."""
        if _verb(name) is not None:
            return  # an undo itself is no action a later undo would undo
        shown = ", ".join(f"{k}={v!r}" for k, v in args.items())
        shown_result = {k: v for k, v in result.items() if k not in ("note", "hint")}
        text = json.dumps(shown_result, ensure_ascii=False, default=str)
        self._done.append((f"{name}({shown})", {v.lower() for v in _values(args)}, text.lower()))

    def undoes(self, signature: str, name: str, args: Mapping[str, Any]) -> tuple[str, bool] | None:
        """The earlier action this call would undo, and whether it was asked before; or None."""
        verb = _verb(name)
        values = [v.lower() for v in _values(args)]
        if verb is None or verb in self._asked or not values:
            return None
        for call, used, text in reversed(self._done):
            if all(v in used or _within(v, text) for v in values):
                again = signature in self._held
                self._held.add(signature)
                return call, again
        return None


def _within(value: str, text: str) -> bool:
    """Whether `value` stands in `text` as a whole token (``R-103``, not ``R-1030``)."""
    return re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", text) is not None


def held(call: str, again: bool = False) -> str:
    """The answer to a call that would undo `call` (`again`: it was answered so before)."""
    if again:
        return (
            f"Not run again: this call would still undo {call}, and the request asks for "
            "nothing to be undone. Leave that action as it is: give the final answer now, or "
            "do a part of the request not done yet."
        )
    return (
        f"Not run: this would undo {call}, which already succeeded in this run, and the request "
        "asks for nothing to be undone. If that action was what the request asked for, it is "
        "done: leave it as it is and give the final answer (or do a part of the request not "
        "done yet). If it was a mistake, say so in the final answer."
    )
