"""Which of the names a plan step lists the run's calls have used (fan-out left half done).

A step can name several items: "Get the temperatures in Madrid and Tokyo", "Email the
result to both Bob and Carol". Small models do the first and tick the step:
``get_weather("Madrid")``, then a file that says "Tokyo: 77°F" with no lookup behind it.
:class:`Mentions` keeps the words of the short arguments the run's calls were given (an id,
a city, a name, an address; not free text such as a file's contents or an e-mail's body,
where the model writes what it has not looked up) and names the items of a step's list that
no call used while another item of the same list was used.

Only lists of capitalised names count ("Madrid and Tokyo", "Bob, Carol or Dan"); a list
where no item was used says nothing (the step may be arithmetic on known values). The first
word of a step is its verb, not a name.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from taskforce.agent.grounding import strings_in

_NAME = r"[A-Z][\w'-]*(?: [A-Z][\w'-]*)*"
_LIST = re.compile(rf"({_NAME})((?:, {_NAME})*),? (?:and|or) ({_NAME})")
_WORD = re.compile(r"\w+")
MAX_WORDS = 3
"""An argument of more words than this is free text: its words use no item."""


def name_lists(step: str) -> list[list[str]]:
    """The lists of capitalised names in `step` ("Madrid and Tokyo" → Madrid, Tokyo)."""
    text = step.strip()
    text = text[:1].lower() + text[1:]  # the leading verb is capitalised, not a name
    out = []
    for match in _LIST.finditer(text):
        middle = [m for m in match.group(2).split(", ") if m]
        out.append([match.group(1), *middle, match.group(3)])
    return out


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class Mentions:
    """The words of the short arguments the run's calls were given, and by which tool."""

    def __init__(self) -> None:
        self._by: dict[str, str] = {}  # a word → the first tool given it

    def add(self, tool: str, args: Mapping[str, Any]) -> None:
        """Remember the words of `args`' short string values (`tool` was called with them)."""
        for value in strings_in(args, numbers=False):
            words = _words(value)
            if len(words) <= MAX_WORDS:
                for word in words:
                    self._by.setdefault(word, tool)

    def _used(self, item: str) -> str | None:
        """The tool a call of which used `item` (any of its words), or None."""
        return next((self._by[w] for w in _words(item) if w in self._by), None)

    def left_out(self, step: str) -> tuple[list[str], list[str], list[str]]:
        """Of the lists `step` names: items used, items left out, tools that used the others.

        Empty when every item of each list was used, or no item of a list was.
        """
        used: list[str] = []
        missing: list[str] = []
        tools: list[str] = []
        for names in name_lists(step):
            by = {name: self._used(name) for name in names}
            if any(by.values()) and not all(by.values()):
                used += [n for n, t in by.items() if t]
                missing += [n for n, t in by.items() if not t]
                tools += [t for t in by.values() if t and t not in tools]
        return (used, missing, tools) if missing else ([], [], [])
