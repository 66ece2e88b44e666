"""The stdio transport, answering what the SDK's reader drops: bad JSON and bad requests.

The SDK's ``stdio_server`` turns a line that is not JSON, or not a JSON-RPC message,
into an exception on the read stream, and the server only logs it, so the client waits
for its own timeout. Here each one gets the JSON-RPC answer the spec asks for:
``-32700`` (parse error) or ``-32600`` (invalid request), with the request's id when it
can be read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError


def error_reply(exc: Exception) -> SessionMessage:
    """The JSON-RPC error for a line the SDK could not read as a message."""
    errors = exc.errors() if isinstance(exc, ValidationError) else []
    if any(e["type"] == "json_invalid" for e in errors):
        code, message, request_id = types.PARSE_ERROR, "Parse error: not valid JSON", None
    else:
        code, message = types.INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message"
        request_id = next((i for e in errors if (i := _id_of(e.get("input"))) is not None), None)
    error = types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    )
    return SessionMessage(error)


def _id_of(value: Any) -> str | int | None:
    request_id = value.get("id") if isinstance(value, dict) else None
    if isinstance(request_id, str) or (type(request_id) is int):
        return request_id
    return None


@asynccontextmanager
async def stdio_streams() -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], Any]
]:
    """The SDK's stdio streams, with unreadable lines answered instead of dropped."""
    async with stdio_server() as (read_stream, write_stream):
        send: MemoryObjectSendStream[SessionMessage | Exception]
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def pump() -> None:
            async with send:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        await write_stream.send(error_reply(item))
                    else:
                        await send.send(item)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(pump)
            try:
                yield receive, write_stream
            finally:
                tasks.cancel_scope.cancel()
