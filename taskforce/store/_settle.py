"""Database work that must not be abandoned halfway: a cancellation waits for it, then applies.

An aiosqlite connection cannot be abandoned mid-operation. SQLAlchemy then invalidates it
and "terminates" it: a graceful close (a task of its own) races a forced stop of the
connection's thread, and the graceful close can end up waiting for a thread that has
already gone, so the event loop never finishes shutting down (a process that hangs on
exit). anyio cancel scopes cancel every await inside them again and again, clean-up code
included, so a ``finally`` is no safe place for database work either. Work run through
:func:`to_its_end` runs in a task of its own, which no cancel scope reaches, and the caller
waits for it through every cancellation.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")


async def settle(task: asyncio.Future[Any]) -> asyncio.CancelledError | None:
    """Wait until `task` is done, whatever cancellations arrive; the last one that arrived.

    The task's own outcome (a result, an exception, or its cancellation) is left in it.
    Re-raise the returned cancellation itself, not a new one: anyio recognises its cancel
    scope's cancellations by their message.
    """
    cancelled: asyncio.CancelledError | None = None
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError as exc:
            if not task.cancelled():
                cancelled = exc
        except BaseException:  # the task failed: its exception stays in it
            pass
    return cancelled


async def to_its_end(work: Awaitable[T]) -> T:
    """Await `work` to its end; a cancellation that arrived meanwhile is raised after it."""
    task = asyncio.ensure_future(work)
    cancelled = await settle(task)
    if cancelled is not None:
        with contextlib.suppress(BaseException):
            task.result()  # retrieved, so asyncio does not log it as never retrieved
        raise cancelled
    return task.result()
