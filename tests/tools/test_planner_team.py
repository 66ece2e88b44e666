"""The planner shared by several agents (each with its `owner`) and sub-steps through it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from taskforce.errors import ConfigurationError
from taskforce.store import StateManager
from taskforce.tools import PlannerTool


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


async def test_sub_steps_through_the_tool() -> None:
    tool = PlannerTool()
    tasks = ["Build", {"description": "Pages", "parent": 1}, "Ship"]
    assert (await tool.execute(action="create_plan", tasks=tasks))["success"]
    added = await tool.execute(
        action="update_plan", add_steps=[{"description": "Styles", "parent": 1}]
    )
    assert added["output"].splitlines() == [
        "- [ ] 1. Build (0/2 done)",
        "  - [ ] 2. Pages",
        "  - [ ] 3. Styles",
        "- [ ] 4. Ship",
    ]
    refused = await tool.execute(action="mark_done", step_index=1)
    assert refused["success"] is False and "open sub-steps 2, 3" in refused["error"]
    done = await tool.execute(action="mark_done", step_index=[2, 3])
    assert done["output"].splitlines()[0] == "- [x] 1. Build"


async def test_agents_sharing_a_plan_hold_their_own_steps(tmp_path: Path) -> None:
    clock = Clock()
    async with StateManager(f"sqlite+aiosqlite:///{tmp_path / 'team.db'}") as store:
        lead = PlannerTool(state_manager=store, session_id="team", clock=clock)
        assert (await lead.execute(action="create_plan", tasks=["a", "b", "c"]))["success"]
        alice = PlannerTool(
            state_manager=store, session_id="team", owner="alice", lease_seconds=60, clock=clock
        )
        bob = PlannerTool(state_manager=store, session_id="team", owner="bob", clock=clock)
        started = await alice.execute(action="mark_done", step_index=1, status="IN_PROGRESS")
        assert "1. a (in progress by alice)" in started["output"]
        assert (await bob.execute(action="mark_done", step_index=2, status="IN_PROGRESS"))[
            "success"
        ]
        taken = await bob.execute(action="mark_done", step_index=1, note="mine")
        assert taken["success"] is False and taken["error_type"] == "held"
        assert "held by alice" in taken["error"]
        replaced = await bob.execute(action="create_plan", tasks=["x"])
        assert replaced["success"] is False and replaced["error_type"] == "shared_plan"
        # alice goes quiet past her lease: bob's next change ends her claim first
        clock.now += timedelta(seconds=61)
        assert (await bob.execute(action="mark_done", step_index=2, note="b ok"))["success"]
        state = await store.load_state("team")
        assert state is not None
        first = state["plan"]["tasks"][0]
        assert first["status"] == "PENDING" and "owner" not in first
        kinds = [h.kind for h in await store.get_history("team")]
        assert "step_interrupted" in kinds
        late = await alice.execute(action="mark_done", step_index=1, note="done after all")
        if late.get("error_type") == "conflict":  # alice's copy was stale: reloaded, again
            late = await alice.execute(action="mark_done", step_index=1, note="done after all")
        assert late["success"], late  # nobody took it meanwhile: her result is kept
        assert (await lead.execute(action="read_plan"))["output"].startswith("- [x] 1. a")


def test_owner_is_checked() -> None:
    with pytest.raises(ConfigurationError, match="bad owner name"):
        PlannerTool(owner="has space")
    with pytest.raises(ValueError, match="lease_seconds"):
        PlannerTool(owner="w", lease_seconds=0)


def test_a_sub_step_of_a_gated_parent_needs_the_approval() -> None:
    tool = PlannerTool()
    tasks = [
        {"description": "Deploy", "requires_approval": True},
        {"description": "Push", "parent": 1},
    ]
    plan = tool.change(tool.decode({"action": "create_plan", "tasks": tasks})).plan
    request = tool.decode({"action": "mark_done", "step_index": [2], "status": "IN_PROGRESS"})
    gate = tool.gate(request, plan, approved=())
    assert gate is not None and gate.step_ids == (plan.steps[0].id,)
    assert gate.preview == "start plan step 1. Deploy"
    assert tool.gate(request, plan, approved={plan.steps[0].id}) is None
