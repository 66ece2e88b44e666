"""MCP clients acting as workers: claim, renew, finish and release through the official client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from taskforce.errors import ConfigurationError
from taskforce.mcp import build_server
from taskforce.plan import Plan
from taskforce.store import StateManager

CLAIM_TOOLS = {"claim_step", "renew_lease", "finish_step", "release_step"}


def text_of(result: types.CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, types.TextContent)
    return content.text


async def call(client: Client, name: str, **arguments: Any) -> types.CallToolResult:
    return await client.call_tool(name, arguments)


async def seeded(tmp_path: Path) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path / 'team.db'}"
    plan = Plan().replaced(["Fetch data", {"description": "Report", "depends_on": [1]}])
    async with StateManager(url) as sm:
        await sm.save_state("team", {"mission": "m", "plan": plan.to_state()})
    return url


async def test_claim_tools_only_for_a_worker(tmp_path: Path) -> None:
    url = await seeded(tmp_path)
    async with Client(build_server(url, "team")) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert not names & CLAIM_TOOLS
        refused = await call(client, "claim_step")
        assert refused.is_error and "Unknown tool 'claim_step'" in text_of(refused)
    async with Client(build_server(url, "team", owner="alice", lease=30)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert names >= CLAIM_TOOLS
    with pytest.raises(ConfigurationError, match="bad owner name"):
        build_server(url, owner="not ok")


async def test_two_workers_share_a_plan_over_mcp(tmp_path: Path) -> None:
    url = await seeded(tmp_path)
    alice = Client(build_server(url, "team", owner="alice", lease=30))
    bob = Client(build_server(url, "team", owner="bob", lease=30))
    async with alice, bob:
        got = await call(alice, "claim_step")
        assert not got.is_error
        assert text_of(got).startswith("Claimed step 1 (s1): Fetch data")
        assert "1. Fetch data (in progress by alice)" in text_of(got)
        idle = await call(bob, "claim_step")
        assert not idle.is_error
        assert "Nothing to claim now: steps in progress by others: 1 (alice)" in text_of(idle)
        stolen = await call(bob, "finish_step", step_id="s1", note="mine")
        assert stolen.is_error and "held by alice" in text_of(stolen)
        assert (stolen.meta or {}).get("taskforce/error_type") == "held"
        renewed = await call(alice, "renew_lease", step_id="s1")
        assert text_of(renewed).startswith("Lease on s1 renewed until ")
        done = await call(alice, "finish_step", step_id="s1", note="42 rows")
        assert "- [x] 1. Fetch data — 42 rows" in text_of(done)
        next_one = await call(bob, "claim_step")
        assert "Step 1 (Fetch data) gave: 42 rows" in text_of(next_one)
        assert next_one.structured_content is not None
        steps = next_one.structured_content["steps"]
        assert steps[1]["owner"] == "bob" and steps[1]["lease_until"]
        released = await call(bob, "release_step", step_id="s2", note="out of time")
        assert "2. Report (blocked" not in text_of(released)
        assert "- [ ] 2. Report" in text_of(released)
        # the planner tools act as the worker too
        marked = await call(alice, "mark_done", step_index=[2], status="IN_PROGRESS")
        assert "2. Report (in progress by alice: out of time)" in text_of(marked)
        bad = await call(alice, "finish_step", step_id="s2", status="PENDING")
        assert bad.is_error and "DONE, FAILED or SKIPPED" in text_of(bad)
