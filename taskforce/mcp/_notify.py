"""Telling MCP clients that a plan changed, whoever changed it.

The store's change feed (:meth:`~taskforce.store.StateManager.changes`: LISTEN/NOTIFY on
PostgreSQL, polling on SQLite) reports every committed change, made by this server, an
agent run or another process sharing the database. Each one becomes
``notifications/resources/updated`` for ``plan://<session>``:

* on ``subscriptions/listen`` streams (protocol 2026-07-28), through the SDK's
  :class:`~mcp.server.subscriptions.ListenHandler`;
* to older clients that called ``resources/subscribe`` for that URI.

A new or deleted session also changes the resource list (``resources/list_changed`` on
listen streams).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourcesListChanged,
    ResourceUpdated,
)
from mcp.shared.exceptions import MCPError

from taskforce.errors import InvalidSessionIdError
from taskforce.store import validate_session_id

if TYPE_CHECKING:
    from typing import Any

    from mcp.server.session import ServerSession

    from taskforce.store import StateManager

logger = logging.getLogger(__name__)

SCHEME = "plan://"
POLL_SECONDS = 0.25
"""How often an SQLite database is looked at (one tiny query when nothing changed)."""
RETRY_SECONDS = 5.0


def plan_uri(session_id: str) -> str:
    """The resource URI of a session's plan."""
    return f"{SCHEME}{session_id}"


def session_of(uri: str) -> str:
    """The session id in a ``plan://<session>`` URI; `MCPError` (invalid params) otherwise."""
    if not uri.startswith(SCHEME):
        raise MCPError(types.INVALID_PARAMS, f"unknown resource {uri!r}: use plan://<session_id>")
    try:
        return validate_session_id(uri.removeprefix(SCHEME))
    except InvalidSessionIdError as exc:
        raise MCPError(types.INVALID_PARAMS, str(exc)) from exc


def _client(session: ServerSession) -> int:
    """Which client connection a request's session belongs to."""
    return id(getattr(session, "_connection", session))


class PlanChanges:
    """Fans the store's changes out to subscribed MCP clients (one per server)."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)
        # uri -> {connection key: the session of its subscribe request}; a session object
        # lives for one request, so clients are keyed by their connection.
        self._legacy: dict[str, dict[int, ServerSession]] = {}
        self._versions: dict[str, int] = {}

    async def subscribe(
        self, ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        """``resources/subscribe`` (2025-era clients): updates of one plan to this client."""
        uri = plan_uri(session_of(str(params.uri)))
        self._legacy.setdefault(uri, {})[_client(ctx.session)] = ctx.session
        return types.EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        """``resources/unsubscribe``."""
        self._legacy.get(str(params.uri), {}).pop(_client(ctx.session), None)
        return types.EmptyResult()

    async def changed(self, session_id: str, version: int) -> None:
        """Announce that `session_id` is now at `version` (0: deleted), once per version."""
        previous = self._versions.get(session_id)
        if previous == version:
            return
        self._versions[session_id] = version
        uri = plan_uri(session_id)
        await self.bus.publish(ResourceUpdated(uri))
        if previous is None or version == 0:  # may be new, or gone: the list changed
            await self.bus.publish(ResourcesListChanged())
        for key, session in list(self._legacy.get(uri, {}).items()):
            try:
                await session.send_resource_updated(uri)
            except Exception:  # a client that left: forget it
                self._legacy[uri].pop(key, None)

    async def follow(self, store: StateManager) -> None:
        """Announce the store's changes until cancelled (a database error is retried)."""
        while True:
            try:
                async for change in store.changes(poll_interval=POLL_SECONDS):
                    await self.changed(change.session_id, change.version)
            except Exception as exc:
                logger.warning("plan change feed stopped (%s); retrying", exc)
                await anyio.sleep(RETRY_SECONDS)
