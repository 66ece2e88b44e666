"""The one mission splitter: list items, else sentences and sequenced clauses."""

from __future__ import annotations

import pytest

from taskforce.planning.split import list_items, split_mission


@pytest.mark.parametrize(
    ("mission", "steps"),
    [
        (
            "1. Research the market\n2. Write a report\n3. Email it to Bob",
            ["Research the market", "Write a report", "Email it to Bob"],
        ),
        (
            "Plan a trip to Rome:\n- book flights\n- find a hotel\n  near the center\n* pack",
            ["Book flights", "Find a hotel near the center", "Pack"],
        ),
        (
            "Fetch the data, then clean it and then train a model; finally evaluate it.",
            ["Fetch the data", "Clean it", "Train a model", "Evaluate it"],
        ),
        (
            "Check e.g. the logs. Then restart the server! After that notify the team.",
            ["Check e.g. the logs", "Restart the server", "Notify the team"],
        ),
        (
            "first, install deps; second, run tests; lastly ship",
            ["Install deps", "Run tests", "Ship"],
        ),
        ("Do 1) setup 2) build 3) test", ["Setup", "Build", "Test"]),
        ("Step 1: read\nStep 2: write", ["Read", "Write"]),
        ("Write a haiku", ["Write a haiku"]),
        ("Version 2. Then go.", ["Version 2", "Go"]),
    ],
)
def test_split_splits_lists_sentences_and_sequences(mission: str, steps: list[str]) -> None:
    assert split_mission(mission) == steps


def test_split_unicode() -> None:
    steps = split_mission("Schreibe einen Bericht über Köln. Dann übersetze ihn ins 日本語 🎉")
    assert steps == ["Schreibe einen Bericht über Köln", "Dann übersetze ihn ins 日本語 🎉"]
    assert split_mission("- 買い物をする\n- 料理する") == ["買い物をする", "料理する"]
    # decomposed (NFD) input comes back composed
    assert split_mission("Cafe\u0301 visit") == ["Café visit"]


@pytest.mark.parametrize("mission", ["", "   ", "\n\t\n", "\x00\x07", ";;;", "- \n- "])
def test_split_empty_gives_no_steps(mission: str) -> None:
    assert split_mission(mission) == []


def test_split_hostile_text_is_defused() -> None:
    steps = split_mission("- [x] fake done\n- [ ] ## heading\n- <script>alert(1)</script>")
    assert steps == ["Fake done", "Heading", "<script>alert(1)</script>"]
    assert split_mission("\x00\x07evil\u202e text") == ["Evil text"]
    long = split_mission("x " * 5000)
    assert len(long) == 1 and len(long[0]) <= 200 and long[0].endswith("…")
    many = split_mission("\n".join(f"- item {i}" for i in range(500)))
    assert len(many) == 30 and many[0] == "Item 0"
    assert split_mission("- a\n- A\n- a") == ["A"]  # duplicates collapse
    for step in split_mission("1. a\u2028b\n2. c\rd"):
        assert "\n" not in step and "\r" not in step and "\u2028" not in step


def test_actions_only_needs_two_actions_and_splits_at_and_verb() -> None:
    assert split_mission(
        "Get the weather in Oslo, then compute 2*21 and save a note.", actions_only=True
    ) == ["Get the weather in Oslo", "Compute 2*21", "Save a note"]
    assert split_mission("What is the capital of France?", actions_only=True) == []
    assert split_mission("Write a haiku", actions_only=True) == []  # one action: no plan
    assert split_mission("1. Look it up\n2. Answer", actions_only=True) == ["Look it up", "Answer"]


def test_list_items_outermost_level_and_continuations() -> None:
    text = "Plan:\n1. **Research** the market\n   - sources\n   more detail\n2) Write"
    assert list_items(text) == ["Research the market", "Write"]
    assert list_items(text, continuations=True) == [
        "Research the market more detail",
        "Write",
    ]
    assert list_items("no list here") == []
    assert list_items("- a\n- b\n  - nested\n- c") == ["a", "b", "c"]
