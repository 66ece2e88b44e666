"""The CLI's one sanitiser: control sequences, bidi overrides and surrogates made visible."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from taskforce.cli._safe import clean, escape_json, json_text, one_line, printable
from tests.terminal import HOSTILE, raw_controls


def test_escape_sequences_become_visible_stand_ins() -> None:
    assert printable("\x1b[2Jx") == "␛[2Jx"
    assert printable("a\r\nb\rc") == "a\nb␍c"
    assert printable("tab\tand\nnewline stay") == "tab\tand\nnewline stay"
    assert printable("\x9b31m") == "<U+009B>31m"
    assert printable("file\u202egnp.exe") == "file<U+202E>gnp.exe"
    assert printable("half \ud83d emoji") == "half \ufffd emoji"
    assert printable("\x7f") == "\u2421"
    assert printable("emoji 👨‍👩‍👧 and accents é stay") == "emoji 👨‍👩‍👧 and accents é stay"
    assert one_line("a\n\n b\x1b") == "a b␛"


def test_every_hostile_sample_is_neutralised() -> None:
    for name, text in HOSTILE.items():
        shown = printable(text)
        assert raw_controls(shown) == [], name
        shown.encode("utf-8")


@given(st.text())
def test_printable_output_is_always_safe_and_encodable(text: str) -> None:
    shown = printable(text)
    assert raw_controls(shown) == []
    shown.encode("utf-8")
    assert printable(shown) == shown  # idempotent


@given(st.recursive(st.text() | st.integers() | st.none(),
                    lambda kids: st.lists(kids) | st.dictionaries(st.text(), kids)))  # fmt: skip
def test_json_text_is_lossless_and_safe(data: object) -> None:
    shown = json_text(data)
    assert raw_controls(shown) == []
    assert json.loads(shown) == data
    assert json.loads(escape_json(json.dumps(data, ensure_ascii=False))) == data


def test_clean_reaches_every_string_and_stops_at_absurd_depth() -> None:
    assert clean({"k\x1b": ["v\x1b", {"x": "\u202e"}], "n": 1}) == {
        "k␛": ["v␛", {"x": "<U+202E>"}], "n": 1,
    }  # fmt: skip
    deep: object = "x"
    for _ in range(10_000):
        deep = [deep]
    assert "…" in json.dumps(clean(deep), ensure_ascii=False)
