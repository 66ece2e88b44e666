"""Work run to its end through cancellations: a cancellation waits for it, then applies."""

from __future__ import annotations

import asyncio

import anyio
import pytest

from taskforce.store._settle import settle, to_its_end


async def _work(log: list[str], value: int, fail: bool = False) -> int:
    log.append("started")
    for _ in range(20):
        await asyncio.sleep(0)
    log.append("finished")
    if fail:
        raise ValueError("the work failed")
    return value


async def test_without_cancellation_the_result_or_the_error_comes_back() -> None:
    log: list[str] = []
    assert await to_its_end(_work(log, 7)) == 7
    with pytest.raises(ValueError, match="the work failed"):
        await to_its_end(_work(log, 7, fail=True))
    assert log == ["started", "finished"] * 2


async def test_a_cancellation_waits_for_the_work_then_applies() -> None:
    log: list[str] = []
    caller = asyncio.ensure_future(to_its_end(_work(log, 1)))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert log == ["started"]
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert log == ["started", "finished"]


async def test_a_cancel_scope_that_cancels_again_and_again_still_waits() -> None:
    log: list[str] = []
    with anyio.CancelScope() as scope:
        scope.cancel()  # anyio re-delivers this on every await inside the scope
        await to_its_end(_work(log, 1))
    assert scope.cancelled_caught
    assert log == ["started", "finished"]


async def test_settle_reports_whether_a_cancellation_arrived_and_leaves_the_outcome() -> None:
    log: list[str] = []
    task = asyncio.ensure_future(_work(log, 3, fail=True))
    assert await settle(task) is None
    assert isinstance(task.exception(), ValueError)

    inner = asyncio.ensure_future(_work(log, 4))
    waiter = asyncio.ensure_future(settle(inner))
    await asyncio.sleep(0)
    waiter.cancel()
    assert isinstance(await waiter, asyncio.CancelledError)  # and waited all the same
    assert inner.result() == 4
