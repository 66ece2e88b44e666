"""Text hygiene: one normaliser (scrub), one linear cleaner, lengths checked before cleaning."""

from __future__ import annotations

import re
from typing import Any

import pytest

from taskforce.errors import PlanError
from taskforce.plan import StepSpec, clean_text, scrub, scrub_data
from taskforce.plan import specs as specs_module
from taskforce.plan import text as text_module


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("- [ ] 1. Do it", "Do it"),
        ("* [x] Done thing", "Done thing"),
        ("Step 3: write tests", "write tests"),
        ("2) second", "second"),
        ("## Heading", "Heading"),
        ("> quoted", "quoted"),
        ("1.5 litres of milk", "1.5 litres of milk"),
        ("Normal text - with dash", "Normal text - with dash"),
        ("multi\r\nline\ttext", "multi line text"),
        ("nul\x00and\u202ebidi\u2028sep", "nul and bidi sep"),
        ("   ", ""),
        ("1.", ""),
        ("emoji 🚀 ünïcödé 日本語", "emoji 🚀 ünïcödé 日本語"),
        ("bad \ud83d emoji", "bad \ufffd emoji"),
        ("- - - - x", "x"),
        ("\u00a0spaced\u00a0 out ", "spaced out"),
    ],
)
def test_clean_text(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


class CountingPattern:
    """Wraps the leading-syntax pattern: counts matches, and the strings they scan."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.calls = 0
        self.lines: set[int] = set()

    def match(self, line: str, pos: int = 0) -> Any:
        self.calls += 1
        self.lines.add(id(line))
        return self.pattern.match(line, pos)


@pytest.mark.parametrize("n", [10, 1_000, 100_000])
def test_repeated_list_markers_are_stripped_in_one_pass(
    n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    counting = CountingPattern(text_module._LEADING_SYNTAX)
    monkeypatch.setattr(text_module, "_LEADING_SYNTAX", counting)
    assert clean_text("- " * n + "Do it") == "Do it"
    # one match per marker, all on the same string: no copy per stripped marker (the old
    # cleaner re-built the remaining line after each one: quadratic in n)
    assert counting.calls == n + 1
    assert len(counting.lines) == 1


def test_a_huge_argument_is_refused_by_its_length_before_any_cleaning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cleaned: list[int] = []
    real = specs_module.clean_text
    monkeypatch.setattr(specs_module, "clean_text", lambda t: cleaned.append(len(t)) or real(t))
    huge = "- " * 5_000_000  # 10 MB
    with pytest.raises(PlanError, match="task 2 is 10000000 characters; the limit is 500"):
        specs_module.clean_specs(["ok", huge], "task", 500)
    assert cleaned == [2]  # only "ok" was cleaned
    with pytest.raises(PlanError, match="note is 10000000 characters; the limit is 500"):
        specs_module.clean_note(huge, 500)
    assert cleaned == [2]


def test_text_within_the_raw_allowance_is_cleaned_then_measured() -> None:
    padded = "- [ ] " * 100 + "Do it"  # 605 raw characters, 5 once clean
    assert specs_module.clean_specs([padded], "task", 500) == [StepSpec("Do it")]


def test_scrub_replaces_lone_surrogates_and_joins_pairs() -> None:
    assert scrub("bad \ud83d emoji") == "bad \ufffd emoji"
    assert scrub("\ud83d\ude80") == "🚀"  # a pair from two JSON escapes
    assert scrub("plain") == "plain" and scrub("ünï") == "ünï"
    data = {"k\udcff": ["a", "\ud800", 3, None], "ok": "fine"}
    assert scrub_data(data) == {"k\ufffd": ["a", "\ufffd", 3, None], "ok": "fine"}
    clean = {"a": ["b", 1]}
    assert scrub_data(clean) is clean  # nothing to replace: nothing copied


@pytest.mark.parametrize(
    ("count", "noun", "nouns", "text"),
    [
        (1, "step", None, "1 step"),
        (0, "step", None, "0 steps"),
        (3, "run", None, "3 runs"),
        (1, "step was", "steps were", "1 step was"),
        (2, "step was", "steps were", "2 steps were"),
    ],
)
def test_plural(count: int, noun: str, nouns: str | None, text: str) -> None:
    assert text_module.plural(count, noun, nouns) == text
