"""Dates and times read in the forms people and tools write them (``agent.datetimes``)."""

from __future__ import annotations

import pytest

from taskforce.agent.datetimes import dates_of, days_in, times_in


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
