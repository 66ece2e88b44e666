"""Ids the model already has, for the names it passed instead.

A lookup returns ``{"student_id": "S-703", "name": "Chloe Brandt"}``; a small model then
calls ``get_marks(student_id="Chloe Brandt")``, the tool refuses, and the model repeats the
call. :class:`Aliases` indexes the objects of successful tool results by each of their
fields, so that a failed call's argument (``student_id`` = "Chloe Brandt") can be matched
to the object that has that text in another field and the argument's key as a field: the
loop's answer then names the id ("S-703") instead of only the lookups.

The text matches when it is the field's whole text, or the first or last word of a name of
two to four words ("Chloe" or "Brandt" of "Chloe Brandt"), case and spacing aside. A text
of two words or more also matches when each of its words is a word of the object's texts or
of the texts of the objects around it: a small model makes an id of the names it has,
``rx_id="GeorgeParkLisinopril"`` for the prescription ``{"rx_id": "RX-503", "drug":
"lisinopril 10 mg"}`` in George Park's record (words split at spaces, punctuation and
capitals, in any order). Only scalar fields are ids.

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
        self._worded: list[tuple[str, str, frozenset[str], str]] = []  # key, id, words, tool

    def add(self, tool: str, output: Any) -> None:
        """Index the objects in one successful result of `tool`."""
        for obj, words in _objects(output, frozenset()):
            for key, value in obj.items():
                if _is_id(value) and len(self._worded) < _MAX_ENTRIES:
                    self._worded.append((key, str(value), words, tool))
            texts = [v for v in obj.values() if isinstance(v, str) and v.strip()]
            for key, value in obj.items():
                if not _is_id(value):
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
            if not found:
                found = self._by_words(key, value)
            ids = [i for i in found if _norm(i) != _norm(value)]
            if 0 < len(ids) <= _MAX_IDS:
                return key, value, found[ids[0]], ids
        return None

    def _by_words(self, key: str, text: str) -> dict[str, str]:
        """The ids of `key` whose objects' words (and their outer objects') hold `text`'s."""
        wanted = _words(text)
        if len(wanted) < 2:  # one word: only as a name's first or last (the index)
            return {}
        return {i: tool for k, i, words, tool in self._worded if k == key and wanted <= words}


def _objects(
    value: Any, outer: frozenset[str]
) -> Iterator[tuple[Mapping[str, Any], frozenset[str]]]:
    """Every JSON object inside a result, outermost first, with its and its outer texts' words."""
    if isinstance(value, Mapping):
        words = outer.union(*(_words(v) for v in value.values() if isinstance(v, str)))
        yield value, words
        for item in value.values():
            yield from _objects(item, words)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _objects(item, outer)


def _is_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _words(text: str) -> frozenset[str]:
    """The words of `text`, case aside ("GeorgePark" and "RX503" are two words each).

    Split at anything but a letter or digit, at a capital after a small letter, and
    between letters and digits.
    """
    words: list[str] = []
    word = ""
    for char in text:
        if not char.isalnum():
            word = _flush(word, words)
        elif word and (
            (char.isupper() and word[-1].islower()) or char.isdigit() != word[-1].isdigit()
        ):
            word = _flush(word, words) + char
        else:
            word += char
    _flush(word, words)
    return frozenset(words)


def _flush(word: str, words: list[str]) -> str:
    if word:
        words.append(word.casefold())
    return ""


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _forms(text: str) -> set[str]:
    """The ways a model may pass `text`: whole, or (a name of 2-4 words) its first or last."""
    words = _norm(text).split()
    if 2 <= len(words) <= 4:
        return {" ".join(words), words[0], words[-1]}
    return {" ".join(words)} if words else set()
