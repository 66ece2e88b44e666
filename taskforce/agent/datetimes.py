"""Calendar dates and clock times in the forms people and tools write them.

A user writes "on 18 September" or "at 3pm"; a tool takes ``2025-09-18`` and ``15:00``.
:mod:`~taskforce.agent.grounding` asks where a call's figures came from, and a date or a
time the model rewrote into the tool's form came from the user: these readers give the
calendar day and the clock time behind each form, so the two can be compared.

Read here: dates as figures (``2025-09-18``, ``2025/09/18``, ``18/09/2025``, ``09/18/2025``,
``18.09.2025``), dates in words (``18 September``, ``18th of Sept``, ``September 18, 2025``,
``Sep. 18``), and twelve-hour times (``3pm``, ``3:30 p.m.``, ``9.15am``, ``noon``,
``midnight``). Relative days ("tomorrow", "tonight", "on Friday", "next Saturday") are read
as what they say about a today (:func:`relative_days`), and a today as text states it
("Today is Wednesday 2025-10-15", "today's date: 15 October 2025"; :func:`todays_in`).
Small regular expressions rather than a date parser: only exact days and times are wanted
from free text, and a fuzzy parser would make a date of any lone number.

Pure: no I/O.
"""

from __future__ import annotations

import contextlib
import datetime
import re
from collections.abc import Iterator
from collections.abc import Set as AbstractSet

__all__ = [
    "Day",
    "Relative",
    "dates_of",
    "days_in",
    "relative_days",
    "times_in",
    "todays_in",
    "within",
]

Day = tuple[int | None, int, int]
"""A calendar day: (year or None when not written, month, day)."""

_MONTHS = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "may": 5,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
_MONTH = (
    r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_ORDINAL = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(?P<year>\d{4}))?"
_DAY_FIRST = re.compile(
    rf"\b(?P<day>\d{{1,2}}){_ORDINAL}(?:\s+of)?\s+{_MONTH}{_YEAR}(?![\w:])", re.IGNORECASE
)
_MONTH_FIRST = re.compile(
    rf"\b{_MONTH}\s+(?P<day>\d{{1,2}}){_ORDINAL}{_YEAR}(?![\w:])", re.IGNORECASE
)
_TWELVE_HOUR = re.compile(
    r"\b(?P<hour>\d{1,2})(?:[:.](?P<minute>\d{2}))?\s*(?P<half>[ap])\.?m\b\.?", re.IGNORECASE
)
_NAMED_TIMES = {"noon": (12, 0), "midday": (12, 0), "midnight": (0, 0)}
_NAMED = re.compile(r"\b(noon|midday|midnight)\b", re.IGNORECASE)
_NUMERIC = re.compile(r"(\d{1,4})([-/.])(\d{1,2})\2(\d{1,4})")


def days_in(text: str) -> Iterator[Day]:
    """The calendar days written in words in `text` (``18 September``, ``Sept 18, 2025``)."""
    for _, day in _days_at(text):
        yield day


def _days_at(text: str) -> Iterator[tuple[int, Day]]:
    """The calendar days written in words in `text`, each with where it starts."""
    for pattern in (_DAY_FIRST, _MONTH_FIRST):
        for match in pattern.finditer(text):
            month = _MONTHS[match["month"][:3].lower()]
            day = int(match["day"])
            year = int(match["year"]) if match["year"] else None
            if _valid(year, month, day):
                yield match.start(), (year, month, day)


def times_in(text: str) -> Iterator[tuple[int, int]]:
    """The clock times written the twelve-hour way in `text`, as (hour 0-23, minute)."""
    for match in _TWELVE_HOUR.finditer(text):
        hour, minute = int(match["hour"]), int(match["minute"] or 0)
        if 1 <= hour <= 12 and minute < 60:
            yield hour % 12 + (12 if match["half"].lower() == "p" else 0), minute
    for match in _NAMED.finditer(text):
        yield _NAMED_TIMES[match[1].lower()]


def dates_of(figure: str) -> list[tuple[int, int, int]]:
    """The calendar days a numeric date figure can mean, as (year, month, day).

    ``2025-09-18`` and ``18/09/2025`` mean one day; ``09/10/2025`` two (day first, or
    month first as in the US). Not a date with a four-digit year: none.
    """
    match = _NUMERIC.fullmatch(figure)
    if match is None:
        return []
    first, _, middle, last = match.groups()
    a, b, c = int(first), int(middle), int(last)
    if len(first) == 4:
        candidates = [(a, b, c)]
    elif len(last) == 4:
        candidates = [(c, b, a), (c, a, b)]
    else:
        return []
    return [day for day in dict.fromkeys(candidates) if _valid(*day)]


Relative = tuple[AbstractSet[int], AbstractSet[int]]
"""What a text says about days relative to a today: offsets in days, and weekdays (Monday 0)."""

_OFFSETS = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1, "day after tomorrow": 2}
_OFFSET = re.compile(r"\b(day after tomorrow|today|tonight|tomorrow|yesterday)\b", re.I)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = re.compile(rf"\b({'|'.join(_WEEKDAYS)})s?\b", re.I)
_TODAY = re.compile(r"\btoday(?:'s date)?\b", re.I)
_TODAY_CHARS = 50
"""How far after "today" its date may be written ("Today is Wednesday, October 15, 2025")."""


def relative_days(text: str) -> Relative:
    """The day offsets ("tomorrow": 1) and weekdays ("Friday": 4) `text` speaks of."""
    offsets = {_OFFSETS[m[1].lower()] for m in _OFFSET.finditer(text)}
    weekdays = {_WEEKDAYS.index(m[1].lower()) for m in _WEEKDAY.finditer(text)}
    return offsets, weekdays


def todays_in(text: str) -> Iterator[datetime.date]:
    """The days `text` says are today ("Today is Wednesday 2025-10-15", "today: 15 Oct 2025").

    The first date with its year written within a few words after "today" (in the same
    sentence).
    """
    for match in _TODAY.finditer(text):
        window = re.split(r"[.;?!\n](?:\s|$)", text[match.end() : match.end() + _TODAY_CHARS])[0]
        found = [(m.start(), day) for m in _NUMERIC.finditer(window) for day in dates_of(m[0])]
        found += [(at, (y, m, d)) for at, (y, m, d) in _days_at(window) if y is not None]
        for _, (year, month, day) in sorted(found)[:1]:
            with contextlib.suppress(ValueError):  # 31 September
                yield datetime.date(year, month, day)


def within(day: datetime.date, today: datetime.date, relative: Relative) -> bool:
    """Whether `day` is one `relative` speaks of, from `today`.

    A weekday is taken loosely: its days from a week before `today` to two weeks after
    ("Friday", "next Friday" and "last Friday" all name one of them).
    """
    offsets, weekdays = relative
    delta = (day - today).days
    return delta in offsets or (day.weekday() in weekdays and -7 <= delta <= 13)


def _valid(year: int | None, month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= 31 and (year is None or 1000 <= year <= 9999)
