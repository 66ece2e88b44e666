"""MemoryStore: what it keeps is never shared with the caller, and a save that re-uses the
rows of unchanged steps stores exactly what a save from scratch stores."""

from __future__ import annotations

import dataclasses

import pytest

from taskforce.errors import StaleStateError
from taskforce.plan import Plan, StepStatus
from taskforce.store import MemoryStore


def _plan(*tasks: str) -> Plan:
    return Plan.from_state({"tasks": [{"description": t} for t in tasks]})


async def test_a_saved_dict_changed_afterwards_changes_nothing_stored() -> None:
    store = MemoryStore()
    state = {"plan": {"tasks": [{"id": "a", "description": "one", "status": "PENDING"}]}}
    version = await store.save_state("s", state)
    state["plan"]["tasks"][0]["status"] = "DONE"  # type: ignore[index]
    loaded = await store.load_state("s")
    assert loaded is not None and loaded["plan"]["tasks"][0]["status"] == "PENDING"
    loaded["plan"]["tasks"][0]["description"] = "changed by a reader"
    again = await store.load_state("s")
    assert again is not None and again["plan"]["tasks"][0]["description"] == "one"
    # the same dict, changed in place, saved again: the change is stored (not the old row)
    await store.save_state("s", state, version)
    stored = await store.load_state("s")
    assert stored is not None and stored["plan"]["tasks"][0]["status"] == "DONE"


async def test_a_plan_value_is_stored_as_its_state_step_by_step() -> None:
    fresh, reused = MemoryStore(), MemoryStore()
    plan = _plan("a", "b", "c")
    await reused.save_state("s", {"plan": plan, "mission": "m"}, 0)
    steps = list(plan.steps)
    steps[1] = dataclasses.replace(steps[1], status=StepStatus.DONE, note="found")
    changed = dataclasses.replace(plan, steps=tuple(steps), version=plan.version + 1)
    await reused.save_state("s", {"plan": changed, "mission": "m"}, 1)
    await fresh.save_state("s", {"plan": changed.to_state(), "mission": "m"}, 0)
    kept, made = await reused.load_state("s"), await fresh.load_state("s")
    assert kept is not None and made is not None
    assert kept["plan"] == made["plan"] == changed.to_state()
    assert kept["plan"]["tasks"][1]["status"] == "DONE"
    history = await reused.get_history("s")
    assert [e.kind for e in history][-1] == "step_completed"  # derived from the changed row


async def test_a_refused_save_leaves_the_next_one_exact() -> None:
    store = MemoryStore()
    plan = _plan("a", "b")
    await store.save_state("s", {"plan": plan}, 0)
    done = plan.steps[0]
    steps = (dataclasses.replace(done, status=StepStatus.DONE), plan.steps[1])
    with pytest.raises(StaleStateError):
        await store.save_state("s", {"plan": dataclasses.replace(plan, steps=steps)}, 0)
    await store.save_state("s", {"plan": dataclasses.replace(plan, steps=steps)}, 1)
    stored = await store.load_state("s")
    assert stored is not None and [t["status"] for t in stored["plan"]["tasks"]] == [
        "DONE",
        "PENDING",
    ]
