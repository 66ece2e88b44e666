"""PlannerTool bound to a real StateManager session (SQLite file)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from taskforce.store import StateManager
from taskforce.tools import PlannerTool


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'plans.db'}"


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[StateManager]:
    async with StateManager(db_url) as manager:
        yield manager


async def test_each_change_is_committed_before_the_result_returns(db_url: str) -> None:
    async with StateManager(db_url) as writer:
        tool = PlannerTool(state_manager=writer, session_id="job-1")
        assert (await tool.execute(action="create_plan", tasks=["A", "B"]))["success"]
        assert (await tool.execute(action="mark_done", step_index=1, note="ok"))["success"]
    async with StateManager(db_url) as reader:  # a new process would see the same
        state = await reader.load_state("job-1")
        assert state is not None
        assert [(t["description"], t["status"]) for t in state["plan"]["tasks"]] == [
            ("A", "DONE"),
            ("B", "PENDING"),
        ]
        again = PlannerTool(state_manager=reader, session_id="job-1")
        read = await again.execute(action="read_plan")
        assert read["output"] == "- [x] 1. A — ok\n- [ ] 2. B"


async def test_bound_tool_keeps_other_session_keys(store: StateManager) -> None:
    await store.save_state("job-2", {"mission": "ship it", "status": "running"})
    tool = PlannerTool(state_manager=store, session_id="job-2")
    assert (await tool.execute(action="create_plan", tasks=["A"]))["success"]
    state = await store.load_state("job-2")
    assert state is not None
    assert state["mission"] == "ship it" and state["status"] == "running"
    assert state["plan"]["tasks"][0]["description"] == "A"


async def test_a_stale_call_is_applied_again_to_the_fresh_plan(store: StateManager) -> None:
    first = PlannerTool(state_manager=store, session_id="shared")
    second = PlannerTool(state_manager=store, session_id="shared")
    assert (await first.execute(action="create_plan", tasks=["A", "B", "C"]))["success"]
    assert (await second.execute(action="mark_done", step_index=2))["success"]
    # first still holds the plan without B done: its commit conflicts, and the planner
    # re-reads, re-applies and commits instead of handing the conflict to the model
    result = await first.execute(action="update_plan", step_index=[3], text="C, reworded")
    assert result["success"], result
    assert result["output"] == "- [ ] 1. A\n- [x] 2. B\n- [ ] 3. C, reworded"
    state = await store.load_state("shared")
    assert state is not None
    tasks = state["plan"]["tasks"]
    assert [(t["description"], t["status"]) for t in tasks] == [
        ("A", "PENDING"),
        ("B", "DONE"),
        ("C, reworded", "PENDING"),
    ]
    kinds = [e.kind for e in await store.get_history("shared")]
    assert kinds.count("step_completed") == 1  # B's completion is recorded once
    # the next call saves over what the retry wrote (its steps remembered from that write)
    assert (await first.execute(action="mark_done", step_index=1))["success"]
    fresh = StateManager(store.engine.url.render_as_string(hide_password=False))
    async with fresh:  # another process's view: no cache
        state = await fresh.load_state("shared")
    assert state is not None
    assert [(t["description"], t["status"]) for t in state["plan"]["tasks"]] == [
        ("A", "DONE"),
        ("B", "DONE"),
        ("C, reworded", "PENDING"),
    ]


async def test_a_stale_call_that_no_longer_applies_says_why(store: StateManager) -> None:
    first = PlannerTool(state_manager=store, session_id="busy")
    second = PlannerTool(state_manager=store, session_id="busy")
    assert (await first.execute(action="create_plan", tasks=["A", "B"]))["success"]
    await second.execute(action="mark_done", step_index=[1], status="IN_PROGRESS")
    before = await store.load_state("busy")
    result = await first.execute(action="mark_done", step_index=[2], status="IN_PROGRESS")
    assert result["success"] is False
    assert result["error"].startswith("the plan was changed by another writer and this call")
    assert "IN_PROGRESS" in result["error"]
    assert await store.load_state("busy") == before  # nothing written
    assert first.plan.steps[0].status.value == "IN_PROGRESS"  # and the tool has reloaded


async def test_a_stale_call_is_not_applied_to_renumbered_steps(store: StateManager) -> None:
    first = PlannerTool(state_manager=store, session_id="moved")
    second = PlannerTool(state_manager=store, session_id="moved")
    assert (await first.execute(action="create_plan", tasks=["A", "B", "C"]))["success"]
    assert (await second.execute(action="update_plan", add_steps=["Z"], insert_at=1))["success"]
    before = await store.load_state("moved")
    stale = await first.execute(action="mark_done", step_index=[3])  # meant C, now B
    assert stale["success"] is False and stale["error_type"] == "conflict"
    assert "added, removed or moved" in stale["error"]
    assert await store.load_state("moved") == before
    assert (await first.execute(action="mark_done", step_index=[4]))["success"]  # C now


async def test_refused_call_writes_nothing(store: StateManager) -> None:
    tool = PlannerTool(state_manager=store, session_id="strict")
    assert (await tool.execute(action="create_plan", tasks=["A"]))["success"]
    before = await store.load_state("strict")
    assert (await tool.execute(action="mark_done", step_index=5))["success"] is False
    assert await store.load_state("strict") == before


async def test_marking_a_done_step_done_again_writes_nothing(store: StateManager) -> None:
    tool = PlannerTool(state_manager=store, session_id="again")
    assert (await tool.execute(action="create_plan", tasks=["A", "B"]))["success"]
    assert (await tool.execute(action="mark_done", step_index=1))["success"]
    before, history = await store.load_state("again"), await store.get_history("again")
    result = await tool.execute(action="mark_done", step_index=[1])
    assert result == {
        "success": True,
        "output": "- [x] 1. A\n- [ ] 2. B",
        "message": "Step 1 was already DONE.",
    }
    assert await store.load_state("again") == before  # same version, same completion time
    assert await store.get_history("again") == history


async def test_history_records_lifecycle_events_in_order(store: StateManager) -> None:
    tool = PlannerTool(state_manager=store, session_id="hist")
    await tool.execute(action="create_plan", tasks=["A", "B"])
    await tool.execute(action="mark_done", step_index=1, status="IN_PROGRESS")
    await tool.execute(action="mark_done", step_index=1)
    await tool.execute(action="mark_done", step_index=2, status="FAILED", note="nope")
    kinds = [h.kind for h in await store.get_history("hist")]
    lifecycle = [
        k
        for k in kinds
        if k.startswith("plan_") or k in {"step_started", "step_completed", "step_failed"}
    ]
    assert lifecycle == [
        "plan_created",
        "step_started",
        "step_completed",
        "step_failed",
        "plan_failed",
    ]


async def test_bad_session_id_is_an_error_result_not_a_crash(store: StateManager) -> None:
    tool = PlannerTool(state_manager=store, session_id="bad id; DROP TABLE sessions")
    result = await tool.execute(action="create_plan", tasks=["A"])
    assert result["success"] is False
    assert result["error_type"] == "configuration_error" and "session id" in result["error"]
    assert tool.get_state()["tasks"] == []
    assert await store.list_sessions() == []


def test_state_manager_and_session_go_together(store: StateManager) -> None:
    with pytest.raises(ValueError, match="go together"):
        PlannerTool(state_manager=store)


async def test_the_memory_store_gets_the_same_retry() -> None:
    from taskforce.store import MemoryStore

    store = MemoryStore()
    first = PlannerTool(state_manager=store, session_id="mem")
    second = PlannerTool(state_manager=store, session_id="mem")
    assert (await first.execute(action="create_plan", tasks=["A", "B"]))["success"]
    assert (await second.execute(action="mark_done", step_index=[1]))["success"]
    result = await first.execute(action="mark_done", step_index=[2])
    assert result["success"], result
    state = await store.load_state("mem")
    assert state is not None
    assert [t["status"] for t in state["plan"]["tasks"]] == ["DONE", "DONE"]
