"""The planner MCP server, driven in-process by the SDK's own client over a real SQLite file."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import jsonschema
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from taskforce.errors import ConfigurationError, InvalidSessionIdError
from taskforce.mcp import build_server, run_server
from taskforce.plan import Plan
from taskforce.store import StateManager
from taskforce.tools import PlannerTool
from tests.pg import pg_url

PLANNER_ACTIONS = {"create_plan", "mark_done", "read_plan", "update_plan"}


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'plans.db'}"


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[StateManager]:
    async with StateManager(db_url) as sm:
        yield sm


def text_of(result: types.CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, types.TextContent)
    return content.text


async def call(client: Client, name: str, **arguments: Any) -> types.CallToolResult:
    return await client.call_tool(name, arguments)


async def test_tools_are_the_planner_actions_with_correct_hints(db_url: str) -> None:
    async with Client(build_server(db_url)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == PLANNER_ACTIONS
    hints = {n: t.annotations for n, t in tools.items()}
    assert all(h is not None and h.open_world_hint is False for h in hints.values())
    read, create = hints["read_plan"], hints["create_plan"]
    mark, update = hints["mark_done"], hints["update_plan"]
    assert read and read.read_only_hint is True and read.idempotent_hint is True
    assert create and create.destructive_hint is True and create.idempotent_hint is False
    assert update and update.destructive_hint is True and update.idempotent_hint is False
    assert mark and mark.destructive_hint is False and mark.idempotent_hint is True
    assert not any(h and h.read_only_hint for n, h in hints.items() if n != "read_plan")
    for tool in tools.values():
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        assert "session_id" in tool.input_schema["properties"]
        assert tool.input_schema["additionalProperties"] is False
        assert tool.description and tool.title
    assert tools["create_plan"].input_schema["required"] == ["tasks"]
    assert tools["mark_done"].input_schema["required"] == ["step_index"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_plan_through_mcp_and_read_it_after_a_restart(db_url: str, mode: str) -> None:
    async with Client(build_server(db_url), mode=mode) as client:
        assert text_of(await call(client, "read_plan")) == "No active plan."
        created = await call(client, "create_plan", tasks=["Research", "Write", "Publish"])
        assert not created.is_error
        assert text_of(created).startswith("Plan created with 3 tasks.")
        assert created.structured_content is not None
        assert created.structured_content["total"] == 3
        started = await call(client, "mark_done", step_index=[1], status="IN_PROGRESS")
        assert "- [ ] 1. Research (in progress)" in text_of(started)
        done = await call(client, "mark_done", step_index=1, note="3 sources")
        assert "- [x] 1. Research — 3 sources" in text_of(done)
        updated = await call(client, "update_plan", add_steps=["Proofread"], insert_at=3)
        assert not updated.is_error
        before_restart = text_of(await call(client, "read_plan"))
    assert before_restart == (
        "- [x] 1. Research — 3 sources\n- [ ] 2. Write\n- [ ] 3. Proofread\n- [ ] 4. Publish"
    )
    async with Client(build_server(db_url), mode=mode) as client:  # a new server, same file
        result = await call(client, "read_plan")
        assert text_of(result) == before_restart
        assert result.structured_content is not None
        assert result.structured_content["done"] == 1
        assert [s["status"] for s in result.structured_content["steps"]] == [
            "DONE",
            "PENDING",
            "PENDING",
            "PENDING",
        ]
        resource = await client.read_resource("plan://mcp")
    (contents,) = resource.contents
    assert isinstance(contents, types.TextResourceContents)
    assert contents.text == before_restart and contents.mime_type == "text/markdown"


BAD_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("mark_done", {"step_index": [9]}),
    ("mark_done", {"step_index": [0]}),
    ("mark_done", {"step_index": [1], "status": "FINISHED"}),
    ("mark_done", {"step_index": [True]}),
    ("mark_done", {"step_index": [1], "tasks": ["x"]}),
    ("mark_done", {}),
    ("create_plan", {"tasks": []}),
    ("create_plan", {"tasks": ["ok", "\n\x00 "]}),
    ("create_plan", {"tasks": "[not json"}),
    ("create_plan", {"tasks": ["x" * 501]}),
    ("create_plan", {"tasks": [{"description": "a", "depends_on": [2]}, "b"]}),
    ("update_plan", {}),
    ("update_plan", {"remove_indices": [1, 7]}),
    ("update_plan", {"step_index": [1]}),
    ("update_plan", {"insert_at": 99, "add_steps": ["x"]}),
    ("read_plan", {"bogus": 1}),
    ("mark_done", {"step_index": [2], "status": "IN_PROGRESS"}),  # step 1 is in progress
]


async def test_bad_input_is_a_tool_error_with_the_planners_message_and_changes_nothing(
    db_url: str, store: StateManager
) -> None:
    async with Client(build_server(db_url)) as client:
        await call(client, "create_plan", tasks=["A", "B", "C"])
        await call(client, "mark_done", step_index=[1], status="IN_PROGRESS")
        stored = await store.load_state("mcp")
        assert stored is not None
        for name, arguments in BAD_CALLS:
            result = await client.call_tool(name, arguments)
            reference = PlannerTool(initial_state=stored["plan"])
            expected = await reference.execute(action=name, **arguments)
            assert result.is_error, (name, arguments)
            assert not expected["success"], (name, arguments)
            assert text_of(result) == expected["error"]
            assert result.meta is not None
            assert result.meta["taskforce/error_type"] == expected["error_type"]
            assert await store.load_state("mcp") == stored  # nothing written, same version
        assert text_of(await call(client, "read_plan")) == Plan.from_state(stored["plan"]).render()


async def test_the_planners_tolerance_reaches_mcp_clients(db_url: str) -> None:
    async with Client(build_server(db_url)) as client:
        created = await call(client, "create_plan", tasks='["one", "two"]')
        assert not created.is_error
        marked = await call(client, "mark_done", step_index="2", status="in progress")
        assert text_of(marked).endswith("- [ ] 2. two (in progress)")


async def test_misuse_of_the_server_itself_is_refused(db_url: str) -> None:
    async with Client(build_server(db_url)) as client:
        unknown = await call(client, "delete_everything")
        assert unknown.is_error and "Unknown tool 'delete_everything'" in text_of(unknown)
        action = await call(client, "read_plan", action="create_plan")
        assert action.is_error and text_of(action) == "unexpected parameter 'action'"
        for bad in ("", "../etc", "a b", 5, "x" * 129):
            result = await call(client, "read_plan", session_id=bad)
            assert result.is_error and "invalid session id" in text_of(result)
        with pytest.raises(MCPError, match="invalid session id"):
            await client.read_resource("plan://no way")
        with pytest.raises(MCPError, match="unknown resource"):
            await client.read_resource("file:///etc/passwd")


async def test_sessions_are_separate_and_the_server_option_sets_the_default(
    db_url: str, store: StateManager
) -> None:
    async with Client(build_server(db_url, session_id="alpha")) as client:
        await call(client, "create_plan", tasks=["alpha step"])
        await call(client, "create_plan", tasks=["beta step"], session_id="beta")
        assert text_of(await call(client, "read_plan")) == "- [ ] 1. alpha step"
        beta = await call(client, "read_plan", session_id="beta")
        assert text_of(beta) == "- [ ] 1. beta step"
        assert beta.structured_content and beta.structured_content["session_id"] == "beta"
        listed = {str(r.uri) for r in (await client.list_resources()).resources}
        assert {"plan://alpha", "plan://beta"} <= listed
        (template,) = (await client.list_resource_templates()).resource_templates
        assert template.uri_template == "plan://{session_id}"
    for sid, text in (("alpha", "alpha step"), ("beta", "beta step")):
        state = await store.load_state(sid)
        assert state is not None and state["plan"]["tasks"][0]["description"] == text
    with pytest.raises(InvalidSessionIdError):
        build_server(db_url, session_id="no spaces")


async def test_a_new_plan_keeps_the_finished_steps(db_url: str, store: StateManager) -> None:
    """13.8 at this door: create_plan replaces only the unfinished steps."""
    async with Client(build_server(db_url, session_id="extend")) as client:
        await call(client, "create_plan", tasks=["Tag", "Build"])
        await call(client, "mark_done", step_index=[1], note="v2")
        made = await call(client, "create_plan", tasks=["Publish"])
    assert text_of(made).startswith("Plan created with 1 task; 1 finished step kept.")
    assert text_of(made).endswith("- [x] 1. Tag — v2\n- [ ] 2. Publish")
    state = await store.load_state("extend")
    assert state is not None
    assert [(t["description"], t["status"]) for t in state["plan"]["tasks"]] == [
        ("Tag", "DONE"), ("Publish", "PENDING"),
    ]  # fmt: skip


async def test_changes_by_another_writer_are_seen(db_url: str, store: StateManager) -> None:
    async with Client(build_server(db_url)) as client:
        await call(client, "create_plan", tasks=["A", "B"])
        other = PlannerTool(state_manager=store, session_id="mcp")  # e.g. an agent run
        assert (await other.execute(action="mark_done", step_index=[2]))["success"]
        result = await call(client, "mark_done", step_index=[1])
        assert text_of(result).endswith("- [x] 1. A\n- [x] 2. B")


async def test_concurrent_calls_on_one_session_all_land(db_url: str) -> None:
    async with Client(build_server(db_url)) as client:
        await call(client, "create_plan", tasks=[f"step {n}" for n in range(1, 9)])
        results = await asyncio.gather(
            *(call(client, "mark_done", step_index=[n], note=f"n{n}") for n in range(1, 9))
        )
        assert not any(r.is_error for r in results)
        final = await call(client, "read_plan")
    assert final.structured_content is not None
    assert final.structured_content["done"] == 8


async def test_an_open_store_can_be_shared_and_stays_open(store: StateManager) -> None:
    async with Client(build_server(session_id="shared", store=store)) as client:
        await call(client, "create_plan", tasks=["one"])
    state = await store.load_state("shared")  # the server did not close the store
    assert state is not None and state["plan"]["tasks"][0]["description"] == "one"
    with pytest.raises(ConfigurationError, match="either db_url or store"):
        build_server("sqlite+aiosqlite:///x.db", store=store)


def test_unknown_transport_is_a_usage_error(db_url: str) -> None:
    with pytest.raises(ConfigurationError, match="unknown transport 'carrier-pigeon'"):
        run_server(db_url, transport="carrier-pigeon")


@pytest.fixture
async def pg_database() -> AsyncIterator[str]:
    """A fresh PostgreSQL database on the test server (dropped afterwards)."""
    url = pg_url()
    import asyncpg

    name = f"mcp_{uuid.uuid4().hex[:12]}"
    dsn = url.replace("postgresql+asyncpg://", "postgresql://")
    admin = await asyncpg.connect(dsn)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield url.rsplit("/", 1)[0] + f"/{name}"
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.mark.postgres
async def test_plans_persist_across_restarts_on_postgresql(pg_database: str) -> None:
    async with Client(build_server(pg_database, session_id="pg")) as client:
        await call(client, "create_plan", tasks=["A", "B"])
        await call(client, "mark_done", step_index=[2], status="SKIPPED", note="not needed")
        bad = await call(client, "mark_done", step_index=[3])
        assert bad.is_error
    async with Client(build_server(pg_database, session_id="pg"), mode="legacy") as client:
        text = text_of(await call(client, "read_plan"))
    assert text == "- [ ] 1. A\n- [x] 2. ~~B~~ (skipped: not needed)"
