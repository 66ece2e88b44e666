"""A PlanEdit given to update_state: the plan it gets is what a fresh read gives.

The StateManager hands a :class:`~taskforce.store.PlanEdit` the stored plan read through
its cache (``_update.plan_body``): the cached plan itself when the cached version is the
stored one, otherwise the stored rows, decoding only those that changed. These tests
compare what the edit gets with a fresh read by another manager, while other writers
(another manager, a raw SQL write) change the plan behind the cache's back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from taskforce.errors import StaleStateError, StateCorruptError
from taskforce.plan import Plan, StepStatus
from taskforce.plan import state as state_module
from taskforce.store import MemoryStore, PlanEdit, StateManager
from taskforce.tools.planner import PlannerTool
from tests.store.conftest import Backend

Edit = Callable[[dict[str, Any], Plan], tuple[Plan, Sequence[Mapping[str, Any]]]]


class Recording:
    """A PlanEdit applying `edit`; it records what it was given, and how."""

    def __init__(self, edit: Edit) -> None:
        self.edit = edit
        self.given: list[tuple[str, dict[str, Any], Plan]] = []

    def __call__(self, current: dict[str, Any] | None) -> tuple[dict[str, Any], Any]:
        state = {k: v for k, v in (current or {}).items() if k not in ("version", "plan")}
        plan = Plan.from_state((current or {}).get("plan"))
        self.given.append(("state", state, plan))
        new, events = self.edit(state, plan)
        return {**state, "plan": new}, events

    def edit_plan(self, state: dict[str, Any], plan: Plan) -> tuple[Plan, Any]:
        self.given.append(("plan", state, plan))
        return self.edit(state, plan)


def reword(index: int, text: str) -> Edit:
    return lambda _state, plan: (plan.edited(reword=(index, text)), [])


async def fresh(backend: Backend, sid: str) -> tuple[dict[str, Any], Plan]:
    state = await backend.make(cache_size=0).load_state(sid)
    assert state is not None
    return state, Plan.from_state(state["plan"])


def test_the_planner_change_is_a_plan_edit() -> None:
    assert isinstance(Recording(reword(1, "x")), PlanEdit)
    assert not isinstance(lambda current: (current, []), PlanEdit)


async def test_each_edit_gets_what_a_fresh_read_gives(shared_backend: Backend) -> None:
    ann, bob = shared_backend.make(), shared_backend.make()
    plan = Plan().replaced([f"t{i}" for i in range(1, 21)])
    await ann.save_state("p", {"mission": "m", "team": ["ann"], "plan": plan})
    expected = {s.id: s.description for s in plan.steps}
    for turn in range(12):
        if turn % 3:  # bob changes a step behind ann's cache (one or two versions)
            for k in range(turn % 3):
                text = f"bob {turn}.{k}"
                await bob.update_state("p", Recording(reword(2 + (turn + k) % 5, text)))
                expected[f"s{2 + (turn + k) % 5}"] = text
        state, plan = await fresh(shared_backend, "p")
        edit = Recording(reword(10 + turn % 5, f"ann {turn}"))
        version = await ann.update_state("p", edit)
        assert version == state["version"] + 1
        how, given_state, given = edit.given[-1]
        assert how == "plan"
        assert given == plan
        assert given_state == {"mission": "m", "team": ["ann"]}
        expected[f"s{10 + turn % 5}"] = f"ann {turn}"
        _, now = await fresh(shared_backend, "p")
        assert {s.id: s.description for s in now.steps} == expected  # nothing lost
        assert ann._cache["p"][3].plan == (ann._cache["p"][3].plan[0], now)


async def test_the_cached_plan_is_used_only_at_the_stored_version(
    shared_backend: Backend,
) -> None:
    ann, bob = shared_backend.make(), shared_backend.make()
    await ann.save_state("p", {"plan": Plan().replaced(["a", "b", "c"])})
    first = Recording(reword(1, "a1"))
    await ann.update_state("p", first)
    made = ann._cache["p"][3].plan[1]
    assert [s.description for s in made.steps] == ["a1", "b", "c"]

    second = Recording(reword(2, "b1"))
    await ann.update_state("p", second)  # nothing in between: ann's own plan, not re-read
    assert second.given[-1][2] is made

    await bob.update_state("p", Recording(reword(3, "c by bob")))
    stored = (await fresh(shared_backend, "p"))[1]
    third = Recording(reword(1, "a2"))
    await ann.update_state("p", third)  # bob moved the version: the stored rows are read
    got = third.given[-1][2]
    assert got == stored
    assert [s.description for s in got.steps] == ["a1", "b1", "c by bob"]


async def test_a_replan_elsewhere_decodes_only_the_rows_it_changed(
    shared_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob = shared_backend.make(), shared_backend.make()
    await ann.save_state("p", {"plan": Plan().replaced([f"t{i}" for i in range(1, 13)])})
    await ann.update_state("p", Recording(reword(1, "a1")))
    revision = ann._cache["p"][3].plan[1].revision
    await bob.update_state("p", Recording(reword(7, "t7 by bob")))
    stored = (await fresh(shared_backend, "p"))[1]
    assert stored.revision > revision  # a replan: the plan-level JSON changed too
    checked: list[int] = []
    check = state_module.check_plan_state

    def counting(state: dict[str, Any]) -> None:
        checked.append(len(state["tasks"]))
        check(state)

    monkeypatch.setattr(state_module, "check_plan_state", counting)
    edit = Recording(reword(2, "a2"))
    await ann.update_state("p", edit)
    assert edit.given[-1][2] == stored
    assert not any(checked)  # the plan-wide checks were not run over every step again


async def test_a_row_changed_behind_the_cache_is_read(tmp_path: Path) -> None:
    path = tmp_path / "raw.db"
    sm = StateManager(f"sqlite+aiosqlite:///{path}")
    try:
        await sm.save_state("p", {"plan": Plan().replaced(["a", "b"])})
        await sm.update_state("p", Recording(reword(1, "a1")))
        with closing(sqlite3.connect(path)) as raw, raw:  # another program: a new body
            body = '{"id":"s2","description":"b2","status":"DONE"}'
            raw.execute("UPDATE tf_steps SET body = ? WHERE step_id = 's2'", (body,))
            raw.execute("UPDATE tf_sessions SET version = version + 1")
        edit = Recording(reword(1, "a2"))
        await sm.update_state("p", edit)
        got = edit.given[-1][2]
        assert [(s.description, s.status) for s in got.steps] == [
            ("a1", StepStatus.PENDING),
            ("b2", StepStatus.DONE),
        ]
        with closing(sqlite3.connect(path)) as raw, raw:  # a bad row: refused, as a read is
            raw.execute("UPDATE tf_steps SET body = '[1]' WHERE step_id = 's2'")
            raw.execute("UPDATE tf_sessions SET version = version + 1")
        with pytest.raises(StateCorruptError, match="plan step"):
            await sm.update_state("p", Recording(reword(1, "a3")))
    finally:
        await sm.close()


async def test_a_plan_edit_creates_a_session(backend: Backend) -> None:
    sm = backend.make()
    edit = Recording(lambda _state, plan: (plan.replaced(["first"]), []))
    assert await sm.update_state("new", edit) == 1
    assert edit.given == [("plan", {}, Plan())]
    state = await sm.load_state("new")
    assert state is not None and state["plan"]["tasks"][0]["description"] == "first"


async def test_a_refused_save_keeps_the_cache_entry(shared_backend: Backend) -> None:
    ann, bob = shared_backend.make(), shared_backend.make()
    await ann.save_state("p", {"plan": Plan().replaced(["a", "b"])})
    await ann.update_state("p", Recording(reword(1, "a1")))
    entry = ann._cache["p"]
    await bob.update_state("p", Recording(reword(2, "b1")))
    plan = entry[3].plan[1]
    with pytest.raises(StaleStateError):
        await ann.save_state("p", {"plan": plan.edited(reword=(1, "a2"))}, entry[1])
    assert ann._cache["p"] is entry  # it still says what version entry[1] was
    edit = Recording(reword(1, "a2"))
    await ann.update_state("p", edit)
    got = edit.given[-1][2]
    assert got.steps[0] is plan.steps[0]  # unchanged row: the cached step, not decoded
    assert [s.description for s in got.steps] == ["a1", "b1"]


async def test_a_save_after_an_edit_keeps_the_decoded_plan(shared_backend: Backend) -> None:
    sm = shared_backend.make()
    await sm.save_state("p", {"plan": Plan().replaced(["a", "b", "c"])})
    await sm.update_state("p", Recording(reword(1, "a1")))
    plan = sm._cache["p"][3].plan[1]
    done = plan.with_status([2], StepStatus.DONE, "ok")
    await sm.save_state("p", {"plan": done})
    memo = sm._cache["p"][3]
    assert memo.decoded and memo.plan is not None and memo.plan[1] is done
    assert memo.plan[1] == (await fresh(shared_backend, "p"))[1]


async def test_planners_on_a_memory_store_reapply_through_the_state() -> None:
    store = MemoryStore()
    one = PlannerTool(state_manager=store, session_id="p")
    two = PlannerTool(state_manager=store, session_id="p")
    assert (await one.execute(action="create_plan", tasks=["a", "b"]))["success"]
    await two.execute(action="read_plan")
    assert (await one.execute(action="mark_done", step_index=1))["success"]
    result = await two.execute(action="update_plan", step_index=[2], text="b, reworded")
    assert result["success"], result  # stale, re-applied: called with the stored state
    state = await store.load_state("p")
    assert state is not None
    tasks = state["plan"]["tasks"]
    assert [(t["description"], t["status"]) for t in tasks] == [
        ("a", "DONE"),
        ("b, reworded", "PENDING"),
    ]
