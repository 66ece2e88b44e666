"""Ids the model already has, for the names it passed instead.

A lookup returns ``{"student_id": "S-703", "name": "Chloe Brandt"}``; a small model then
calls ``get_marks(student_id="Chloe Brandt")``, the tool refuses, and the model repeats the
call. :class:`Aliases` indexes the objects of successful tool results by each of their
fields, so that a failed call's argument (``student_id`` = "Chloe Brandt") can be matched
to the object that has that text in another field and the argument's key as a field: the
loop's answer then names the id ("S-703") instead of only the lookups.

The text matches when it is the field's whole text, or the first or last word of a name of
two to four words ("Chloe" or "Brandt" of "Chloe Brandt"), case and spacing aside. Only
scalar fields are ids.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["Aliases", "Match"]

Match = tuple[str, str, str, list[str]]
"""(argument key, the text passed, the tool whose result has the ids, the ids)."""

_MAX_ENTRIES = 20_000  # a bound on what one run's results can add
_MAX_IDS = 2  # more objects with the same name: too ambiguous to name


class Aliases:
    """The fields of the objects in a run's successful results, by key and text."""

    def __init__(self) -> None:
        self._index: dict[tuple[str, str], dict[str, str]] = {}  # (key, text) -> {id: tool}

    def add(self, tool: str, output: Any) -> None:
        """Index the objects in one successful result of `tool`."""
        for obj in _objects(output):
            texts = [v for v in obj.values() if isinstance(v, str) and v.strip()]
            for key, value in obj.items():
                if not isinstance(value, str | int) or isinstance(value, bool):
                    continue
                for text in texts:
                    if text == value:
                        continue
                    for form in _forms(text):
                        if len(self._index) >= _MAX_ENTRIES:
                            return
                        self._index.setdefault((key, form), {})[str(value)] = tool

    def match(self, arguments: Mapping[str, Any]) -> Match | None:
        """The first argument that is another field's text of an indexed object with its key.

        None when no argument matches, or one matches more than two objects' ids.
        """
        for key, value in arguments.items():
            if not isinstance(value, str) or not value.strip():
                continue
            found = self._index.get((key, _norm(value)), {})
            ids = [i for i in found if _norm(i) != _norm(value)]
            if 0 < len(ids) <= _MAX_IDS:
                return key, value, found[ids[0]], ids
        return None


def _objects(value: Any) -> Iterator[Mapping[str, Any]]:
    """Every JSON object inside a result, outermost first."""
    if isinstance(value, Mapping):
        yield value
        for item in value.values():
            yield from _objects(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _objects(item)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _forms(text: str) -> set[str]:
    """The ways a model may pass `text`: whole, or (a name of 2-4 words) its first or last."""
    words = _norm(text).split()
    if 2 <= len(words) <= 4:
        return {" ".join(words), words[0], words[-1]}
    return {" ".join(words)} if words else set()
