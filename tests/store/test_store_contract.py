"""The StateManager contract, identical on in-memory SQLite, an SQLite file and PostgreSQL."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest

from taskforce.errors import SessionNotFoundError, StaleStateError, UserError
from taskforce.store import SessionSummary, StateManager
from tests.store.conftest import Backend, make_state


async def test_round_trip_returns_the_same_dict_plus_version(sm: StateManager) -> None:
    state = make_state(4, done=1, extra={"nested": [1, 2.5, None, True, "😀"]}, title="T")
    state["plan"]["tasks"][2]["custom"] = {"owner": "ann"}  # unknown per-step keys are kept
    version = await sm.save_state("s-1", state)
    assert version == 1
    loaded = await sm.load_state("s-1")
    assert loaded == {**state, "version": 1}
    assert [t["id"] for t in loaded["plan"]["tasks"]] == ["s1", "s2", "s3", "s4"]


async def test_missing_session(sm: StateManager) -> None:
    assert await sm.load_state("nope") is None
    assert await sm.delete_state("nope") is False
    assert await sm.load_messages("nope") == []
    assert await sm.get_history("nope") == []
    assert await sm.list_sessions() == []


async def test_versions_and_stale_writes(sm: StateManager) -> None:
    v1 = await sm.save_state("a", make_state(3))
    state = await sm.load_state("a")
    assert state is not None
    state["plan"]["tasks"][0]["status"] = "DONE"
    v2 = await sm.save_state("a", state)  # expected version taken from state["version"]
    assert (v1, v2) == (1, 2)
    stale = copy.deepcopy(state)
    stale["plan"]["tasks"][1]["status"] = "FAILED"
    history_before = await sm.get_history("a")
    with pytest.raises(StaleStateError) as info:
        await sm.save_state("a", stale, messages=[{"role": "user", "content": "lost?"}])
    assert (info.value.expected, info.value.actual) == (1, 2)
    with pytest.raises(StaleStateError):
        await sm.save_state("a", make_state(1), expected_version=7)
    loaded = await sm.load_state("a")
    assert loaded is not None and loaded["version"] == 2
    assert loaded["plan"]["tasks"][1]["status"] == "PENDING"
    assert await sm.get_history("a") == history_before
    assert await sm.load_messages("a") == []
    assert await sm.save_state("a", make_state(2)) == 3  # no version at all: unconditional


async def test_expected_version_zero_means_create_only(sm: StateManager) -> None:
    assert await sm.save_state("new", make_state(), expected_version=0) == 1
    with pytest.raises(StaleStateError) as info:
        await sm.save_state("new", make_state(), expected_version=0)
    assert info.value.actual == 1
    with pytest.raises(StaleStateError) as info:
        await sm.save_state("other", make_state(), expected_version=3)
    assert info.value.actual is None
    assert await sm.load_state("other") is None
    with pytest.raises(UserError):
        await sm.save_state("x", make_state(), expected_version=-1)


async def test_state_without_a_plan_and_with_an_opaque_plan(sm: StateManager) -> None:
    await sm.save_state("p0", {"mission": "m"})
    await sm.save_state("p1", {"plan": None, "status": "paused"})
    await sm.save_state("p2", {"plan": {"markdown": "- [ ] a"}})
    assert await sm.load_state("p0") == {"mission": "m", "version": 1}
    assert await sm.load_state("p1") == {"plan": None, "status": "paused", "version": 1}
    assert await sm.load_state("p2") == {"plan": {"markdown": "- [ ] a"}, "version": 1}


async def test_list_sessions_newest_first_and_paginated(sm: StateManager) -> None:
    for i in range(5):
        await sm.save_state(f"s{i}", make_state(4, done=i % 5, status="running"))
    state = await sm.load_state("s1")
    assert state is not None
    state["status"] = "completed"
    await sm.save_state("s1", state)
    listed = await sm.list_sessions()
    assert [s.session_id for s in listed] == ["s1", "s4", "s3", "s2", "s0"]
    top = listed[0]
    assert isinstance(top, SessionSummary)
    assert (top.title, top.status, top.steps_done, top.steps_total, top.version) == (
        "write the report",
        "completed",
        1,
        4,
        2,
    )
    assert top.updated_at >= top.created_at and top.created_at.tzinfo is not None
    assert [s.session_id for s in await sm.list_sessions(limit=2, offset=1)] == ["s4", "s3"]
    assert await sm.list_sessions(limit=0) == []
    with pytest.raises(UserError):
        await sm.list_sessions(limit=-1)
    await sm.save_state("titled", {"title": "Title wins", "mission": "m"})
    assert (await sm.list_sessions(limit=1))[0].title == "Title wins"


async def test_messages_append_and_tail(sm: StateManager) -> None:
    with pytest.raises(SessionNotFoundError):
        await sm.append_messages("m", [{"role": "user", "content": "x"}])
    await sm.save_state("m", make_state(), messages=[{"role": "system", "content": "sys"}])
    await sm.append_messages("m", [{"role": "user", "content": f"u{i}"} for i in range(10)])
    await sm.append_messages("m", [])
    everything = await sm.load_messages("m")
    assert [m["content"] for m in everything] == ["sys", *(f"u{i}" for i in range(10))]
    assert [m["content"] for m in await sm.load_messages("m", limit=3)] == ["u7", "u8", "u9"]
    assert await sm.load_messages("m", limit=0) == []
    await sm.save_state("m2", make_state())
    await sm.append_messages("m2", [{"role": "user", "content": "other"}])
    assert len(await sm.load_messages("m")) == 11  # sessions do not mix


async def test_history_is_derived_from_the_plan_diff(sm: StateManager) -> None:
    await sm.save_state("h", make_state(3))
    state = await sm.load_state("h")
    assert state is not None
    tasks = state["plan"]["tasks"]
    tasks[0].update(status="DONE", note="found it")
    tasks[1]["description"] = "step two, reworded"
    tasks[1]["note"] = "shorter"
    del tasks[2]
    tasks.append({"id": "s4", "description": "new", "status": "PENDING", "note": None})
    await sm.save_state("h", state)  # no events: derived, in the planner's vocabulary
    history = await sm.get_history("h")
    assert [e.id for e in history] == sorted(e.id for e in history)
    got = [(e.kind, e.step_id, e.from_status, e.to_status, e.note, e.version) for e in history]
    assert got == [
        ("plan_created", None, None, None, None, 1),
        ("plan_revised", None, None, None, None, 2),
        ("step_completed", "s1", "PENDING", "DONE", "found it", 2),
        ("step_noted", "s2", None, "PENDING", "shorter", 2),
    ]
    assert history[0].data == {"steps": 3}
    assert history[1].data == {"steps": 3, "added": ["s4"], "removed": ["s3"]}
    assert history[2].data == {"step": 1}
    assert [e.kind for e in await sm.get_history("h", limit=2)] == [
        "step_completed",
        "step_noted",
    ]


async def test_events_given_are_the_whole_history_of_a_save(sm: StateManager) -> None:
    await sm.save_state("g", make_state(2), events=[{"kind": "plan_created", "steps": 2}])
    state = await sm.load_state("g")
    assert state is not None
    state["plan"]["tasks"][1]["description"] = "reworded"
    await sm.save_state("g", state, events=[{"kind": "replan", "note": "user asked"}])
    history = await sm.get_history("g")
    assert [(e.kind, e.note, e.version) for e in history] == [
        ("plan_created", None, 1),
        ("replan", "user asked", 2),
    ]


async def test_delete_removes_everything(sm: StateManager) -> None:
    await sm.save_state("d", make_state(), messages=[{"role": "user", "content": "x"}])
    await sm.save_state("keep", make_state())
    assert await sm.delete_state("d") is True
    assert await sm.load_state("d") is None
    assert await sm.load_messages("d") == []
    assert await sm.get_history("d") == []
    assert [s.session_id for s in await sm.list_sessions()] == ["keep"]
    assert await sm.save_state("d", make_state(1)) == 1  # a fresh start
    assert len((await sm.load_state("d"))["plan"]["tasks"]) == 1  # type: ignore[index]


async def _increment(sm: StateManager, sid: str, times: int) -> int:
    stale = 0
    for _ in range(times):
        while True:
            state = await sm.load_state(sid)
            assert state is not None
            state["counter"] += 1
            try:
                await sm.save_state(sid, state)
                break
            except StaleStateError:
                stale += 1
    return stale


async def test_concurrent_increments_lose_nothing(backend: Backend) -> None:
    managers = [backend.make() for _ in range(3)] if backend.shared else [backend.make()]
    await managers[0].save_state("c", {"counter": 0})
    workers = [_increment(managers[i % len(managers)], "c", 10) for i in range(6)]
    await asyncio.gather(*workers)
    final = await managers[0].load_state("c")
    assert final is not None and final["counter"] == 60 and final["version"] == 61


async def test_25_concurrent_first_writers_on_a_new_database(backend: Backend) -> None:
    count = 25
    managers = (
        [backend.make() for _ in range(count)] if backend.shared else [backend.make()] * count
    )

    async def create(i: int) -> int | None:
        try:
            return await managers[i].save_state("first", {"writer": i}, expected_version=0)
        except StaleStateError:
            return None

    results = await asyncio.gather(*(create(i) for i in range(count)))
    winners = [i for i, v in enumerate(results) if v == 1]
    assert len(winners) == 1 and results.count(None) == count - 1
    assert await managers[0].load_state("first") == {"writer": winners[0], "version": 1}
    versions = await asyncio.gather(
        *(managers[i].save_state(f"own-{i}", make_state(2)) for i in range(count))
    )
    assert versions == [1] * count
    assert len(await managers[0].list_sessions(limit=100)) == count + 1


async def test_two_agents_see_each_others_writes(shared_backend: Backend) -> None:
    a, b = shared_backend.make(), shared_backend.make()
    await a.save_state("s", make_state(3))
    state_a = await a.load_state("s")
    state_b = await b.load_state("s")
    assert state_a is not None and state_b is not None
    state_b["plan"]["tasks"][1]["status"] = "DONE"
    await b.save_state("s", state_b)
    state_a["plan"]["tasks"][0]["status"] = "DONE"
    with pytest.raises(StaleStateError):
        await a.save_state("s", state_a)
    # b deletes and recreates the session: a's cached plan must not be trusted
    await b.delete_state("s")
    await b.save_state("s", make_state(5))
    await b.save_state("s", make_state(5))
    fresh = await a.load_state("s")
    assert fresh is not None and fresh["version"] == 2
    await b.delete_state("s")
    await b.save_state("s", make_state(2))
    await b.save_state("s", make_state(2, done=2))
    fresh["plan"]["tasks"][4]["status"] = "DONE"
    await a.save_state("s", fresh, expected_version=2)  # same version number, new incarnation
    loaded = await b.load_state("s")
    assert loaded is not None
    assert [t["status"] for t in loaded["plan"]["tasks"]] == ["PENDING"] * 4 + ["DONE"]


async def test_type_exact_changes_are_not_skipped(sm: StateManager) -> None:
    """Unchanged steps are recognised without re-encoding; 1 -> True is still a change."""
    state = make_state(3)
    state["plan"]["tasks"][0]["weight"] = 1
    state["version"] = await sm.save_state("t", state)
    state["plan"]["tasks"][0]["weight"] = True
    state["version"] = await sm.save_state("t", state)
    assert (await sm.load_state("t"))["plan"]["tasks"][0]["weight"] is True  # type: ignore[index]
    state["plan"]["tasks"][0]["weight"] = 1.0
    state["plan"]["tasks"][1]["tags"] = ("a", "b")
    state["version"] = await sm.save_state("t", state)
    loaded = await sm.load_state("t")
    assert loaded is not None
    assert type(loaded["plan"]["tasks"][0]["weight"]) is float
    assert loaded["plan"]["tasks"][1]["tags"] == ["a", "b"]  # JSON has no tuples
    loaded["plan"]["tasks"].reverse()  # reordering keeps every step, in the new order
    await sm.save_state("t", loaded)
    again = await sm.load_state("t")
    assert again is not None and [t["id"] for t in again["plan"]["tasks"]] == ["s3", "s2", "s1"]


async def test_explicit_step_events_are_not_logged_twice(sm: StateManager) -> None:
    await sm.save_state("e", make_state(2))
    state = await sm.load_state("e")
    assert state is not None
    first, _ = state["plan"]["tasks"]
    first.update(status="DONE", note="ok", started_at="2026-01-01T00:00:00Z")
    first["completed_at"] = "2026-01-01T00:00:05Z"
    event = {"kind": "step_completed", "step_id": first["id"], "from_status": "PENDING",
             "to_status": "DONE", "note": "ok", "duration_s": 5.0}  # fmt: skip
    await sm.save_state("e", state, events=[event])
    later = [(h.kind, h.step_id) for h in (await sm.get_history("e")) if h.version == 2]
    assert later == [("step_completed", first["id"])]
    completed = [h for h in await sm.get_history("e") if h.kind == "step_completed"]
    assert completed[0].data == {"duration_s": 5.0} and completed[0].to_status == "DONE"


async def test_update_state_reads_changes_and_saves_in_one_transaction(
    backend: Backend,
) -> None:
    managers = [backend.make() for _ in range(3)] if backend.shared else [backend.make()]

    def increment(current: dict[str, Any] | None) -> tuple[dict[str, Any], list[Any]]:
        state = {k: v for k, v in (current or {"counter": 0}).items() if k != "version"}
        state["counter"] += 1
        return state, [{"kind": "counted", "to": state["counter"]}]

    await asyncio.gather(
        *(managers[i % len(managers)].update_state("u", increment) for i in range(24))
    )
    state = await managers[0].load_state("u")
    assert state is not None and state["counter"] == 24 and state["version"] == 24
    assert len(await managers[0].get_history("u")) == 24

    def refuse(current: dict[str, Any] | None) -> tuple[dict[str, Any], list[Any]]:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        await managers[0].update_state("u", refuse)
    assert await managers[0].load_state("u") == state  # rolled back, nothing written


async def test_a_save_behind_another_writer_is_refused_and_writes_nothing(
    shared_backend: Backend,
) -> None:
    mine, other = shared_backend.make(), shared_backend.make()
    await mine.save_state("r", make_state(3))  # mine remembers version 1: its bump misses
    state = await other.load_state("r")
    assert state is not None
    state["plan"]["tasks"][0]["status"] = "DONE"
    assert await other.save_state("r", state) == 2
    late = make_state(3)
    late["plan"]["tasks"][1]["status"] = "FAILED"
    history = await other.get_history("r")
    with pytest.raises(StaleStateError) as info:  # on PostgreSQL its one statement misses
        await mine.save_state("r", late, expected_version=1)
    assert (info.value.expected, info.value.actual) == (1, 2)
    with pytest.raises(StaleStateError):  # with messages (and its cache dropped): the long way
        await mine.save_state("r", late, expected_version=1, messages=[{"content": "lost?"}])
    assert await other.load_state("r") == {**state, "version": 2}
    assert await other.load_messages("r") == []
    assert await other.get_history("r") == history
    # a session deleted meanwhile: refused too, nothing created
    await mine.save_state("d", make_state(2))
    assert await other.delete_state("d")
    with pytest.raises(StaleStateError) as info:
        await mine.save_state("d", make_state(2), expected_version=1)
    assert (info.value.expected, info.value.actual) == (1, None)
    assert await other.load_state("d") is None


async def test_an_unconditional_save_over_a_moved_cache_is_written_once(
    shared_backend: Backend,
) -> None:
    mine, other = shared_backend.make(), shared_backend.make()
    await mine.save_state("u", make_state(3))  # mine remembers version 1
    state = await other.load_state("u")
    assert state is not None
    state["plan"]["tasks"][0]["status"] = "DONE"
    await other.save_state("u", state)
    final = make_state(3)
    final["plan"]["tasks"][2]["status"] = "DONE"
    assert await mine.save_state("u", final) == 3  # no version: its cached bump misses
    assert await other.load_state("u") == {**final, "version": 3}
    recorded = [(e.kind, e.step_id) for e in await other.get_history("u") if e.version == 3]
    assert sorted(recorded) == [("step_completed", "s3"), ("step_reopened", "s1")]
