"""The state codec: a plan encoded from the memo of an earlier encode gives exactly the rows
of the same plan encoded from scratch, whatever path it took."""

from __future__ import annotations

import random

from taskforce.errors import PlanError
from taskforce.plan import Plan, StepStatus
from taskforce.store._codec import EncodedState, Memo, encode_state


def _same(kept: EncodedState, plan: Plan) -> None:
    fresh = encode_state({"plan": plan.to_state(), "mission": "m"})
    assert kept.steps == fresh.steps  # ids, positions, status labels and JSON bodies
    assert (kept.plan_meta, kept.nbytes, kept.steps_done) == (
        fresh.plan_meta,
        fresh.nbytes,
        fresh.steps_done,
    )


def test_plans_encoded_from_earlier_memos_match_fresh_encodes() -> None:
    rng = random.Random(7)
    plan = Plan().replaced([f"step é {i}" for i in range(1, 60)])  # non-ASCII bodies too
    memo: Memo | None = None
    encoded = 0
    for turn in range(300):
        try:
            if rng.random() < 0.85:
                status = rng.choice(list(StepStatus))
                picks = rng.sample(range(1, len(plan.steps) + 1), k=rng.choice([1, 2]))
                plan = plan.with_status(picks, status, f"note {turn}")
            else:
                plan = plan.edited(add=[f"added {turn}"], insert_at=rng.randint(1, 5))
        except PlanError:
            continue
        kept = encode_state({"plan": plan, "mission": "m"}, memo)
        _same(kept, plan)
        memo, encoded = kept.memo, encoded + 1
    assert encoded > 150


def test_a_memo_of_another_branch_is_not_taken_for_this_one() -> None:
    base = Plan().replaced(["a", "b", "c"])
    first = encode_state({"plan": base, "mission": "m"})
    done_a = base.with_status([1], StepStatus.DONE)
    after_a = encode_state({"plan": done_a, "mission": "m"}, first.memo)
    done_b = base.with_status([2], StepStatus.DONE)  # made from base, not from done_a
    kept = encode_state({"plan": done_b, "mission": "m"}, after_a.memo)
    _same(kept, done_b)
    assert [r.status for r in kept.steps] == ["PENDING", "DONE", "PENDING"]
