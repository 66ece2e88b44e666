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

A failed call may pass an id made up outright (``rx_id="LenaWolfLisinopril"``) after a
lookup returned the real ones (``{"name": "Lena Wolf", "prescriptions": [{"rx_id": "RX-504",
"drug": "lisinopril 10 mg"}]}``): :meth:`Aliases.known` gives the values that key (an ``id``
or ``..._id`` field) had in the run's results, each with the words beside it, for the hint.

This module owns the words of both hints (:func:`other_id`, :func:`known_ids`). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["Aliases", "Known", "Match", "known_ids", "other_id"]

Match = tuple[str, str, str, list[str]]
"""(argument key, the text passed, the tool whose result has the ids, the ids)."""

Known = tuple[str, str, list[tuple[str, str]]]
"""(argument key, the value passed, the values the results gave that key with their words)."""

_KNOWN_SHOWN = 6  # the latest values of a key named in a hint
_LABEL_CHARS = 40  # a field's text longer than this is not a label
_NOT_LABELS = frozenset({"success", "error", "error_type", "note", "hint"})  # the loop's own

_MAX_ENTRIES = 20_000  # a bound on what one run's results can add
_MAX_IDS = 2  # more objects with the same name: too ambiguous to name


class Aliases:
    """The fields of the objects in a run's successful results, by key and text."""

    def __init__(self) -> None:
        self._index: dict[tuple[str, str], dict[str, str]] = {}  # (key, text) -> {id: tool}
        self._ids: dict[str, dict[str, str]] = {}  # id key -> {value: its words}, latest last

    def add(self, tool: str, output: Any) -> None:
        """Index the objects in one successful result of `tool` (one walk over it)."""
        for obj, words in _labelled(output, ""):
            self._note_ids(obj, words)
            if len(self._index) < _MAX_ENTRIES:  # the name index is bounded; ids still noted
                self._index_names(tool, obj)

    def _note_ids(self, obj: Mapping[str, Any], words: str) -> None:
        """Note the values of `obj`'s id fields, with its words; a value seen again moves last."""
        for key, value in obj.items():
            if _id_key(key) and isinstance(value, str) and value.strip():
                known = self._ids.setdefault(key, {})
                known.pop(value, None)
                if len(known) < _MAX_ENTRIES:
                    known[value] = words

    def _index_names(self, tool: str, obj: Mapping[str, Any]) -> None:
        """Index `obj`'s scalar fields by its other texts, until the index is full."""
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

    def known(self, arguments: Mapping[str, Any]) -> Known | None:
        """The first id argument whose value no result gave that key, with the ones they did.

        None when every id argument's value was in a result, or its key never was.
        """
        for key, value in arguments.items():
            if not _id_key(key) or not isinstance(value, str) or not value.strip():
                continue
            given = self._ids.get(key, {})
            if given and value not in given:
                return key, value, list(given.items())[-_KNOWN_SHOWN:]
        return None


def other_id(key: str, text: str, tool: str, ids: list[str]) -> str:
    """For a failed call that passed `text` as `key`: the ids an earlier result gives it."""
    if len(ids) == 1:
        return f'In the result of {tool}, "{text}" has {key} "{ids[0]}": use {key}="{ids[0]}".'
    options = " or ".join(f'"{i}"' for i in ids)
    return f'In the result of {tool}, "{text}" has {key} {options}: use the one you mean.'


def known_ids(key: str, value: str, given: list[tuple[str, str]]) -> str:
    """For a failed call that passed `value` as `key`: the values the results gave `key`."""
    listed = ", ".join(f'"{v}" ({words})' if words else f'"{v}"' for v, words in given)
    return f'No result so far has {key} "{value}"; the results gave {key} {listed}.'


def _id_key(key: str) -> bool:
    """Whether a field names an id (``id``, ``rx_id``, ``studentId``)."""
    return key.casefold() == "id" or key.endswith(("_id", "Id"))


def _labelled(value: Any, outer: str) -> Iterator[tuple[Mapping[str, Any], str]]:
    """Every JSON object inside a result, outermost first, with its words (parent's, own)."""
    if isinstance(value, Mapping):
        own = _label(value)
        words = ": ".join(w for w in (outer, own) if w)
        yield value, words
        for item in value.values():
            yield from _labelled(item, own or outer)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _labelled(item, outer)


def _label(obj: Mapping[str, Any]) -> str:
    """An object's first short text that is not an id ("Lena Wolf", "lisinopril 10 mg")."""
    for key, value in obj.items():
        short = isinstance(value, str) and 0 < len(value) <= _LABEL_CHARS
        if short and not _id_key(key) and key not in _NOT_LABELS:
            return " ".join(value.split())
    return ""


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _forms(text: str) -> set[str]:
    """The ways a model may pass `text`: whole, or (a name of 2-4 words) its first or last."""
    words = _norm(text).split()
    if 2 <= len(words) <= 4:
        return {" ".join(words), words[0], words[-1]}
    return {" ".join(words)} if words else set()
