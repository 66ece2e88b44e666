"""The invariants every plan state must satisfy, whatever calls produced it."""

from __future__ import annotations

from typing import Any

from taskforce.plan import Plan

STATUSES = {"PENDING", "IN_PROGRESS", "DONE", "FAILED", "SKIPPED"}


class IdTracker:
    """Remembers every step id a plan has used, to check none is ever reused."""

    def __init__(self) -> None:
        self.current: set[str] = set()
        self.retired: set[str] = set()

    def update(self, state: dict[str, Any]) -> None:
        ids = {t["id"] for t in state.get("tasks", [])}
        reborn = ids & self.retired
        assert not reborn, f"step ids reused after removal: {sorted(reborn)[:5]}"
        self.retired |= self.current - ids
        self.current = ids


def check_plan(state: dict[str, Any], max_steps: int = 1000) -> None:
    """Assert the plan invariants on a plan state (what ``PlannerTool.get_state`` returns)."""
    tasks = state.get("tasks", [])
    assert isinstance(tasks, list)
    assert len(tasks) <= max_steps, f"{len(tasks)} steps > limit {max_steps}"
    ids = [t["id"] for t in tasks]
    assert len(set(ids)) == len(ids), f"duplicate step ids: {ids}"
    position = {step_id: i for i, step_id in enumerate(ids)}
    for i, task in enumerate(tasks):
        assert task["status"] in STATUSES, task
        assert isinstance(task["description"], str) and task["description"].strip(), task
        assert "\n" not in task["description"], f"multi-line step text: {task['description']!r}"
        for dep in task.get("depends_on", []):
            assert dep in position and position[dep] < i, f"step {task['id']} depends on {dep}"
    in_progress = [t["id"] for t in tasks if t["status"] == "IN_PROGRESS"]
    assert len(in_progress) <= 1, f"several steps IN_PROGRESS: {in_progress}"
    numbers = [int(i[1:]) for i in ids if i[:1] == "s" and i[1:].isdigit()]
    if numbers:
        assert state.get("next_id", 0) > max(numbers), "next_id would reuse an id"
    again = Plan.from_state(state).to_state()
    assert again == state, "the plan state does not survive a round trip"
