"""Change notifications: an MCP client listening to plan://<session> is told when the plan
changes, whether this server, an agent run in-process or another process changed it.
Over `subscriptions/listen` (2026-07-28) and `resources/subscribe` (older clients), on
SQLite and PostgreSQL, with the official client.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import uuid
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.shared.subscriptions import ResourceUpdated

from taskforce.mcp import build_server
from taskforce.store import StateManager
from taskforce.tools import PlannerTool
from tests.pg import pg_url

ROOT = Path(__file__).resolve().parents[2]
GUARD = 60  # seconds before a missing notification fails the test (never a timing claim)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'plans.db'}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """An SQLite file, or a fresh PostgreSQL database (dropped afterwards)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}"
        return
    url = pg_url()
    import asyncpg

    name = f"mcpn_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield url.rsplit("/", 1)[0] + f"/{name}"
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    finally:
        await admin.close()


def change_in_another_process(url: str, session: str, step: int) -> None:
    """What another agent does: mark a step done through its own PlannerTool."""
    script = textwrap.dedent(
        """
        import asyncio, sys
        from taskforce.store import StateManager
        from taskforce.tools import PlannerTool

        async def main(url, session, step):
            async with StateManager(url) as store:
                tool = PlannerTool(state_manager=store, session_id=session)
                result = await tool.execute(action="mark_done", step_index=[int(step)])
                assert result["success"], result

        asyncio.run(main(*sys.argv[1:]))
        """
    )
    subprocess.run(
        [sys.executable, "-c", script, url, session, str(step)], cwd=ROOT, check=True, timeout=GUARD
    )


async def next_update(subscription: Any) -> str:
    with anyio.fail_after(GUARD):
        async for event in subscription:
            if isinstance(event, ResourceUpdated):
                return event.uri
    raise AssertionError("the listen stream ended")


async def test_a_listening_client_is_told_of_changes_from_this_process(sqlite_url: str) -> None:
    async with StateManager(sqlite_url) as store, Client(build_server(store=store)) as client:
        await client.call_tool("create_plan", {"tasks": ["A", "B"], "session_id": "s1"})
        async with client.listen(resource_subscriptions=["plan://s1"]) as subscription:
            assert subscription.honored.resource_subscriptions == ["plan://s1"]
            agent = PlannerTool(state_manager=store, session_id="s1")  # e.g. a LeanAgent run
            await agent.execute(action="mark_done", step_index=[1])
            assert await next_update(subscription) == "plan://s1"
            text = (await client.read_resource("plan://s1")).contents[0]
            assert isinstance(text, types.TextResourceContents)
            assert text.text.startswith("- [x] 1. A")
            await client.call_tool("mark_done", {"step_index": [2], "session_id": "s1"})
            assert await next_update(subscription) == "plan://s1"


async def test_other_sessions_do_not_notify_a_listener(sqlite_url: str) -> None:
    async with (
        StateManager(sqlite_url) as store,
        Client(build_server(store=store)) as client,
        client.listen(resource_subscriptions=["plan://mine"]) as subscription,
    ):
        await client.call_tool("create_plan", {"tasks": ["x"], "session_id": "other"})
        await client.call_tool("create_plan", {"tasks": ["y"], "session_id": "mine"})
        assert await next_update(subscription) == "plan://mine"  # not plan://other


async def test_an_older_client_subscribes_with_resources_subscribe(sqlite_url: str) -> None:
    received: list[str] = []
    updated = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            received.append(str(message.params.uri))
            updated.set()

    async with (
        StateManager(sqlite_url) as store,
        Client(build_server(store=store), mode="legacy", message_handler=on_message) as client,
    ):
        resources = client.server_capabilities.resources
        assert resources is not None and resources.subscribe is True
        await client.call_tool("create_plan", {"tasks": ["A"], "session_id": "old"})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)  # deprecated at 2026-07-28
            await client.subscribe_resource("plan://old")
        await PlannerTool(state_manager=store, session_id="old").execute(
            action="mark_done", step_index=[1]
        )
        with anyio.fail_after(GUARD):
            await updated.wait()
    assert received[0] == "plan://old"


async def test_a_client_of_the_stdio_server_is_told_when_another_process_changes_the_plan(
    database: str,
) -> None:
    url = database
    command = [str(Path(sys.executable).parent / "taskforce"), "mcp", "--db", url]
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=ROOT)
    async with Client(stdio_client(params)) as client:
        created = await client.call_tool("create_plan", {"tasks": ["Fetch", "Parse"]})
        assert not created.is_error
        async with client.listen(resource_subscriptions=["plan://mcp"]) as subscription:
            await anyio.to_thread.run_sync(change_in_another_process, url, "mcp", 2)
            assert await next_update(subscription) == "plan://mcp"
        plan = await client.call_tool("read_plan", {})
        (content,) = plan.content
        assert isinstance(content, types.TextContent)
        assert content.text == "- [ ] 1. Fetch\n- [x] 2. Parse"
