"""Writers of one SQLite file take turns through an OS lock on a file beside it.

SQLite admits one writer at a time and makes the others wait in its busy handler, which
sleeps and tries again (1, 2, 5, ... then 100 ms at a time): with eight writers on one
file a call could wait most of a second while the lock stood free most of that time. So a
taskforce writer first takes an exclusive ``flock`` on ``<database>-lock`` and holds it
for its whole transaction. Waiting writers sleep in the kernel, and one of them is woken
the moment the lock is released.

SQLite's own lock stays the guard: a program that does not take this lock is still kept
out by it; this lock only orders taskforce's writers, so they queue instead of polling.

- A process that dies holding it, even SIGKILLed, releases it: the kernel closes its files.
- A wait that is cancelled or runs out of time leaks nothing: the waiting thread lets the
  lock go again if it is granted after its waiter gave up.
- Where it cannot be had (no ``fcntl``, e.g. Windows; a folder where no file can be
  created) writers go straight to SQLite's lock, as before.

Hand-written on purpose: the well-kept ``filelock`` and ``portalocker`` wait by polling
with a sleep, which is exactly the delay this removes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class Turns:
    """The writers' queue of one SQLite file: ``flock`` on ``<database>-lock``.

    Args:
        database: The database file (the lock file is created beside it on first use).
    """

    def __init__(self, database: Path) -> None:
        self.path = database.with_name(database.name + "-lock")

    async def take(self, within: float) -> int | None:
        """Wait for this process's turn; the open lock file to :meth:`end` it with.

        None: the lock cannot be had here, so the caller goes on with SQLite's lock only.

        Raises:
            TimeoutError: another writer held the lock for `within` seconds.
        """
        if fcntl is None:  # pragma: no cover - Windows
            return None
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CREAT, 0o666)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd  # nobody holds it: no thread needed
        except BlockingIOError:
            pass
        except OSError:
            os.close(fd)
            return None
        granted: concurrent.futures.Future[None] = concurrent.futures.Future()
        waiter = threading.Thread(target=_wait, args=(fd, granted), name="taskforce-turn")
        waiter.daemon = True
        waiter.start()
        try:
            async with asyncio.timeout(within):
                await asyncio.wrap_future(granted)
        except BaseException as exc:
            # Given up (cancelled, timed out) or failed: the file is closed, and so the
            # lock released, once the wait has ended (at once if it has already).
            granted.add_done_callback(lambda _: os.close(fd))
            if isinstance(exc, OSError) and not isinstance(exc, TimeoutError):
                return None  # flock itself failed (e.g. no locks on this file system)
            raise
        return fd

    @staticmethod
    def end(fd: int | None) -> None:
        """Release a turn :meth:`take` returned (closing the file releases the lock)."""
        if fd is not None:
            os.close(fd)


def _wait(fd: int, granted: concurrent.futures.Future[None]) -> None:
    """Block until the lock is granted (in a thread of its own: the event loop runs on)."""
    assert fcntl is not None
    if not granted.set_running_or_notify_cancel():
        return  # given up before this thread ran: the waiter closes the file
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except BaseException as exc:
        granted.set_exception(exc)
    else:
        granted.set_result(None)
