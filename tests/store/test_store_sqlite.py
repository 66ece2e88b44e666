"""SQLite done right: pragmas, BEGIN IMMEDIATE, busy timeout and bounded lock retries."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from taskforce.errors import StateError
from taskforce.store import StateManager
from tests.store.conftest import make_state


def _url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


async def test_pragmas_on_every_connection(tmp_path: Path) -> None:
    async with StateManager(_url(tmp_path / "p.db"), busy_timeout_ms=1234) as sm:
        await sm.list_sessions()
        async with sm.engine.connect() as conn:
            values = [
                (await conn.execute(text(f"PRAGMA {name}"))).scalar()
                for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
            ]
    assert values == ["wal", 2, 1, 1234]  # synchronous=2 is FULL: every commit is durable


async def test_stores_sharing_one_engine_each_work(tmp_path: Path) -> None:
    """A second StateManager on the first one's engine (``engine=``) reads, writes and
    claims; the engine's hooks are the first store's, installed once (not BEGIN twice).
    """
    async with StateManager(_url(tmp_path / "s.db"), busy_timeout_ms=1234) as first:
        await first.save_state("s", make_state(2))
        async with StateManager(engine=first.engine, busy_timeout_ms=99) as second:
            claim = await second.claim_step("s", "bob", 30)
            assert claim is not None and claim.number == 1
            stored = await second.load_state("s")
            assert stored is not None and stored["version"] == 2
            version = await second.save_state("t", make_state(1))
            assert version == 1
            async with second.engine.connect() as conn:
                timeout = (await conn.execute(text("PRAGMA busy_timeout"))).scalar()
            assert timeout == 1234
        assert await first.load_state("t") is not None  # the second store's write, seen


async def test_parent_directory_is_created(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "t.db"
    async with StateManager(_url(path)) as sm:
        await sm.save_state("a", {})
    assert path.exists()


def _hold_write_lock(path: Path, seconds: float, locked: threading.Event) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    locked.set()
    time.sleep(seconds)
    conn.execute("COMMIT")
    conn.close()


async def _with_side_lock(path: Path, seconds: float, sm: StateManager) -> int:
    locked = threading.Event()
    holder = threading.Thread(target=_hold_write_lock, args=(path, seconds, locked))
    holder.start()
    try:
        await asyncio.to_thread(locked.wait)
        return await sm.save_state("s", make_state(2))
    finally:
        await asyncio.to_thread(holder.join)


async def test_a_side_connection_holding_the_write_lock_briefly(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    async with StateManager(_url(path)) as sm:
        await sm.save_state("s", make_state(1))
        assert await _with_side_lock(path, 0.3, sm) == 2  # waited on the busy timeout


async def test_lock_held_longer_than_busy_timeout_is_retried(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    async with StateManager(_url(path), busy_timeout_ms=20) as sm:
        await sm.save_state("s", make_state(1))
        assert await _with_side_lock(path, 0.4, sm) == 2  # tenacity retried


async def test_a_lock_that_never_goes_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "n.db"
    async with StateManager(_url(path), busy_timeout_ms=10, lock_retry_seconds=0.3) as sm:
        await sm.save_state("s", make_state(1))
        with pytest.raises(StateError, match="stayed locked"):
            await _with_side_lock(path, 1.0, sm)
        assert await sm.load_state("s") == {**make_state(1), "version": 1}


async def test_read_while_another_connection_writes(tmp_path: Path) -> None:
    """WAL: readers are not blocked by a writer holding the lock."""
    path = tmp_path / "w.db"
    async with StateManager(_url(path), busy_timeout_ms=10, lock_retry_seconds=0.1) as sm:
        await sm.save_state("s", make_state(1))
        locked = threading.Event()
        holder = threading.Thread(target=_hold_write_lock, args=(path, 0.5, locked))
        holder.start()
        await asyncio.to_thread(locked.wait)
        assert (await sm.load_state("s")) is not None
        assert len(await sm.list_sessions()) == 1
        await asyncio.to_thread(holder.join)


async def test_listing_walks_the_updated_at_index(tmp_path: Path) -> None:
    """The listing is an index walk + LIMIT, so it stays flat as sessions accumulate."""
    path = tmp_path / "ix.db"
    async with StateManager(_url(path)) as sm:
        await sm.save_state("a", {})
    conn = sqlite3.connect(path)
    plan = conn.execute(
        "EXPLAIN QUERY PLAN SELECT session_id FROM tf_sessions WHERE version > 0 "
        "ORDER BY updated_at DESC, session_id DESC LIMIT 50 OFFSET 0"
    ).fetchall()
    conn.close()
    details = " ".join(str(row[-1]) for row in plan)
    assert "USING INDEX ix_tf_sessions_updated" in details and "TEMP B-TREE" not in details
