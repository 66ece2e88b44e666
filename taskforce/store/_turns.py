"""Writers of one SQLite file take turns through an OS lock on a file beside it.

SQLite admits one writer at a time and makes the others wait in its busy handler, which
sleeps and tries again (1, 2, 5, ... then 100 ms at a time): with eight writers on one
file a call could wait most of a second while the lock stood free most of that time. So a
taskforce write transaction first takes an exclusive ``flock`` on ``<database>-lock`` and
holds it to its end. Waiting writers sleep in the kernel, and one of them is woken the
moment the lock is released.

The turn is taken and released in the thread that runs the transaction (the aiosqlite
connection's), right around ``BEGIN IMMEDIATE`` ... ``COMMIT``: handing the lock from one
writer to the next then wakes no event loop, which would lengthen every turn. A writer
that has to wait does so through a helper thread blocked in ``flock``, so the wait can
end after a time limit. Like the busy handler's wait it replaces, it is part of the write,
which runs to its end through a cancellation (see ``_runner``).

SQLite's own lock stays the guard: a program that does not take this lock is still kept
out by it; this lock only orders taskforce's writers, so they queue instead of polling.

- The lock file is opened once per store and kept open (``flock`` and ``LOCK_UN`` per
  write, not an ``open`` and a ``close``); a forked child opens its own (a descriptor it
  inherited shares its parent's lock). A writer that has to wait waits on a descriptor of
  its own, closed when its turn ends.
- A process that dies holding it, even SIGKILLed, releases it: the kernel closes its files.
- A wait that runs out of time leaks nothing: the helper thread lets the lock go again if
  it is granted after its writer gave up.
- Where it cannot be had (no ``fcntl``, e.g. Windows; a folder where no file can be
  created; a file system without locks) writers go straight to SQLite's lock, as before.

Hand-written on purpose: the well-kept ``filelock`` and ``portalocker`` wait by polling
with a sleep, which is exactly the delay this removes.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class TurnTimeout(Exception):
    """Another writer held the lock for the whole time limit."""


class Turns:
    """The writers' queue of one SQLite file: ``flock`` on ``<database>-lock``.

    Holds the lock file open from the first write to :meth:`close`. Its writers must take
    their turns one at a time (the runner's lock): they share that one descriptor.

    Args:
        database: The database file (the lock file is created beside it on first use).
        within: Seconds a writer waits for its turn before :class:`TurnTimeout`.
    """

    def __init__(self, database: Path, within: float) -> None:
        self.path = database.with_name(database.name + "-lock")
        self.within = within
        self.fd: int | None = None
        _kept.add(self)

    def turn(self) -> Turn:
        """A place in the queue for one write (taken again by each of its attempts)."""
        return Turn(self.path, self.within, self)

    def open(self) -> int:
        """The kept descriptor of the lock file, opened (and created) on first use.

        Raises:
            OSError: the lock file cannot be opened or created.
        """
        if self.fd is None:
            self.fd = os.open(self.path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o666)
        return self.fd

    def close(self) -> None:
        """Close the kept descriptor (a write after this opens it again)."""
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)

    def __del__(self) -> None:
        self.close()


_kept: weakref.WeakSet[Turns] = weakref.WeakSet()


def _forget_inherited() -> None:
    """In a forked child: drop the parent's descriptors (the same lock as the parent's)."""
    for turns in list(_kept):
        turns.close()  # the parent's descriptor stays open, and its lock held if held


if hasattr(os, "register_at_fork"):  # pragma: no branch
    os.register_at_fork(after_in_child=_forget_inherited)


class Turn:
    """One write's turn: :meth:`take` and :meth:`end` in the transaction's own thread."""

    def __init__(self, path: Path, within: float, turns: Turns | None = None) -> None:
        self.path = path
        self.within = within
        self._turns = turns
        self._fd: int | None = None
        self._own = False  # the descriptor held is this turn's own (closed by end)

    def take(self) -> None:
        """Wait for the lock; without a usable lock file, return at once (SQLite decides).

        The kept descriptor (of :class:`Turns`) takes a free lock; a writer that has to
        wait does so on a descriptor of its own.

        Raises:
            TurnTimeout: the lock stayed held by another writer for ``within`` seconds.
        """
        if fcntl is None:  # pragma: no cover - Windows
            return
        try:
            fd = self._turns.open() if self._turns is not None else self._open()
        except OSError:
            return
        own = self._turns is None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not own:
                try:
                    fd = self._open()
                except OSError:
                    return
            self._fd, self._own = self._wait(fd), True
            return
        except OSError:
            if own:
                os.close(fd)
            return
        self._fd, self._own = fd, own

    def _open(self) -> int:
        return os.open(self.path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o666)

    def end(self) -> None:
        """Release the lock (closing an own descriptor releases it); nothing if none is held."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        if self._own:
            os.close(fd)
        else:
            assert fcntl is not None
            fcntl.flock(fd, fcntl.LOCK_UN)

    def _wait(self, fd: int) -> int | None:
        """Block until the helper thread is granted the lock: `fd`, or None if flock failed."""
        outcome: list[str] = []  # "granted" / "failed" from the helper, or "abandoned"
        cond = threading.Condition()

        def helper() -> None:
            assert fcntl is not None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                result = "granted"
            except OSError:
                result = "failed"
            with cond:
                if outcome:  # the writer gave up meanwhile: let the lock go at once
                    os.close(fd)
                    return
                outcome.append(result)
                cond.notify_all()

        waiter = threading.Thread(target=helper, name="taskforce-turn")
        waiter.daemon = True  # never keeps the process alive
        waiter.start()
        deadline = time.monotonic() + self.within
        with cond:
            while not outcome and (left := deadline - time.monotonic()) > 0:
                cond.wait(left)
            if outcome == ["granted"]:
                return fd
            if outcome == ["failed"]:
                os.close(fd)
                return None  # e.g. no locks on this file system: SQLite decides alone
            outcome.append("abandoned")  # the helper closes the file when its wait ends
            raise TurnTimeout
