"""The claims path's cache: it reads what a fresh read gives, and only what is stored.

A claim transaction reuses the steps (and the plan) it decoded before when the stored rows
are unchanged (``taskforce.store._claims``). These tests compare it, op by op, with a fresh
read of the same database by another StateManager, and change the stored plan behind its
back (another writer, a raw SQL write) to check that a change is always seen.
"""

from __future__ import annotations

import dataclasses
import random
import sqlite3
from contextlib import closing
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from taskforce.errors import ClaimError, PlanError, StateCorruptError
from taskforce.plan import Plan, StepStatus
from taskforce.store import StateManager
from taskforce.store._codec import encode_state, rows_size
from taskforce.store._reread import _memo, written
from tests.store.conftest import Backend

TASKS: list[Any] = [
    "gather",
    {"description": "ask", "requires_approval": True},
    {"description": "parent"},
    {"description": "child one", "parent": 3},
    {"description": "child two", "parent": 3, "depends_on": [4]},
    {"description": "après «ça» 🚀", "depends_on": [1]},
    *[f"t{i}" for i in range(7, 15)],
]


async def fresh_plan(backend: Backend, sid: str) -> Plan:
    reader = backend.make(cache_size=0)
    state = await reader.load_state(sid)
    assert state is not None
    return Plan.from_state(state["plan"])


def cache_of(sm: StateManager, sid: str) -> Any:
    return sm._cache[sid][3]  # the claims path's memo: decoded steps, maybe the plan


async def test_each_claim_works_on_what_a_fresh_read_gives(shared_backend: Backend) -> None:
    sm = shared_backend.make()
    plan = Plan().replaced(TASKS)
    plan = Plan(plan.steps, plan.version, plan.revision, plan.next_id, {"team": "blue"})
    await sm.save_state("p", {"mission": "m", "plan": plan, "approved_steps": ["s2"]})
    rng = random.Random(7)
    owners = ["ann", "bob", "cid"]
    held: dict[str, str] = {}
    for turn in range(60):
        owner = rng.choice(owners)
        if owner in held and rng.random() < 0.7:
            step_id = held.pop(owner)
            if rng.random() < 0.25:
                got = await sm.release_step("p", step_id, owner, f"back {turn}")
            else:
                status = rng.choice([StepStatus.DONE, StepStatus.DONE, StepStatus.FAILED])
                note = f"note {turn} é" if turn % 4 else f"half a pair \ud800 {turn}"
                got = await sm.finish_step("p", step_id, owner, status, note)
        elif owner in held and rng.random() < 0.5:
            await sm.renew_lease("p", held[owner], owner, lease=rng.choice([30, 600]))
            got = None
        else:
            claim = await sm.claim_step("p", owner, lease=600)
            got = claim.plan if claim is not None else None
            if claim is not None:
                held[owner] = claim.step.id
        fresh = await fresh_plan(shared_backend, "p")
        if got is not None:
            assert got == fresh
        memo = cache_of(sm, "p")
        assert memo.decoded
        if memo.plan is not None:
            assert memo.plan[1] == fresh
        by_id = {s.id: s for s in fresh.steps}
        assert {k: step for k, (step, _row) in memo.items()} == by_id
    assert any(s.status is StepStatus.DONE for s in fresh.steps)


async def test_workers_taking_turns_read_each_others_steps(shared_backend: Backend) -> None:
    ann, bob = shared_backend.make(), shared_backend.make()
    await ann.save_state("p", {"mission": "m", "plan": Plan().replaced(TASKS + ["x"] * 14)})
    turns = 0
    for sm, name in [(ann, "ann"), (bob, "bob")] * 8:
        claim = await sm.claim_step("p", name, lease=600)
        if claim is None:
            break
        assert claim.plan == await fresh_plan(shared_backend, "p")
        done = await sm.finish_step("p", claim.step.id, name, note=f"{name} {turns}")
        assert done == await fresh_plan(shared_backend, "p")
        turns += 1
    assert turns == 16  # each claim began from rows the other worker had changed

    def reword(state: dict[str, Any] | None) -> tuple[dict[str, Any], list[Any]]:
        assert state is not None
        tasks = state["plan"]["tasks"]
        tasks[-1]["description"] = "last, reworded"  # same length, same structure
        tasks[-2]["depends_on"] = ["s1"]  # a new dependency: the structure changed
        return {k: v for k, v in state.items() if k != "version"}, []

    await bob.update_state("p", reword)
    claim = await ann.claim_step("p", "ann", lease=600)
    assert claim is not None and claim.plan == await fresh_plan(shared_backend, "p")
    assert claim.plan.steps[-1].description == "last, reworded"
    assert claim.plan.steps[-2].depends_on == ("s1",)

    def forward(state: dict[str, Any] | None) -> tuple[dict[str, Any], list[Any]]:
        assert state is not None
        tasks = state["plan"]["tasks"]
        tasks[-2]["depends_on"] = [tasks[-1]["id"]]  # breaks a plan-wide rule
        return {k: v for k, v in state.items() if k != "version"}, []

    await bob.update_state("p", forward)
    with pytest.raises(PlanError, match="comes later"):
        await fresh_plan(shared_backend, "p")
    with pytest.raises(PlanError, match="comes later"):
        await ann.claim_step("p", "ann", lease=600)


