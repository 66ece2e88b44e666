"""Resources listed by page, newest first; the prompts clients can offer."""

from __future__ import annotations

from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from taskforce.mcp import build_server
from taskforce.mcp.server import PAGE_SIZE
from taskforce.store import StateManager


async def test_resources_come_by_page_newest_first(tmp_path: Path) -> None:
    async with StateManager(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}") as store:
        names = [f"s{n:03d}" for n in range(PAGE_SIZE + 5)]
        for name in names:  # s000 oldest, the last one newest
            plan = {"tasks": [{"id": "s1", "description": "a", "status": "DONE"}], "next_id": 2}
            await store.save_state(name, {"title": f"mission {name}", "plan": plan})
        async with Client(build_server(store=store)) as client:
            first = await client.list_resources()
            assert first.next_cursor is not None
            second = await client.list_resources(cursor=first.next_cursor)
            assert second.next_cursor is None
            with pytest.raises(MCPError, match="invalid cursor"):
                await client.list_resources(cursor="not-a-cursor")
    listed = [str(r.uri) for r in [*first.resources, *second.resources]]
    assert listed == [f"plan://{name}" for name in reversed(names)]
    newest = first.resources[0]
    assert newest.title == f"mission {names[-1]}" and newest.description == "1/1 steps done"


async def test_no_session_means_no_resource_but_the_template_is_there(tmp_path: Path) -> None:
    async with Client(build_server(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")) as client:
        assert (await client.list_resources()).resources == []
        (template,) = (await client.list_resource_templates()).resource_templates
        assert template.uri_template == "plan://{session_id}"


async def test_prompts_plan_a_task_and_continue_a_plan(tmp_path: Path) -> None:
    server = build_server(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}", session_id="proj")
    async with Client(server) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        assert set(prompts) == {"plan_task", "continue_plan"}
        task_args = prompts["plan_task"].arguments or []
        assert [(a.name, a.required) for a in task_args] == [
            ("task", True),
            ("session_id", False),
        ]
        planned = await client.get_prompt("plan_task", {"task": "Ship the release"})
        (message,) = planned.messages
        assert isinstance(message.content, types.TextContent)
        assert message.content.text.endswith("Task: Ship the release")
        assert 'session_id "proj"' in message.content.text
        resumed = await client.get_prompt("continue_plan", {"session_id": "other"})
        assert isinstance(resumed.messages[0].content, types.TextContent)
        assert "plan://other" in resumed.messages[0].content.text
        with pytest.raises(MCPError, match="needs a task"):
            await client.get_prompt("plan_task", {"task": "  "})
        with pytest.raises(MCPError, match="unknown prompt"):
            await client.get_prompt("nope", {})
