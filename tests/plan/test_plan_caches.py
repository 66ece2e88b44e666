"""A derived plan reuses its parent's rendered lines and counts: always the same answers.

Each change below is applied to a plan that was (or was not) rendered; the derived plan's
checklist, progress and status must equal those of the same steps built from scratch.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

from taskforce.errors import PlanError
from taskforce.plan import Plan, StepStatus, lifecycle_events
from taskforce.plan.checklist import render


def fresh(plan: Plan) -> Plan:
    """The same plan with no history (nothing cached, nothing to reuse)."""
    return Plan(plan.steps, plan.version, plan.revision, plan.next_id, plan.extra)


def test_derived_plans_render_and_count_like_fresh_ones() -> None:
    rng = random.Random(15)
    tasks = [
        {"description": f"step <{i}>", "depends_on": rng.sample(range(1, i), k=min(i - 1, 2))}
        for i in range(1, 41)
    ]
    plan = Plan().replaced(tasks)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    changed = 0
    for turn in range(400):
        if rng.random() < 0.7:
            plan.render()  # a rendered parent passes its lines on
        n = len(plan.steps)
        try:
            if rng.random() < 0.85:
                status = rng.choice(list(StepStatus))
                picks = rng.sample(range(1, n + 1), k=rng.choice([1, 1, 2]))
                plan = plan.with_status(picks, status, f"note {turn}", now=now)
            else:
                plan = plan.edited(add=[f"added {turn}"], insert_at=rng.randint(1, n + 1))
        except PlanError:
            continue  # refused changes leave nothing to compare
        changed += 1
        same = fresh(plan)
        assert plan.render() == render(same) == same.render()
        assert plan._line_keys == same._line_keys  # what the next change's lines rely on
        assert plan.progress() == (sum(s.status.is_finished for s in plan.steps), n_steps(plan))
        assert plan.status() == same.status()
        assert [plan.blocked_by(s) for s in plan.steps] == [same.blocked_by(s) for s in same.steps]
        assert plan.runnable_steps() == same.runnable_steps()
    assert changed > 200


def n_steps(plan: Plan) -> int:
    return len(plan.steps)


def test_marking_one_step_reuses_every_other_line() -> None:
    plan = Plan().replaced([f"step {i}" for i in range(1, 101)])
    before = plan.render().split("\n")
    after = plan.with_status([50], StepStatus.DONE).render().split("\n")
    assert [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b] == [49]
    assert plan.with_status([50], StepStatus.DONE)._lines[0] is plan._lines[0]


def test_status_changes_in_a_tree_render_count_and_report_like_fresh_plans() -> None:
    rng = random.Random(16)
    tasks: list[dict[str, object]] = []
    chain: list[int] = []  # the previous step and its ancestors: where a step may nest
    for i in range(1, 31):
        task: dict[str, object] = {"description": f"step {i}"}
        depth = rng.randint(0, min(len(chain), 3))  # a sub-step of chain[depth - 1]
        chain = chain[:depth]
        if chain:
            task["parent"] = chain[-1]
        elif i > 2 and rng.random() < 0.3:
            task["depends_on"] = [rng.randint(1, i - 1)]
        chain.append(i)
        tasks.append(task)
    plan = Plan().replaced(tasks)  # type: ignore[arg-type]
    now = datetime(2026, 1, 1, tzinfo=UTC)
    changed = 0
    for turn in range(300):
        if rng.random() < 0.7:
            plan.render()
        before = plan
        try:
            status = rng.choice(list(StepStatus))
            picks = rng.sample(range(1, len(plan.steps) + 1), k=rng.choice([1, 1, 2]))
            plan = plan.with_status(picks, status, f"note {turn}", now=now)
        except PlanError:
            continue
        changed += 1
        same = fresh(plan)
        assert plan.render() == render(same) == same.render()
        assert plan._line_keys == same._line_keys  # what the next change's lines rely on
        assert plan.progress() == same.progress() and plan.status() == same.status()
        assert plan.next_step() == same.next_step()
        assert [plan.waiting_for(s) for s in plan.steps] == [
            same.waiting_for(s) for s in same.steps
        ]
        assert lifecycle_events(before, plan) == lifecycle_events(fresh(before), same)
    assert changed > 100
