"""Writers of one SQLite file queue on an OS lock beside it (``store/_turns.py``).

The lock is held from outside the store (another open file: ``flock`` locks of two open
files conflict even within one process), so each test controls exactly when it is free.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from taskforce.errors import StateError
from taskforce.store import StateManager
from tests.filesystems import make_read_only, make_writable, tmpfs

STATE = {"mission": "m", "counter": 1}


def url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


def lock_path(db: Path) -> Path:
    return db.with_name(db.name + "-lock")


def hold(db: Path) -> int:
    """Take the writers' lock of `db` from outside the store; close the result to free it."""
    fd = os.open(lock_path(db), os.O_RDONLY | os.O_CREAT, 0o666)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def free(db: Path) -> bool:
    """Whether nobody holds the writers' lock of `db` (checked without keeping it)."""
    fd = os.open(lock_path(db), os.O_RDONLY | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def waiters() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "taskforce-turn"]


async def until_waiting(write: asyncio.Task[int]) -> None:
    """Until `write` waits for its turn (its waiting thread exists); it must not finish first."""
    while not waiters():
        assert not write.done(), "the write did not wait for its turn"
        await asyncio.sleep(0.005)


def join_waiters() -> None:
    for thread in waiters():
        thread.join(timeout=60)
        assert not thread.is_alive()


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "turns.db"
    join_waiters()


async def test_a_write_waits_for_its_turn_and_goes_on_when_it_is_released(db: Path) -> None:
    async with StateManager(url(db)) as sm:
        await sm.save_state("s", STATE)  # schema and lock file exist
        assert lock_path(db).is_file()
        held = hold(db)
        try:
            save = asyncio.create_task(sm.save_state("s", {**STATE, "counter": 2}, 1))
            await until_waiting(save)
            assert not save.done()  # SQLite itself is free: only the turn keeps it waiting
            assert (await sm.load_state("s")) == {**STATE, "version": 1}  # reads never wait
        finally:
            os.close(held)
        assert await save == 2
        assert free(db)  # released after the commit
        assert (await sm.load_state("s")) == {**STATE, "counter": 2, "version": 2}


async def test_a_writer_cancelled_while_waiting_still_writes_and_leaks_no_lock(db: Path) -> None:
    # Like SQLite's own wait it replaces, the wait for a turn is part of the write, which
    # runs to its end through a cancellation (Ctrl-C while a tool result is saved keeps it).
    async with StateManager(url(db)) as sm:
        await sm.save_state("s", STATE)
        held = hold(db)
        try:
            save = asyncio.create_task(sm.save_state("s", {**STATE, "counter": 2}, 1))
            await until_waiting(save)
            save.cancel()
            await asyncio.sleep(0.05)
            assert not save.done()  # still waiting for its turn
        finally:
            os.close(held)
        with pytest.raises(asyncio.CancelledError, match="version 2 was committed"):
            await save
        join_waiters()
        assert free(db)
        assert (await sm.load_state("s")) == {**STATE, "counter": 2, "version": 2}


async def test_a_turn_held_too_long_is_a_clear_error_and_leaks_no_lock(db: Path) -> None:
    async with StateManager(url(db), lock_retry_seconds=0.2) as sm:
        await sm.save_state("s", STATE)
        held = hold(db)
        try:
            with pytest.raises(StateError, match=r"stayed locked for 0\.2s.*turns\.db-lock"):
                await sm.save_state("s", {**STATE, "counter": 2}, 1)
        finally:
            os.close(held)
        join_waiters()
        assert free(db)
        assert (await sm.load_state("s")) == {**STATE, "version": 1}


async def test_a_killed_holder_releases_its_turn(db: Path) -> None:
    async with StateManager(url(db)) as sm:
        await sm.save_state("s", STATE)
        script = (
            "import fcntl, os, sys, time\n"
            "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "time.sleep(120)\n"
        )
        proc = subprocess.Popen(  # noqa: ASYNC220 (the holder must be another process)
            [sys.executable, "-c", script, str(lock_path(db))], stdout=subprocess.PIPE, text=True
        )
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "held"
            save = asyncio.create_task(sm.save_state("s", {**STATE, "counter": 2}, 1))
            await until_waiting(save)
            assert not save.done()
            proc.send_signal(signal.SIGKILL)
            assert await save == 2
        finally:
            proc.kill()
            proc.communicate()


async def test_without_a_usable_lock_file_writers_rely_on_sqlite_alone(db: Path) -> None:
    lock_path(db).mkdir(parents=True)  # a folder where the lock file would go
    async with StateManager(url(db)) as sm:
        assert await sm.save_state("s", STATE) == 1
        assert await sm.save_state("s", {**STATE, "counter": 2}, 1) == 2


async def test_an_in_memory_database_makes_no_lock_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    async with StateManager("sqlite+aiosqlite:///:memory:") as sm:
        assert await sm.save_state("s", STATE) == 1
        assert await sm.save_state("s", {**STATE, "counter": 2}, 1) == 2
    assert os.listdir(tmp_path) == []


async def test_a_read_only_database_refuses_writes_as_before(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "mnt") as mount:
        db = mount / "ro.db"
        async with StateManager(url(db)) as sm:
            await sm.save_state("s", STATE)
        make_read_only(mount)
        try:
            async with StateManager(url(db)) as sm:
                with pytest.raises(StateError, match="read-only"):
                    await sm.save_state("s", {**STATE, "counter": 2}, 1)
                assert (await sm.load_state("s")) == {**STATE, "version": 1}
        finally:
            make_writable(mount)


def open_lock_files(db: Path) -> int:
    """How many descriptors of this process are open on the writers' lock file of `db`."""
    target = str(lock_path(db))
    return sum(
        1 for fd in os.listdir("/proc/self/fd") if os.path.realpath(f"/proc/self/fd/{fd}") == target
    )


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
async def test_the_lock_file_stays_open_between_writes_and_is_closed_with_the_store(
    db: Path,
) -> None:
    # One open descriptor per store, locked and unlocked per write (no open and close per
    # commit); the lock is free between writes and the descriptor goes with the store.
    async with StateManager(url(db)) as sm:
        await sm.save_state("s", STATE)
        assert open_lock_files(db) == 1
        assert free(db)
        assert await sm.save_state("s", {**STATE, "counter": 2}, 1) == 2
        assert open_lock_files(db) == 1
        assert free(db)
        held = hold(db)  # a writer that must wait waits on a descriptor of its own
        try:
            save = asyncio.create_task(sm.save_state("s", {**STATE, "counter": 3}, 2))
            await until_waiting(save)
            assert open_lock_files(db) == 3  # held, kept, and the waiting writer's own
        finally:
            os.close(held)
        assert await save == 3
        join_waiters()
        assert open_lock_files(db) == 1
        assert free(db)
    assert open_lock_files(db) == 0


def test_a_forked_child_does_not_use_its_parents_lock_descriptor(tmp_path: Path) -> None:
    # flock locks belong to the open file: a child using the descriptor it inherited
    # would hold its parent's lock. After a fork the child drops it (and opens its own).
    from taskforce.store import _turns

    turns = _turns.Turns(tmp_path / "f.db", 1.0)
    turn = turns.turn()
    turn.take()
    kept = turns.fd
    assert kept is not None
    turn.end()
    _turns._forget_inherited()  # what os.register_at_fork runs in the child
    assert turns.fd is None
    turn = turns.turn()
    turn.take()
    assert turns.fd is not None
    turn.end()
    turns.close()
    assert turns.fd is None
