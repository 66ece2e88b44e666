"""Dates and times read in the forms people and tools write them (``agent.datetimes``)."""

from __future__ import annotations

import datetime

import pytest

from taskforce.agent.datetimes import dates_of, days_in, relative_days, times_in, todays_in, within


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("on 18 September", [(None, 9, 18)]),
        ("on the 18th of Sept.", [(None, 9, 18)]),
        ("by September 18, 2025 please", [(2025, 9, 18)]),
        ("Sep 3 and 5 dec 2026", [(2026, 12, 5), (None, 9, 3)]),
        ("DECEMBER 31ST", [(None, 12, 31)]),
        ("32 May, June 0, 12 Maybe", []),  # no such day; not a month
        ("may 5 copies", [(None, 5, 5)]),  # read as a day: it only grounds, never refuses
        ("at 10:30 on 2025-09-18", []),  # figures are dates_of's
    ],
)
def test_days_written_in_words(text: str, days: list[tuple[int | None, int, int]]) -> None:
    assert sorted(days_in(text), key=str) == sorted(days, key=str)


@pytest.mark.parametrize(
    ("text", "times"),
    [
        ("at 3pm", [(15, 0)]),
        ("at 3:30 PM and 9.15 a.m.", [(15, 30), (9, 15)]),
        ("12am is midnight, 12 pm is noon", [(0, 0), (12, 0), (0, 0), (12, 0)]),
        ("13pm, 9:75am, 7 ampules, 5 items", []),
    ],
)
def test_twelve_hour_times(text: str, times: list[tuple[int, int]]) -> None:
    assert list(times_in(text)) == times


@pytest.mark.parametrize(
    ("figure", "days"),
    [
        ("2025-09-18", [(2025, 9, 18)]),
        ("2025/9/18", [(2025, 9, 18)]),
        ("18.09.2025", [(2025, 9, 18)]),
        ("18/09/2025", [(2025, 9, 18)]),  # a month 18 is no date
        ("09/10/2025", [(2025, 10, 9), (2025, 9, 10)]),  # day first, or month first
        ("2025-13-01", []),
        ("2025-09-18-1", []),
        ("18/09", []),  # no year
        ("555-0175", []),
        ("2025-09/18", []),  # mixed separators
    ],
)
def test_numeric_dates(figure: str, days: list[tuple[int, int, int]]) -> None:
    assert dates_of(figure) == days


@pytest.mark.parametrize(
    ("text", "today"),
    [
        ("Today is Wednesday 2025-10-15.", datetime.date(2025, 10, 15)),
        ("today's date is 15 October 2025", datetime.date(2025, 10, 15)),
        ("Today is Wednesday, October 15, 2025", datetime.date(2025, 10, 15)),
        ("Today: 15/10/2025", datetime.date(2025, 10, 15)),
        ("Is it sunny today? 2025-10-20 is not today", None),  # another sentence
        ("Today is 15 October", None),  # no year: not a day
        ("today is 2025-09-31", None),  # no such day
    ],
)
def test_todays_in_reads_the_day_a_text_says_is_today(
    text: str, today: datetime.date | None
) -> None:
    assert list(todays_in(text)) == ([today] if today else [])


def test_relative_days_reads_offsets_and_weekdays() -> None:
    offsets, weekdays = relative_days(
        "Tonight, tomorrow or the day after tomorrow; Fridays, SUNDAY"
    )
    assert offsets == {0, 1, 2} and weekdays == {4, 6}
    assert relative_days("a sunny Monte Carlo month") == (frozenset(), frozenset())


def test_within_takes_a_weekday_from_a_week_back_to_two_weeks_on() -> None:
    today = datetime.date(2025, 10, 15)  # a Wednesday
    fridays = (frozenset[int](), frozenset({4}))
    assert within(datetime.date(2025, 10, 17), today, fridays)
    assert within(datetime.date(2025, 10, 10), today, fridays)  # last Friday
    assert within(datetime.date(2025, 10, 24), today, fridays)  # next Friday
    assert not within(datetime.date(2025, 10, 31), today, fridays)
    assert not within(datetime.date(2025, 10, 16), today, fridays)  # a Thursday
    assert within(datetime.date(2025, 10, 16), today, (frozenset({1}), frozenset()))
