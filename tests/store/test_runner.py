"""The runner's usual SQLite write: one call on the kept connection, shielded to its end.

A cancellation that arrives during the call waits for it and then applies; what the call
did decides what the caller learns (its failure is not reported over the cancellation).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from taskforce.errors import StaleStateError, StateError
from taskforce.store import StateManager
from taskforce.store._tx import BrokenConnection, Tx


def _held(
    entered: threading.Event, release: threading.Event, fail: BaseException | None
) -> Callable[[Tx], int]:
    def body(tx: Tx) -> int:
        entered.set()
        assert release.wait(10)
        if fail is not None:
            raise fail
        return 7

    return body


async def _cancel_during(
    sm: StateManager,
    body: Callable[[Tx], Any],
    entered: threading.Event,
    release: threading.Event,
    write: bool = True,
) -> asyncio.Task[Any]:
    task = asyncio.create_task(sm._db.run_tx(body, write=write))
    assert await asyncio.to_thread(entered.wait, 10)  # the body runs in the connection's thread
    task.cancel()
    await asyncio.sleep(0.01)
    assert not task.done()  # still waiting for the call in the connection's thread
    release.set()
    return task


async def test_a_write_that_fails_while_cancelled_raises_the_cancellation(tmp_path: Path) -> None:
    sm = StateManager(f"sqlite:///{tmp_path / 'r.db'}")
    try:
        await sm.save_state("s", {"mission": "m"})  # the writer's connection is now kept
        entered, release = threading.Event(), threading.Event()
        body = _held(entered, release, StaleStateError("s", 1, 2))
        task = await _cancel_during(sm, body, entered, release)
        with pytest.raises(asyncio.CancelledError):
            await task
        assert (await sm._db.run_tx(lambda tx: 1))[0] == 1  # the connection still works
        assert (await sm.load_state("s")) == {"mission": "m", "version": 1}
    finally:
        await sm.close()


async def test_a_write_that_lands_while_cancelled_says_so(tmp_path: Path) -> None:
    sm = StateManager(f"sqlite:///{tmp_path / 'r.db'}")
    try:
        await sm.save_state("s", {"mission": "m"})
        entered, release = threading.Event(), threading.Event()
        task = await _cancel_during(sm, _held(entered, release, None), entered, release)
        assert await task == (7, True)  # the result, and "a cancellation came meanwhile"
    finally:
        await sm.close()


async def test_a_read_in_memory_cancelled_midway_raises_the_cancellation() -> None:
    sm = StateManager("sqlite://")
    try:
        await sm.save_state("s", {"mission": "m"})  # in memory every call uses the kept one
        entered, release = threading.Event(), threading.Event()
        task = await _cancel_during(sm, _held(entered, release, None), entered, release, False)
        with pytest.raises(asyncio.CancelledError):
            await task
        assert (await sm.load_state("s")) == {"mission": "m", "version": 1}
    finally:
        await sm.close()


async def test_a_broken_connection_is_dropped_and_the_next_write_opens_another(
    tmp_path: Path,
) -> None:
    sm = StateManager(f"sqlite:///{tmp_path / 'r.db'}")
    try:
        await sm.save_state("s", {"mission": "m"})
        kept = sm._db._writer
        assert kept is not None

        def broken(tx: Tx) -> None:
            raise BrokenConnection("rollback failed: disk I/O error")

        with pytest.raises(StateError, match="rollback failed"):
            await sm._db.run_tx(broken)
        assert sm._db._writer is None
        assert await sm.save_state("s", {"mission": "n"}, 1) == 2
        assert sm._db._writer is not None and sm._db._writer is not kept
    finally:
        await sm.close()
