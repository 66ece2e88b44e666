"""Where an argument's figures came from: the mission, a tool's result, or the model's guess.

Small models fill an argument they do not know with a plausible value instead of looking it
up: an id ``"12345"``, a phone number ``"123-456-7890"``, the time ``"14:30"``, an amount of
``100``, an address ``bob@example.com``. :class:`Evidence` holds what the model was given in
a run (the system prompt, the tools' descriptions, the user's messages, the results of tools
other than the planner) and names the values of a call that appear in none of it. A failed
result is evidence only for what it adds to its call (``checking has only 1250.00 USD``
gives ``1250.00``; ``no contact '4711'`` only echoes the guess ``4711``).

What is checked, and how loosely (a value the model worked out itself is legitimate, so a
guard asks once, or once more after a result that lacks the value too, and never refuses):

* figures of three digits or more (a run of digits, possibly joined by ``. , : / -``): a
  figure is grounded when the evidence has the same text, the same number (``1250`` and
  ``1,250.00``), or the same parts (``9:00`` and ``09:00``, ``2026/12/05`` and
  ``2026-12-05``), or when it is one part of a figure there (``555`` of ``555-0175``);
  shorter figures (counts, days, percentages) are never questioned;
* dates and times rewritten into a tool's form (:mod:`~taskforce.agent.datetimes`): a date
  is grounded by the same day written another way (``18/09/2025``, ``18 September 2025``),
  or by its day and month in words with its year given anywhere (``18 September`` and a
  ``2025`` in a result or a tool's description), or by a relative day the model was given
  ("tomorrow", "on Friday") counted from a today it was given ("Today is Wednesday
  2025-10-15" in a tool's description); ``15:00`` by ``3pm``;
* e-mail addresses: grounded when the evidence has the same address (case aside);
* an argument that is all arithmetic (``1500 - 1250``, ``(84.6 + 45) / 3``) is not checked:
  the model is working a value out; nor is a number that is the sum, difference, product
  or quotient of two given numbers (``1150`` when 800 and 350 were given): the model
  worked it out in its head.

Pure: no I/O; the text it is given is all it knows.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from taskforce.agent.datetimes import (
    Day,
    dates_of,
    days_in,
    relative_days,
    times_in,
    todays_in,
    within,
)
from taskforce.agent.prompts import is_loop_note

MIN_DIGITS = 3
"""Figures with fewer digits than this are never questioned."""

_FIGURE = re.compile(r"\d+(?:[.,:/-]\d+)*")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_PARTS = re.compile(r"[.,:/-]")
_EXPRESSION = re.compile(r"[\d\s.,+\-*/%^()]+")
_OPERATOR = re.compile(r"\d\s*[+*%^]\s*[\d(]|[()]|\s[-/]\s")  # "-" or "/" alone: a date
_MAX_SHOWN = 3
_MAX_OPERANDS = 200  # the latest numbers given, paired for a worked-out value


class Evidence:
    """The figures and addresses a run was given, and the check of a call against them."""

    def __init__(self) -> None:
        self._texts: set[str] = set()  # figures as written
        self._numbers: set[float] = set()  # their values, and their parts' values
        self._parts: set[tuple[int, ...]] = set()  # their parts (leading zeros dropped)
        self._emails: set[str] = set()
        self._operands: dict[float, None] = {}  # the plain numbers among them, in order
        self._days: set[Day] = set()  # calendar days (year None: written without one)
        self._todays: set[datetime.date] = set()  # days a text said are today
        self._offsets: set[int] = set()  # "tomorrow": 1
        self._weekdays: set[int] = set()  # "on Friday": 4

    def add(self, text: str) -> None:
        """Take in text the model was given (a mission, a tool result, a description)."""
        for figure in _FIGURE.findall(text):
            self._texts.add(figure)
            if (value := _number(figure)) is not None:
                self._numbers.add(value)
                self._operands[value] = None
            parts = _parts(figure)
            self._parts.add(parts)
            self._numbers.update(float(p) for p in parts)
            self._days.update(dates_of(figure))
        for year, month, day in days_in(text):
            self._days.add((year, month, day))
            self._parts.update({(day, month), (month, day)})  # 18/09 or 09-18
        for hour, minute in times_in(text):  # 15:00, 15:00:00 or 3:00 for 3pm
            self._parts.update({(hour, minute), (hour, minute, 0), ((hour - 1) % 12 + 1, minute)})
        self._emails.update(e.lower() for e in _EMAIL.findall(text))
        self._todays.update(todays_in(text))
        offsets, weekdays = relative_days(text)
        self._offsets |= offsets
        self._weekdays |= weekdays

    def add_value(self, value: Any) -> None:
        """Take in a structured value (a tool's result): its text as JSON."""
        self.add(value if isinstance(value, str) else _json(value))

    def add_failure(self, result: Any, arguments: Any) -> None:
        """Take in what a failed result adds to its call's `arguments` (not their echo)."""
        own = " ".join(strings_in(arguments))
        echoed = set(_FIGURE.findall(own)) | {e.lower() for e in _EMAIL.findall(own)}
        emails, figures = _values(result if isinstance(result, str) else _json(result))
        added = [f for f in figures if f not in echoed] + [
            e for e in emails if e.lower() not in echoed
        ]
        self.add(" ".join(added))

    def unsupported(self, arguments: Mapping[str, Any]) -> list[str]:
        """The figures and addresses in `arguments` that the evidence does not have."""
        found: list[str] = []
        for text in strings_in(arguments):
            if _EXPRESSION.fullmatch(text) and _OPERATOR.search(text):
                continue  # arithmetic: the model works a value out from its operands
            emails, figures = _values(text)
            found += [e for e in emails if e.lower() not in self._emails]
            found += [f for f in figures if not self._grounded(f)]
        return list(dict.fromkeys(found))

    def _grounded(self, figure: str) -> bool:
        if sum(c.isdigit() for c in figure) < MIN_DIGITS or figure in self._texts:
            return True
        value = _number(figure)
        if value is not None and (value in self._numbers or self._worked_out(value)):
            return True
        return _parts(figure) in self._parts or self._a_given_day(figure)

    def _a_given_day(self, figure: str) -> bool:
        """Whether `figure` is a date the evidence gives, perhaps written another way."""
        for year, month, day in dates_of(figure):
            if (year, month, day) in self._days:
                return True
            if (None, month, day) in self._days and float(year) in self._numbers:
                return True
            if self._relative(year, month, day):
                return True
        return False

    def _relative(self, year: int, month: int, day: int) -> bool:
        """Whether the day is one a relative word given ("tomorrow") names from a today given."""
        try:
            date = datetime.date(year, month, day)
        except ValueError:
            return False
        return any(within(date, t, (self._offsets, self._weekdays)) for t in self._todays)

    def _worked_out(self, value: float) -> bool:
        """Whether `value` is one step of arithmetic on two given numbers.

        A sum, difference, product or quotient (``1150`` from 800 and 350): the model's own
        arithmetic, not a guess.
        """
        operands = list(self._operands)[-_MAX_OPERANDS:]  # the latest given
        for i, a in enumerate(operands):
            for b in operands[i:]:
                if _near(value, a + b) or _near(value, abs(a - b)) or _near(value, a * b):
                    return True
                if (a and _near(value, b / a)) or (b and _near(value, a / b)):
                    return True
        return False


def given(
    system: str,
    specs: Sequence[Mapping[str, Any]],
    history: Sequence[Mapping[str, Any]],
    planner: str,
) -> Evidence:
    """What a run starts from, as evidence.

    The system prompt, the tools' descriptions, and the history's user messages and tool
    results (of a failed one, what it adds to its call); not the loop's own notes, nor the
    `planner`'s results: both repeat the plan, which the model wrote itself.
    """
    evidence = Evidence()
    evidence.add(system)
    evidence.add_value(list(specs))
    calls = _calls(history)
    for message in history:
        content, role = message.get("content"), message.get("role")
        if not isinstance(content, str):
            continue
        if role == "user" and not is_loop_note(content):
            evidence.add(content)
        elif role == "tool":
            name, arguments = calls.get(message.get("tool_call_id"), (None, ""))
            if name == planner:
                continue
            if _failed(content):
                evidence.add_failure(content, arguments)
            else:
                evidence.add(content)
    return evidence


def succeeded(history: Sequence[Mapping[str, Any]]) -> set[str]:
    """The names of the tools with a successful result in `history` (a conversation)."""
    calls = _calls(history)
    found = set()
    for message in history:
        content = message.get("content")
        if message.get("role") == "tool" and isinstance(content, str) and not _failed(content):
            name = calls.get(message.get("tool_call_id"), (None, ""))[0]
            if name is not None:
                found.add(str(name))
    return found


def _calls(history: Sequence[Mapping[str, Any]]) -> dict[Any, tuple[Any, Any]]:
    """The tool calls in `history`: id -> (name, arguments as sent)."""
    return {
        call.get("id"): ((call.get("function") or {}).get("name"), _arguments(call))
        for message in history
        for call in message.get("tool_calls") or ()
        if isinstance(call, Mapping)
    }


def shown(values: list[str]) -> str:
    """The first few values, quoted, for a message to the model."""
    quoted = [f"'{v}'" for v in values[:_MAX_SHOWN]]
    return ", ".join(quoted) + (" ..." if len(values) > _MAX_SHOWN else "")


def _number(figure: str) -> float | None:
    """The figure's value when it is a plain number (``1250``, ``1,250.50``, ``0.8``)."""
    if _THOUSANDS.fullmatch(figure):
        figure = figure.replace(",", "")
    try:
        return float(figure)
    except ValueError:
        return None


def _values(text: str) -> tuple[list[str], list[str]]:
    """The e-mail addresses in `text`, and the figures outside them.

    ``bob123@x.io`` is an address, not a figure ``123``.
    """
    emails = _EMAIL.findall(text)
    for email in emails:
        text = text.replace(email, " ")
    return emails, _FIGURE.findall(text)


def _arguments(call: Mapping[str, Any]) -> Any:
    """A stored call's arguments (as sent: a JSON text, or already decoded)."""
    return (call.get("function") or {}).get("arguments") or ""


def _failed(content: str) -> bool:
    """Whether a stored tool result says it failed (``"success": false``)."""
    try:
        result = json.loads(content)
    except ValueError:
        return False
    return isinstance(result, dict) and result.get("success") is False


def _near(value: float, result: float) -> bool:
    """`value` is `result` as written to two decimals (416.67 for 1250 / 3)."""
    return abs(value - result) < 0.005 + 1e-9 * abs(result)


def _parts(figure: str) -> tuple[int, ...]:
    return tuple(int(p) for p in _PARTS.split(figure) if p)


def strings_in(value: Any, numbers: bool = True) -> Iterator[str]:
    """Every string (and, with `numbers`, number) inside an argument value.

    Keys are names, not values; a number is written plainly (``1250.0`` as ``1250``).
    """
    if isinstance(value, Mapping):
        for item in value.values():
            yield from strings_in(item, numbers)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_in(item, numbers)
    elif isinstance(value, str):
        yield value
    elif numbers and isinstance(value, int | float) and not isinstance(value, bool):
        yield _plain(value)


def _plain(value: float) -> str:
    """A number as a figure: ``500.0`` -> ``500``; other floats as Python writes them."""
    if isinstance(value, int):
        return str(value)
    return str(int(value)) if value.is_integer() else repr(value)


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)
