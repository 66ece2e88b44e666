"""The MCP server: planner tools and plan resources over a `StateManager`, and its transports."""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from taskforce.errors import ConfigurationError, InvalidSessionIdError
from taskforce.mcp._tools import TOOLS, failure, success, tool_definitions
from taskforce.store._config import validate_session_id
from taskforce.tools.planner import PlannerTool

if TYPE_CHECKING:
    from taskforce.store import StateManager

logger = logging.getLogger(__name__)

DEFAULT_SESSION = "mcp"
"""The session a call uses when neither it nor the server names one."""

DEFAULT_PORT = 8765
"""Port of the streamable HTTP transport."""

TRANSPORTS = ("stdio", "streamable-http")
"""What `run_server` can serve over."""

_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_INSTRUCTIONS = (
    "A persistent plan as a checklist: create_plan first, then mark_done each step "
    "(status IN_PROGRESS when you start it, DONE when finished), read_plan to see where you "
    "are, update_plan to revise. Steps are numbered from 1. Plans are kept per session "
    "(session_id); the plan is also readable as the resource plan://<session_id>."
)


@dataclass
class _Running:
    """What a running server holds: the store, and a lock per session in use."""

    store: StateManager
    locks: weakref.WeakValueDictionary[str, asyncio.Lock] = field(
        default_factory=weakref.WeakValueDictionary
    )

    def lock(self, session_id: str) -> asyncio.Lock:
        """Serialises this server's changes to one session (other writers: optimistic)."""
        lock = self.locks.get(session_id)
        if lock is None:
            lock = self.locks[session_id] = asyncio.Lock()
        return lock


def build_server(
    db_url: str | None = None,
    session_id: str | None = None,
    *,
    store: StateManager | None = None,
) -> Server[Any]:
    """An MCP server exposing the planner's actions as tools and plans as resources.

    Args:
        db_url: Database URL for a store the server opens and closes with its lifespan
            (default: ``TASKFORCE_DB_URL``, else the user data dir).
        session_id: The session a call uses when it names none (default ``"mcp"``).
        store: An open store to use instead (not closed by the server); excludes `db_url`.

    Raises:
        InvalidSessionIdError: `session_id` is not a valid session id.
        ConfigurationError: both `db_url` and `store` were given.
    """
    if store is not None and db_url is not None:
        raise ConfigurationError("pass either db_url or store, not both")
    default = validate_session_id(session_id or DEFAULT_SESSION)
    tools = tool_definitions(default)

    @asynccontextmanager
    async def lifespan(_: Server[Any]) -> AsyncIterator[_Running]:
        if store is not None:
            yield _Running(store)
            return
        from taskforce.store import StateManager

        async with StateManager(db_url) as opened:
            yield _Running(opened)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await _call(ctx.lifespan_context, params.name, dict(params.arguments or {}), default)

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        running: _Running = ctx.lifespan_context
        recent = [s.session_id for s in await running.store.list_sessions(limit=50)]
        ids = [default, *(sid for sid in recent if sid != default)]
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=f"plan://{sid}",
                    name=f"plan-{sid}",
                    title=f"Plan of session {sid}",
                    mime_type="text/markdown",
                )
                for sid in ids
            ]
        )

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            uri_template="plan://{session_id}",
            name="plan",
            title="A session's plan",
            description="The session's plan as a Markdown checklist.",
            mime_type="text/markdown",
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        scheme, sep, sid = uri.partition("://")
        if scheme != "plan" or not sep:
            raise MCPError(
                types.INVALID_PARAMS, f"unknown resource {uri!r}: use plan://<session_id>"
            )
        try:
            validate_session_id(sid)
        except InvalidSessionIdError as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from exc
        running: _Running = ctx.lifespan_context
        result = await PlannerTool(state_manager=running.store, session_id=sid).execute(
            action="read_plan"
        )
        if not result["success"]:
            raise MCPError(types.INTERNAL_ERROR, result["error"])
        text = types.TextResourceContents(uri=uri, mime_type="text/markdown", text=result["output"])
        return types.ReadResourceResult(contents=[text])

    from taskforce import __version__

    return Server(
        "taskforce-planner",
        version=__version__,
        title="taskforce planner",
        instructions=_INSTRUCTIONS,
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


async def _call(
    running: _Running, name: str, arguments: dict[str, Any], default: str
) -> types.CallToolResult:
    """Run one planner action on a freshly loaded plan; a refusal changes nothing."""
    if name not in TOOLS:
        return failure(f"Unknown tool {name!r}: use one of {', '.join(TOOLS)}", "unknown_tool")
    if "action" in arguments:
        return failure("unexpected parameter 'action'", "invalid_input")
    session_id = arguments.pop("session_id", None)
    try:
        session_id = validate_session_id(default if session_id is None else session_id)
    except InvalidSessionIdError as exc:
        return failure(str(exc), "invalid_session")
    async with running.lock(session_id):
        tool = PlannerTool(state_manager=running.store, session_id=session_id)
        result = await tool.execute(action=name, **arguments)
    if not result["success"]:
        return failure(result["error"], result.get("error_type") or "invalid_input")
    message = result.get("message") or ""
    return success(tool.plan, session_id, message, result["output"], quiet=name == "read_plan")


def run_server(
    db_url: str | None = None,
    session_id: str | None = None,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
) -> None:
    """Serve the planner over stdio, or streamable HTTP at ``http://host:port/mcp``.

    The store is opened (and migrated) before serving, so a bad URL or database fails
    here rather than on the client's first call. Blocks until stdin closes (stdio) or
    the process is interrupted (HTTP).

    Raises:
        InvalidSessionIdError: `session_id` is not a valid session id.
        ConfigurationError: an unknown transport, or an unusable database URL.
        StateError: the database cannot be opened or migrated.
    """
    validate_session_id(session_id or DEFAULT_SESSION)
    if transport == "stdio":
        anyio.run(_serve_stdio, db_url, session_id)
    elif transport == "streamable-http":
        import uvicorn

        anyio.run(_check_store, db_url)
        if host not in _LOOPBACK:
            logger.warning("the planner MCP server has no authentication; serving on %s", host)
        app = build_server(db_url, session_id).streamable_http_app(host=host)
        uvicorn.run(app, host=host, port=port, log_level="warning")
    else:
        raise ConfigurationError(f"unknown transport {transport!r}: use stdio or streamable-http")


async def _check_store(db_url: str | None) -> None:
    from taskforce.store import StateManager

    async with StateManager(db_url) as store:
        await store.list_sessions(limit=1)


async def _serve_stdio(db_url: str | None, session_id: str | None) -> None:
    from mcp.server.stdio import stdio_server

    from taskforce.store import StateManager

    async with StateManager(db_url) as store:
        await store.list_sessions(limit=1)
        server = build_server(session_id=session_id, store=store)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
