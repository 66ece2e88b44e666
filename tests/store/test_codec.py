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


def test_a_plan_over_a_memo_of_step_dicts_reuses_only_the_equal_steps() -> None:
    # what a transaction read (dicts) remembered, then the plan re-applied to it saved as a
    # Plan value (the planner's retry after a conflict)
    plan = Plan().replaced(["a", "b é", "c", "d"]).with_status([4], StepStatus.DONE, "ok")
    read = encode_state({"plan": plan.to_state(), "mission": "m"})
    changed = plan.with_status([2], StepStatus.FAILED, "broke").edited(add=["e"], insert_at=1)
    kept = encode_state({"plan": changed, "mission": "m"}, read.memo)
    _same(kept, changed)
    rows = {r.step_id: r for r in read.steps}
    assert [r.body is rows[r.step_id].body for r in kept.steps if r.step_id in rows] == [
        True,  # s1 moved down one place: its body is reused, its position is new
        False,  # s2 changed
        True,
        True,  # s4, done with a note before: the same state
    ]
    # the memo it leaves is the plan's own: the next change encodes only what changed
    again = changed.with_status([1], StepStatus.DONE)
    _same(encode_state({"plan": again, "mission": "m"}, kept.memo), again)


def test_the_plan_row_of_a_plan_value_is_the_json_of_its_state_without_steps() -> None:
    # the usual plan (no extra keys) is written without a JSON encoder: the same text
    first = Plan.from_state({"tasks": [{"id": "s1", "description": "a"}], "next_id": 2})
    extra = Plan.from_state({**first.to_state(), "source": {"kind": "md", "n": [1, "é"]}})
    for plan in (first, first.replaced(["x", "y"]), extra, extra.with_status([1], StepStatus.DONE)):
        _same(encode_state({"plan": plan, "mission": "m"}), plan)
    assert first.revision == 0 and extra.extra and first.replaced(["x"]).revision > 0


def test_a_status_change_encoded_over_its_save_says_which_rows_changed() -> None:
    from taskforce.store._write import in_place

    plan = Plan().replaced([f"step {i}" for i in range(1, 30)])
    saved = encode_state({"plan": plan, "mission": "m"})
    assert saved.edited is None  # a new plan: every row encoded
    changed = plan.with_status([3, 17], StepStatus.DONE)
    kept = encode_state({"plan": changed, "mission": "m"}, saved.memo)
    assert kept.edited is not None and kept.edited[0] is saved.steps
    assert sorted(kept.edited[1]) == [2, 16]
    rows = in_place(saved.steps, kept.steps, kept.edited)
    assert rows == in_place(saved.steps, kept.steps) == [kept.steps[2], kept.steps[16]]
    other = encode_state({"plan": plan, "mission": "m"})  # equal rows, another tuple
    assert in_place(other.steps, kept.steps, kept.edited) == rows  # the hint is not used
