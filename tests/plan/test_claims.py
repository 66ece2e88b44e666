"""Claims with leases on the plan value: claim, renew, finish, release, expiry, ownership."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from taskforce.errors import ConfigurationError, PlanError
from taskforce.plan import Plan, StepStatus
from taskforce.plan.claims import claim, expire, finish, release, renew
from taskforce.plan.step import AGENT, HUMAN, Actor, check_owner

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
ALICE, BOB = Actor("alice", 30.0), Actor("bob", 30.0)


def plan() -> Plan:
    return Plan().replaced(["a", "b", {"description": "c", "depends_on": [1, 2]}])


def test_claims_take_runnable_steps_in_order_one_per_owner() -> None:
    first = claim(plan(), ALICE, T0)
    assert first.claim is not None and first.claim.number == 1
    assert first.claim.step.owner == "alice"
    assert first.claim.step.lease_until == T0 + timedelta(seconds=30)
    assert [e["kind"] for e in first.events] == ["step_started"]
    assert first.events[0]["owner"] == "alice"
    second = claim(first.plan, BOB, T0)
    assert second.claim is not None and second.claim.number == 2
    nothing = claim(second.plan, Actor("carol", 30.0), T0)
    assert nothing.claim is None and nothing.plan is second.plan  # step 3 waits for 1 and 2
    again = claim(second.plan, ALICE, T0 + timedelta(seconds=10))
    assert again.claim is not None and again.claim.resumed and again.claim.number == 1
    assert again.claim.step.lease_until == T0 + timedelta(seconds=40)
    assert second.plan.render().splitlines()[:2] == [
        "- [ ] 1. a (in progress by alice)",
        "- [ ] 2. b (in progress by bob)",
    ]


def test_only_the_owner_or_a_human_finishes_a_held_step() -> None:
    held = claim(plan(), ALICE, T0).plan
    s1 = held.steps[0].id
    with pytest.raises(PlanError, match="step 1 is held by alice: only its owner"):
        finish(held, s1, BOB, StepStatus.DONE, "mine now", T0)
    with pytest.raises(PlanError, match="held by alice"):
        held.with_status([1], StepStatus.DONE, now=T0, actor=AGENT)
    done = finish(held, s1, ALICE, StepStatus.DONE, "result: 42", T0)
    step = done.plan.steps[0]
    assert (step.status, step.note, step.owner, step.lease_until) == (
        StepStatus.DONE,
        "result: 42",
        "alice",
        None,
    )
    by_human = finish(held, s1, HUMAN, StepStatus.FAILED, "stopped by hand", T0)
    assert by_human.plan.steps[0].status is StepStatus.FAILED
    assert by_human.plan.steps[0].owner == "alice"  # the record of who held it stays


def test_an_expired_lease_puts_the_step_back_with_the_record() -> None:
    held = finish_note(claim(plan(), ALICE, T0).plan)
    later = T0 + timedelta(seconds=31)
    same, nothing = expire(held, T0 + timedelta(seconds=29))
    assert same is held and nothing == []
    after = claim(held, BOB, later)
    assert after.claim is not None and after.claim.number == 1  # bob takes alice's step
    kinds = [e["kind"] for e in after.events]
    assert kinds == ["step_interrupted", "step_started"]
    interrupted = after.events[0]
    assert interrupted["owner"] == "alice" and interrupted["note"] == "half done"
    assert after.plan.steps[0].note == "half done" and after.plan.steps[0].owner == "bob"
    with pytest.raises(PlanError, match="no longer yours \\(held by bob\\)") as lost:
        renew(after.plan, after.plan.steps[0].id, ALICE, later)
    assert lost.value.error_type == "claim_lost"


def finish_note(p: Plan) -> Plan:
    return p.with_status([1], StepStatus.IN_PROGRESS, "half done", now=T0, actor=ALICE)


def test_release_gives_the_step_back() -> None:
    held = claim(plan(), ALICE, T0).plan
    out = release(held, held.steps[0].id, ALICE, T0, "cannot reach the server")
    assert out.plan.steps[0].status is StepStatus.PENDING and out.plan.steps[0].owner is None
    assert [e["kind"] for e in out.events] == ["step_released"]
    with pytest.raises(PlanError, match="not yours to release"):
        release(held, held.steps[0].id, BOB, T0, None)


def test_claiming_a_given_step_and_approvals() -> None:
    gated = Plan().replaced([{"description": "deploy", "requires_approval": True}, "other"])
    first = claim(gated, ALICE, T0)
    assert first.claim is not None and first.claim.number == 2  # step 1 waits for a human
    with pytest.raises(PlanError, match="waits for a human's approval"):
        claim(gated, ALICE, T0, step_id=gated.steps[0].id)
    ok = claim(gated, ALICE, T0, step_id=gated.steps[0].id, approved={gated.steps[0].id})
    assert ok.claim is not None and ok.claim.number == 1
    with pytest.raises(PlanError, match="only a pending step can be claimed"):
        claim(ok.plan, BOB, T0, step_id=gated.steps[0].id)
    with pytest.raises(PlanError, match="no step 'zz'"):
        claim(gated, ALICE, T0, step_id="zz")
    with pytest.raises(PlanError, match="named worker with a lease"):
        claim(gated, Actor("x"), T0)


def test_single_agent_behaviour_is_unchanged() -> None:
    one = plan().with_status([1], StepStatus.IN_PROGRESS, now=T0)
    assert one.steps[0].owner is None and one.steps[0].lease_until is None
    with pytest.raises(PlanError, match="step 1 is already IN_PROGRESS"):
        one.with_status([2], StepStatus.IN_PROGRESS, now=T0)
    # a worker's step does not count against the agent's one step in progress
    both = claim(plan(), ALICE, T0).plan.with_status([2], StepStatus.IN_PROGRESS, now=T0)
    assert [s.owner for s in both.steps[:2]] == ["alice", None]


def test_owner_names_are_checked() -> None:
    assert check_owner("worker-1@host") == "worker-1@host"
    for bad in ("", "-x", "a b", "x" * 65, "a(b)", None):
        with pytest.raises(ConfigurationError, match="bad owner name"):
            check_owner(bad)
