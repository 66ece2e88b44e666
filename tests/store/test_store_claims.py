"""Claims in the store: claim, renew, finish, release and lapsed leases, on every backend."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from taskforce.errors import ClaimError, ConfigurationError, SessionNotFoundError
from taskforce.plan import Plan, StepStatus
from taskforce.store import StateManager
from tests.store.conftest import Backend


async def seed(sm: StateManager, sid: str = "team", tasks: list[Any] | None = None) -> Plan:
    plan = Plan().replaced(tasks or ["a", "b", {"description": "c", "depends_on": [1, 2]}])
    await sm.save_state(sid, {"mission": "m", "plan": plan.to_state()})
    return plan


async def kinds(sm: StateManager, sid: str = "team") -> list[tuple[str, str | None]]:
    return [(h.kind, h.step_id) for h in await sm.get_history(sid)]


async def test_claim_renew_finish(sm: StateManager) -> None:
    await seed(sm)
    first = await sm.claim_step("team", "alice", lease=30)
    assert first is not None and (first.number, first.step.owner) == (1, "alice")
    assert first.step.lease_until is not None and not first.resumed
    second = await sm.claim_step("team", "bob", lease=30)
    assert second is not None and second.number == 2
    assert await sm.claim_step("team", "carol") is None  # step 3 waits for 1 and 2
    again = await sm.claim_step("team", "alice", lease=30)
    assert again is not None and again.resumed and again.number == 1
    until = await sm.renew_lease("team", "s1", "alice", lease=90)
    assert until > first.step.lease_until
    plan = await sm.finish_step("team", "s1", "alice", "DONE", "a is 42")
    assert plan.steps[0].status is StepStatus.DONE and plan.steps[0].note == "a is 42"
    await sm.finish_step("team", "s2", "bob", note="b is 7")
    third = await sm.claim_step("team", "carol")
    assert third is not None and third.number == 3
    assert [s.note for s in third.context()] == ["a is 42", "b is 7"]
    await sm.finish_step("team", "s3", "carol", note="c")
    state = await sm.load_state("team")
    assert state is not None
    assert [(t["status"], t["owner"]) for t in state["plan"]["tasks"]] == [
        ("DONE", "alice"),
        ("DONE", "bob"),
        ("DONE", "carol"),
    ]
    history = await kinds(sm)
    assert history.count(("step_started", "s1")) == 1
    assert ("step_completed", "s3") in history and ("plan_completed", None) in history


async def test_others_get_a_clear_error(sm: StateManager) -> None:
    await seed(sm)
    await sm.claim_step("team", "alice")
    before = await sm.load_state("team")
    with pytest.raises(ClaimError, match="step 1 is held by alice") as held:
        await sm.finish_step("team", "s1", "bob", note="mine")
    assert held.value.error_type == "held"
    with pytest.raises(ClaimError, match="no longer yours") as lost:
        await sm.renew_lease("team", "s1", "bob")
    assert lost.value.error_type == "claim_lost"
    with pytest.raises(ClaimError, match="not yours to release"):
        await sm.release_step("team", "s1", "bob")
    with pytest.raises(ClaimError, match="blocked by step 1, 2"):
        await sm.finish_step("team", "s3", "bob")
    with pytest.raises(ClaimError, match="no step 'zz'"):
        await sm.finish_step("team", "zz", "bob")
    assert await sm.load_state("team") == before  # nothing changed, not even the version
    with pytest.raises(SessionNotFoundError):
        await sm.claim_step("nobody", "alice")
    with pytest.raises(ConfigurationError, match="bad owner name"):
        await sm.claim_step("team", "two words")
    with pytest.raises(ConfigurationError, match="lease must be"):
        await sm.claim_step("team", "alice", lease=0)


async def test_a_human_finishes_or_releases_anyones_step(sm: StateManager) -> None:
    await seed(sm)
    await sm.claim_step("team", "alice")
    plan = await sm.finish_step("team", "s1", None, "SKIPPED", "not needed after all")
    assert plan.steps[0].status is StepStatus.SKIPPED and plan.steps[0].owner == "alice"
    entry = next(h for h in await sm.get_history("team") if h.kind == "step_skipped")
    assert entry.data["by"] == "human" and entry.data["owner"] == "alice"
    await sm.claim_step("team", "bob")
    plan = await sm.release_step("team", "s2", None, "reassigning")
    assert plan.steps[1].status is StepStatus.PENDING and plan.steps[1].note == "reassigning"
    assert ("step_released", "s2") in await kinds(sm)


async def test_a_lapsed_lease_is_taken_back_with_the_record(sm: StateManager) -> None:
    await seed(sm, tasks=["only"])
    await sm.claim_step("team", "alice", lease=0.05)
    # alice crashes here, holding step 1
    await asyncio.sleep(0.2)  # waits for the lease to run out; nothing is timed
    taken = await sm.claim_step("team", "bob", lease=30)
    assert taken is not None and taken.number == 1 and taken.step.owner == "bob"
    history = await sm.get_history("team")
    interrupted = [h for h in history if h.kind == "step_interrupted"]
    assert len(interrupted) == 1 and interrupted[0].data["owner"] == "alice"
    assert interrupted[0].from_status == "IN_PROGRESS" and interrupted[0].to_status == "PENDING"
    with pytest.raises(ClaimError, match="no longer yours"):
        await sm.renew_lease("team", "s1", "alice")


async def test_expire_leases_on_its_own(sm: StateManager) -> None:
    await seed(sm)
    await sm.claim_step("team", "bob", lease=600)
    await sm.claim_step("team", "alice", lease=0.05)
    await asyncio.sleep(0.2)
    assert await sm.expire_leases("team") == 1
    assert await sm.expire_leases("team") == 0
    state = await sm.load_state("team")
    assert state is not None
    assert [t["status"] for t in state["plan"]["tasks"]] == ["IN_PROGRESS", "PENDING", "PENDING"]


async def test_steps_awaiting_approval_are_not_claimed(sm: StateManager) -> None:
    await seed(sm, tasks=[{"description": "deploy", "requires_approval": True}])
    assert await sm.claim_step("team", "alice") is None
    state = await sm.load_state("team")
    assert state is not None
    state["approved_steps"] = ["s1"]
    await sm.save_state("team", state)
    got = await sm.claim_step("team", "alice")
    assert got is not None and got.number == 1


async def test_claims_are_announced_on_the_change_feed(shared_backend: Backend) -> None:
    sm, watcher = shared_backend.make(), shared_backend.make()
    await seed(sm)
    feed = watcher.changes("team", known={"team": 1}, poll_interval=0.05)
    waiting = asyncio.ensure_future(anext(feed))
    await sm.claim_step("team", "alice")
    change = await asyncio.wait_for(waiting, 60)
    assert change.version == 2
    await feed.aclose()


async def test_concurrent_claims_never_share_a_step(shared_backend: Backend) -> None:
    managers = [shared_backend.make() for _ in range(6)]
    await seed(managers[0], tasks=[f"t{i}" for i in range(12)])

    async def worker(sm: StateManager, name: str) -> list[str]:
        got = []
        while (claim := await sm.claim_step("team", name)) is not None:
            got.append(claim.step.id)
            await sm.finish_step("team", claim.step.id, name, note=f"by {name}")
        return got

    results = await asyncio.gather(*(worker(m, f"w{i}") for i, m in enumerate(managers)))
    done = [sid for got in results for sid in got]
    assert sorted(done, key=lambda s: int(s[1:])) == [f"s{i}" for i in range(1, 13)]
    state = await managers[0].load_state("team")
    assert state is not None
    assert all(t["status"] == "DONE" for t in state["plan"]["tasks"])
