"""The MCP server: planner tools, plan resources (with change notifications) and prompts.

Over a `StateManager`; the transports are in :mod:`taskforce.mcp.serve`.
"""

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
from taskforce.mcp import _claims
from taskforce.mcp._claims import Worker
from taskforce.mcp._notify import PlanChanges, plan_uri, session_of
from taskforce.mcp._prompts import PROMPTS, get_prompt
from taskforce.mcp._tools import TOOLS, failure, success, tool_definitions
from taskforce.store import validate_session_id
from taskforce.tools.planner import PlannerTool

if TYPE_CHECKING:
    from taskforce.store import StateManager

logger = logging.getLogger(__name__)

DEFAULT_SESSION = "mcp"
"""The session a call uses when neither it nor the server names one."""

PAGE_SIZE = 50
"""Resources per `resources/list` page (newest first; `nextCursor` for more)."""
_INSTRUCTIONS = (
    "A persistent plan as a checklist: create_plan first, then mark_done each step "
    "(status IN_PROGRESS when you start it, DONE when finished), read_plan to see where you "
    "are, update_plan to revise. Steps are numbered from 1. Plans are kept per session "
    "(session_id); the plan is also readable as the resource plan://<session_id>."
)


@dataclass
class _Running:
    """What a running server holds: the store, the worker it acts for, a lock per session."""

    store: StateManager
    worker: Worker | None = None
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
    owner: str | None = None,
    lease: float = 300.0,
) -> Server[Any]:
    """An MCP server exposing the planner's actions as tools and plans as resources.

    Clients are told when a plan changes (``notifications/resources/updated`` on
    ``subscriptions/listen`` streams, or after ``resources/subscribe``), whoever changed
    it: this server, an agent run or another process sharing the database.

    Args:
        db_url: Database URL for a store the server opens and closes with its lifespan
            (default: ``TASKFORCE_DB_URL``, else the user data dir).
        session_id: The session a call uses when it names none (default ``"mcp"``).
        store: An open store to use instead (not closed by the server); excludes `db_url`.
        owner: Serve a worker of that name on shared plans: the tools ``claim_step``,
            ``renew_lease``, ``finish_step`` and ``release_step`` are added, and the
            planner tools act as that owner (steps it starts are held by it).
        lease: Seconds a step this worker claims stays held without renewal.

    Raises:
        InvalidSessionIdError: `session_id` is not a valid session id.
        ConfigurationError: both `db_url` and `store` were given.
    """
    if store is not None and db_url is not None:
        raise ConfigurationError("pass either db_url or store, not both")
    default = validate_session_id(session_id or DEFAULT_SESSION)
    worker = _worker(owner, lease)
    tools = tool_definitions(default)
    if worker is not None:
        tools += _claims.definitions(default)
    changes = PlanChanges()

    @asynccontextmanager
    async def lifespan(_: Server[Any]) -> AsyncIterator[_Running]:
        async with _opened(store, db_url) as opened, anyio.create_task_group() as tasks:
            tasks.start_soon(changes.follow, opened)
            try:
                yield _Running(opened, worker)
            finally:
                tasks.cancel_scope.cancel()

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
        offset = _offset(params.cursor if params is not None else None)
        running: _Running = ctx.lifespan_context
        rows = await running.store.list_sessions(limit=PAGE_SIZE, offset=offset)
        resources = [
            types.Resource(
                uri=plan_uri(row.session_id),
                name=f"plan-{row.session_id}",
                title=row.title or f"Plan of session {row.session_id}",
                description=f"{row.steps_done}/{row.steps_total} steps done"
                + (f" · {row.status}" if row.status else ""),
                mime_type="text/markdown",
            )
            for row in rows
        ]
        more = str(offset + PAGE_SIZE) if len(rows) == PAGE_SIZE else None
        return types.ListResourcesResult(resources=resources, next_cursor=more)

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
        sid = session_of(uri)
        running: _Running = ctx.lifespan_context
        result = await PlannerTool(state_manager=running.store, session_id=sid).execute(
            action="read_plan"
        )
        if not result["success"]:
            raise MCPError(types.INTERNAL_ERROR, result["error"])
        text = types.TextResourceContents(uri=uri, mime_type="text/markdown", text=result["output"])
        return types.ReadResourceResult(contents=[text])

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=PROMPTS)

    async def prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        return get_prompt(params.name, dict(params.arguments or {}), default)

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
        on_subscribe_resource=changes.subscribe,
        on_unsubscribe_resource=changes.unsubscribe,
        on_subscriptions_listen=changes.listen,
        on_list_prompts=list_prompts,
        on_get_prompt=prompt,
    )


@asynccontextmanager
async def _opened(store: StateManager | None, db_url: str | None) -> AsyncIterator[StateManager]:
    if store is not None:
        yield store
        return
    from taskforce.store import StateManager

    async with StateManager(db_url) as opened:
        yield opened


def _worker(owner: str | None, lease: float) -> Worker | None:
    if owner is None:
        return None
    from taskforce.plan.step import check_owner

    if isinstance(lease, bool) or not isinstance(lease, int | float) or not 0 < lease <= 86_400:
        raise ConfigurationError(f"lease must be 0 < seconds <= 86400, not {lease!r}")
    return Worker(check_owner(owner), float(lease))


def _offset(cursor: str | None) -> int:
    """The offset a `resources/list` cursor stands for (our cursors are offsets)."""
    if cursor is None:
        return 0
    if not cursor.isdigit() or len(cursor) > 9:
        raise MCPError(types.INVALID_PARAMS, f"invalid cursor {cursor[:40]!r}")
    return int(cursor)


async def _call(
    running: _Running, name: str, arguments: dict[str, Any], default: str
) -> types.CallToolResult:
    """Run one planner action on a freshly loaded plan; a refusal changes nothing."""
    claims = running.worker is not None and name in _claims.TOOLS
    if name not in TOOLS and not claims:
        names = [*TOOLS, *(_claims.TOOLS if running.worker is not None else ())]
        return failure(f"Unknown tool {name!r}: use one of {', '.join(names)}", "unknown_tool")
    if "action" in arguments:
        return failure("unexpected parameter 'action'", "invalid_input")
    session_id = arguments.pop("session_id", None)
    try:
        session_id = validate_session_id(default if session_id is None else session_id)
    except InvalidSessionIdError as exc:
        return failure(str(exc), "invalid_session")
    if claims:
        assert running.worker is not None
        return await _claims.call(running.store, running.worker, name, session_id, arguments)
    worker = running.worker
    async with running.lock(session_id):
        tool = PlannerTool(
            state_manager=running.store,
            session_id=session_id,
            owner=worker.owner if worker is not None else None,
            lease_seconds=worker.lease if worker is not None else 300.0,
        )
        result = await tool.execute(action=name, **arguments)
    if not result["success"]:
        return failure(result["error"], result.get("error_type") or "invalid_input")
    message = result.get("message") or ""
    return success(tool.plan, session_id, message, result["output"], quiet=name == "read_plan")
