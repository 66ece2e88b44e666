"""Bad and odd input is refused clearly (or stored losslessly); nothing stored is harmed."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from sqlalchemy import text

from taskforce.errors import (
    InvalidSessionIdError,
    StateCorruptError,
    StatePayloadError,
)
from taskforce.store import StateManager
from tests.store.conftest import Backend, make_state

HOSTILE_IDS: list[Any] = [
    "",
    "a" * 129,
    "x'; DROP TABLE tf_sessions;--",
    "a b",
    "../etc/passwd",
    "é",
    "s\x00",
    "a/b",
    "%",
    None,
    5,
    b"bytes",
]


async def test_emoji_nul_and_lone_surrogates_round_trip(sm: StateManager) -> None:
    state = make_state(2, title="t\x00itle 😀", weird="\ud800 lone surrogate", nul="a\x00b")
    state["plan"]["tasks"][0].update(description="nul \x00 here 🚀", note="note\x00", status="DONE")
    messages = [{"role": "user", "content": "hi \x00 😀"}, "plain string", [1, "\x00"]]
    await sm.save_state("edge", state, messages=messages, events=[{"kind": "k", "note": "\x00"}])
    assert await sm.load_state("edge") == {**state, "version": 1}
    assert await sm.load_messages("edge") == messages
    assert (await sm.get_history("edge"))[-1].note == "\x00"
    summary = (await sm.list_sessions())[0]
    assert summary.title == "t\ufffditle 😀"  # the listing column shows NUL as U+FFFD
    assert summary.steps_done == 1


async def test_more_than_one_megabyte_is_stored(sm: StateManager) -> None:
    big = "é" * 700_000  # 1.4 MB of UTF-8
    state = make_state(3, blob=big)
    state["plan"]["tasks"][1]["note"] = "n" * 1_200_000
    await sm.save_state("big", state)
    assert await sm.load_state("big") == {**state, "version": 1}


async def test_oversized_payload_is_refused_and_harms_nothing(backend: Backend) -> None:
    sm = backend.make(max_payload_bytes=10_000)
    await sm.save_state("p", make_state(2))
    with pytest.raises(StatePayloadError, match="limit is 10000 bytes"):
        await sm.save_state("p", make_state(2, blob="x" * 20_000))
    with pytest.raises(StatePayloadError):
        await sm.save_state("p", make_state(2), messages=[{"content": "x" * 20_000}])
    with pytest.raises(StatePayloadError):
        await sm.append_messages("p", [{"content": "x" * 20_000}])
    assert await sm.load_state("p") == {**make_state(2), "version": 1}
    assert await sm.load_messages("p") == []


UNSTORABLE: list[dict[str, Any]] = [
    {"x": {1, 2}},
    {"x": object()},
    {"x": math.nan},
    {"x": {1: "int key"}},
    {"plan": {"tasks": [{"id": "s1"}, {"id": "s1"}]}},
    {"plan": {"tasks": [{"description": "no id"}]}},
    {"plan": {"tasks": ["not an object"]}},
    {"plan": {"tasks": "nope"}},
    {"plan": {"tasks": [{"id": "bad\x00id"}]}},
]


async def test_unstorable_state_is_refused(sm: StateManager) -> None:
    await sm.save_state("keep", make_state())
    for bad in UNSTORABLE:
        with pytest.raises(StatePayloadError):
            await sm.save_state("keep", bad)
    assert await sm.load_state("keep") == {**make_state(), "version": 1}
    assert [h.kind for h in await sm.get_history("keep")] == ["plan_created"]


async def test_refuses_non_objects_and_bad_messages(sm: StateManager) -> None:
    with pytest.raises(StatePayloadError):
        await sm.save_state("x", ["not", "a", "dict"])  # type: ignore[arg-type]
    with pytest.raises(StatePayloadError):
        await sm.save_state("x", {}, messages=[{"bad": {1, 2}}])
    with pytest.raises(StatePayloadError):
        await sm.save_state("x", {}, events=[{"kind": ""}])
    assert await sm.load_state("x") is None


async def test_hostile_session_ids_are_refused(sm: StateManager) -> None:
    await sm.save_state("victim", make_state())
    for bad_id in HOSTILE_IDS:
        with pytest.raises(InvalidSessionIdError):
            await sm.save_state(bad_id, make_state())
        for call in (sm.load_state, sm.delete_state, sm.load_messages, sm.get_history):
            with pytest.raises(InvalidSessionIdError):
                await call(bad_id)
        with pytest.raises(InvalidSessionIdError):
            await sm.append_messages(bad_id, [{"role": "user"}])
    assert await sm.load_state("victim") == {**make_state(), "version": 1}
    assert [s.session_id for s in await sm.list_sessions()] == ["victim"]


async def test_odd_but_valid_ids_work(sm: StateManager) -> None:
    for sid in ["a:b.c-d_e", "-", "." * 128, "OR-1-1--", "UPPER.lower:42"]:
        await sm.save_state(sid, {"id": sid})
        assert await sm.load_state(sid) == {"id": sid, "version": 1}


@pytest.mark.parametrize(
    ("table", "column", "garbage"),
    [
        ("tf_sessions", "data", "{not json"),
        ("tf_sessions", "data", "[1, 2]"),
        ("tf_sessions", "plan_meta", "nope"),
        ("tf_steps", "body", '{"truncated":'),
    ],
)
async def test_corrupt_rows_are_reported_never_replaced(
    sm: StateManager, table: str, column: str, garbage: str
) -> None:
    await sm.save_state("broken", make_state(2))
    await sm.save_state("fine", make_state(2))
    async with sm.engine.begin() as conn:
        await conn.execute(
            text(f"UPDATE {table} SET {column} = :g WHERE session_id = 'broken'"), {"g": garbage}
        )
    with pytest.raises(StateCorruptError, match="'broken'"):
        await sm.load_state("broken")
    assert await sm.load_state("fine") == {**make_state(2), "version": 1}
    assert {s.session_id for s in await sm.list_sessions()} == {"broken", "fine"}
    with pytest.raises(StateCorruptError):  # still refused: not silently replaced
        await sm.load_state("broken")


async def test_corrupt_message_is_reported(sm: StateManager) -> None:
    await sm.save_state("m", {}, messages=[{"role": "user"}])
    async with sm.engine.begin() as conn:
        await conn.execute(text("UPDATE tf_messages SET body = 'garbage' WHERE session_id = 'm'"))
    with pytest.raises(StateCorruptError, match="'m'"):
        await sm.load_messages("m")


def _random_json(rng: random.Random, depth: int = 0) -> Any:
    alphabet = "aZ9 _-\x00\x01\n\"'\\\u00e9\u4e2d\U0001f600\ud800"
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.randrange(-(2**70), 2**70)
    if kind == 3:
        return rng.choice([0.0, -0.0, 1e-300, 1.5e300, rng.uniform(-1e6, 1e6)])
    if kind in (4, 5):
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
    if kind in (6, 7):
        return [_random_json(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    return {_random_json_key(rng): _random_json(rng, depth + 1) for _ in range(rng.randrange(4))}


def _random_json_key(rng: random.Random) -> str:
    return "".join(rng.choice("ab\x00\U0001f600\u00e9") for _ in range(rng.randrange(0, 4)))


async def test_random_json_states_round_trip_exactly(sm: StateManager) -> None:
    rng = random.Random(99)
    for i in range(40):
        state = {"extra": _random_json(rng), "plan": make_state(2)["plan"]}
        state["plan"]["tasks"][1]["payload"] = _random_json(rng)
        version = await sm.save_state("rnd", state)
        loaded = await sm.load_state("rnd")
        assert loaded == {**state, "version": version}, i
        assert repr(loaded["extra"]) == repr(state["extra"])  # exact types (-0.0, ints)