async def test_a_claim_sees_what_another_writer_changed(shared_backend: Backend) -> None:
    worker, lead = shared_backend.make(), shared_backend.make()
    await lead.save_state("p", {"mission": "m", "plan": Plan().replaced(["a", "b", "c"])})
    first = await worker.claim_step("p", "w")
    assert first is not None and first.step.id == "s1"
    await worker.finish_step("p", "s1", "w", note="a done")

    def replan(state: dict[str, Any] | None) -> tuple[dict[str, Any], list[Any]]:
        assert state is not None
        tasks = state["plan"]["tasks"]
        tasks[1]["description"] = "b, reworded"
        tasks[2]["requires_approval"] = True
        tasks.insert(1, {"id": "s9", "description": "urgent", "status": "PENDING", "note": None})
        return {k: v for k, v in state.items() if k != "version"}, []

    await lead.update_state("p", replan)
    second = await worker.claim_step("p", "w")
    assert second is not None and (second.step.id, second.number) == ("s9", 2)
    await worker.finish_step("p", "s9", "w")
    third = await worker.claim_step("p", "w")
    assert third is not None and third.step.description == "b, reworded"
    await worker.finish_step("p", "s2", "w")
    assert await worker.claim_step("p", "w") is None  # s3 now waits for approval
    with pytest.raises(ClaimError):
        await worker.claim_step("p", "w", step_id="s3")
    assert await worker.finish_step("p", "s3", None) == await fresh_plan(shared_backend, "p")


async def test_a_row_changed_behind_the_cache_is_read(tmp_path: Path) -> None:
    path = tmp_path / "raw.db"
    sm = StateManager(f"sqlite+aiosqlite:///{path}")
    try:
        await sm.save_state("p", {"mission": "m", "plan": Plan().replaced(["a", "b"])})
        claim = await sm.claim_step("p", "w")
        assert claim is not None
        with closing(sqlite3.connect(path)) as raw, raw:  # another program: a bad row
            raw.execute("UPDATE tf_steps SET body = '[1]' WHERE step_id = 's2'")
            raw.execute("UPDATE tf_sessions SET version = version + 1")
        with pytest.raises(StateCorruptError, match="plan step"):
            await sm.finish_step("p", "s1", "w")
        with closing(sqlite3.connect(path)) as raw, raw:
            body = '{"id":"s2","description":"b2"}'
            raw.execute("UPDATE tf_steps SET body = ? WHERE step_id = 's2'", (body,))
            raw.execute("UPDATE tf_sessions SET version = version + 1")
        plan = await sm.finish_step("p", "s1", "w")
        assert [s.description for s in plan.steps] == ["a", "b2"]
        assert plan.steps[0].status is StepStatus.DONE
    finally:
        await sm.close()


def test_a_step_that_does_not_read_back_as_written_is_decoded() -> None:
    base = Plan().replaced(["a", "b", "c"])
    stored = encode_state({"plan": base})
    read = _memo(zip(base.steps, stored.steps, strict=True))
    read.last = (base.steps, stored.steps, rows_size(stored.steps))

    done = base.with_status([1], StepStatus.DONE, "ok")
    encoded = encode_state({"plan": done}, read)
    kept = written(encoded, read, base, done)
    assert kept.plan == (encoded.plan_meta, done)  # reads back as written: the plan is kept
    assert kept["s1"][0] is done.steps[0] and kept["s2"][0] is base.steps[1]

    odd = dataclasses.replace(base.steps[1], extra=MappingProxyType({"pair": (1, 2)}))
    bent = dataclasses.replace(base, steps=(base.steps[0], odd, base.steps[2]))
    encoded = encode_state({"plan": bent}, read)
    kept = written(encoded, read, base, bent)
    assert kept.plan is None  # a tuple reads back as a list: the next claim reads afresh
    assert kept["s2"][0].extra == {"pair": [1, 2]} and kept["s2"][1] is encoded.steps[1]
    assert kept["s1"][0] is base.steps[0]
