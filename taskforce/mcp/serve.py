"""Serving the planner MCP server: over stdio, or streamable HTTP on a local port."""

from __future__ import annotations

import errno
import logging
import socket
import sys
from typing import Any

import anyio

from taskforce.errors import ConfigurationError, UserError
from taskforce.mcp._stdio import stdio_streams
from taskforce.mcp.server import DEFAULT_SESSION, build_server
from taskforce.store import default_db_url, require_persistent, validate_session_id

logger = logging.getLogger(__name__)

DEFAULT_PORT = 8765
"""Port of the streamable HTTP transport."""

TRANSPORTS = ("stdio", "streamable-http")
"""What `run_server` can serve over."""

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


class PortInUseError(UserError):
    """The HTTP port is taken by another program."""


def run_server(
    db_url: str | None = None,
    session_id: str | None = None,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    *,
    owner: str | None = None,
    lease: float = 300.0,
) -> None:
    """Serve the planner over stdio, or streamable HTTP at ``http://host:port/mcp``.

    With `owner`, the server acts for that worker on shared plans (claim tools added;
    see :func:`~taskforce.mcp.build_server`), each claim held for `lease` seconds.

    The store is opened (and migrated) before serving, so a bad URL or database fails
    here rather than on the client's first call. Over HTTP the address and the database
    are printed on stderr once the port is bound. Blocks until stdin closes (stdio) or
    the process is interrupted (HTTP).

    Raises:
        InvalidSessionIdError: `session_id` is not a valid session id.
        ConfigurationError: an unknown transport, or an unusable database URL (an
            in-memory SQLite URL included: its plans would vanish with the server).
        PortInUseError: the HTTP port is taken (or cannot be bound).
        StateError: the database cannot be opened or migrated.
    """
    validate_session_id(session_id or DEFAULT_SESSION)
    db_url = require_persistent(db_url or default_db_url())  # in memory, nothing would last
    build_server(db_url, session_id, owner=owner, lease=lease)  # bad options fail here
    worker = {"owner": owner, "lease": lease}
    if transport == "stdio":
        anyio.run(_serve_stdio, db_url, session_id, worker)
    elif transport == "streamable-http":
        _serve_http(db_url, session_id, host, port, worker)
    else:
        raise ConfigurationError(f"unknown transport {transport!r}: use stdio or streamable-http")


def _serve_http(
    db_url: str | None, session_id: str | None, host: str, port: int, worker: dict[str, Any]
) -> None:
    import uvicorn

    shown = anyio.run(_check_store, db_url)
    sock = bind(host, port)
    if host not in _LOOPBACK:
        logger.warning("the planner MCP server has no authentication; serving on %s", host)
    app = build_server(db_url, session_id, **worker).streamable_http_app(host=host)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    where = f"[{host}]" if ":" in host else host
    print(
        f"taskforce mcp: serving the planner at http://{where}:{port}/mcp "
        f"(database {shown}; Ctrl-C stops)",
        file=sys.stderr,
        flush=True,
    )
    with sock:
        server.run(sockets=[sock])


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on `host:port`; :class:`PortInUseError` if it is taken."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise PortInUseError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortInUseError(
                f"port {port} on {host} is already in use (another taskforce mcp?): "
                "choose another with --port"
            ) from exc
        raise PortInUseError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    return sock


async def _check_store(db_url: str | None) -> str:
    from taskforce.store import StateManager

    async with StateManager(db_url) as store:
        await store.list_sessions(limit=1)
        return store.url


async def _serve_stdio(db_url: str | None, session_id: str | None, worker: dict[str, Any]) -> None:
    from mcp.server.lowlevel import NotificationOptions

    from taskforce.store import StateManager

    async with StateManager(db_url) as store:
        await store.list_sessions(limit=1)
        server = build_server(session_id=session_id, store=store, **worker)
        options = server.create_initialization_options(NotificationOptions(resources_changed=True))
        async with stdio_streams() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, options)
