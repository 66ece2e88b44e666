"""The change feed: `StateManager.changes()` reports committed saves and deletes, made in
this process or another one, on SQLite (polling) and PostgreSQL (LISTEN/NOTIFY).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from collections.abc import AsyncGenerator
from pathlib import Path

import anyio
import pytest
from sqlalchemy import event

from taskforce.store import Change, StateManager
from tests.store.conftest import Backend, make_state

ROOT = Path(__file__).resolve().parents[2]
GUARD = 60  # seconds: a hang fails the test instead of the suite (not a timing assertion)


async def take(feed: AsyncGenerator[Change], count: int) -> list[Change]:
    got: list[Change] = []
    with anyio.fail_after(GUARD):
        async for change in feed:
            got.append(change)
            if len(got) == count:
                break
    return got


def started(feed: AsyncGenerator[Change]) -> asyncio.Task[list[Change]]:
    """Wait for `feed`'s next change in the background (it was given `known`, so a write
    made before it takes its own baseline is reported all the same).
    """
    return asyncio.ensure_future(take(feed, 1))


async def test_saves_and_deletes_in_this_process_are_reported(shared_backend: Backend) -> None:
    sm = shared_backend.make()
    watcher = shared_backend.make()
    await sm.save_state("a", make_state())
    feed = watcher.changes(known={"a": 1}, poll_interval=0.05)
    first = started(feed)
    version = await sm.save_state("a", make_state(done=1))
    assert await first == [Change("a", version)]
    await sm.save_state("b", make_state())
    assert await take(feed, 1) == [Change("b", 1)]
    await sm.delete_state("a")
    assert await take(feed, 1) == [Change("a", 0)]
    await feed.aclose()


async def test_one_sessions_feed_ignores_the_others(shared_backend: Backend) -> None:
    sm = shared_backend.make()
    feed = sm.changes("mine", known={}, poll_interval=0.05)
    first = started(feed)
    await sm.save_state("other", make_state())
    await sm.save_state("mine", make_state())
    assert await first == [Change("mine", 1)]
    await feed.aclose()


async def test_known_versions_report_what_happened_before_the_feed_started(
    shared_backend: Backend,
) -> None:
    sm = shared_backend.make()
    await sm.save_state("s", make_state())
    await sm.save_state("s", make_state(done=2))  # the watcher only saw version 1
    feed = sm.changes("s", known={"s": 1}, poll_interval=0.05)
    assert await take(feed, 1) == [Change("s", 2)]
    await feed.aclose()


async def test_a_change_made_by_another_process_is_reported(shared_backend: Backend) -> None:
    sm = shared_backend.make()
    await sm.save_state("shared", make_state())
    feed = sm.changes("shared", known={"shared": 1}, poll_interval=0.05)
    first = started(feed)
    if shared_backend.pg is not None:
        engine = (
            "create_async_engine(url, connect_args={'server_settings': "
            f"{{'search_path': {shared_backend.pg.schema!r}}}}})"
        )
        opened = f"StateManager(engine={engine})"
    else:
        opened = "StateManager(url)"
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        from sqlalchemy.ext.asyncio import create_async_engine
        from taskforce.store import StateManager
        from tests.store.conftest import make_state

        async def main(url):
            sm = {opened}
            await sm.save_state("shared", make_state(done=3))
            await sm.close()
            await sm.engine.dispose()

        asyncio.run(main(sys.argv[1]))
        """
    )
    command = [sys.executable, "-c", script, shared_backend.url]
    await anyio.to_thread.run_sync(
        lambda: subprocess.run(command, cwd=ROOT, check=True, timeout=GUARD)
    )
    assert await first == [Change("shared", 2)]
    await feed.aclose()


async def test_a_rolled_back_write_is_not_announced(shared_backend: Backend) -> None:
    sm = shared_backend.make()
    await sm.save_state("s", make_state())
    feed = sm.changes("s", known={"s": 1}, poll_interval=0.05)
    first = started(feed)
    from taskforce.errors import StaleStateError

    with pytest.raises(StaleStateError):
        await sm.save_state("s", make_state(done=1), expected_version=7)
    await sm.save_state("s", make_state(done=2), expected_version=1)
    assert await first == [Change("s", 2)]  # the refused write never showed
    await feed.aclose()


async def test_invalid_session_id_is_refused_before_watching(tmp_path: Path) -> None:
    from taskforce.errors import InvalidSessionIdError

    async with StateManager(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}") as sm:
        with pytest.raises(InvalidSessionIdError):
            await anext(sm.changes("no spaces"))


async def test_a_feed_stopped_by_a_cancel_scope_mid_look_leaves_no_connection_behind(
    tmp_path: Path,
) -> None:
    """anyio cancel scopes (MCP servers, task groups) cancel a feed in the middle of a look
    and then cancel its clean-up again. No connection may be abandoned halfway: SQLAlchemy
    would terminate it, and aiosqlite's terminate could hang the event loop's shutdown.
    """
    from sqlalchemy import event

    invalidated: list[object] = []
    async with StateManager(f"sqlite+aiosqlite:///{tmp_path / 'feed.db'}") as sm:
        await sm.save_state("s", make_state())
        event.listen(sm.engine.sync_engine, "invalidate", lambda *a: invalidated.append(a))
        held = sm.engine.pool.checkedout()  # type: ignore[attr-defined]  # the kept writer
        looks = 0
        for turns in range(40):  # cancel after 0..19 loop turns (some land mid-look), or
            seen = asyncio.Event()  # after 0..19 turns past a first look (mid-poll)

            async def follow(seen: asyncio.Event) -> None:
                nonlocal looks
                async for _ in sm.changes(known={}, poll_interval=0):
                    looks += 1
                    seen.set()

            async with anyio.create_task_group() as group:
                group.start_soon(follow, seen)
                if turns >= 20:
                    with anyio.fail_after(GUARD):
                        await seen.wait()
                for _ in range(turns % 20):
                    await asyncio.sleep(0)
                group.cancel_scope.cancel()
            assert sm.engine.pool.checkedout() == held, turns  # type: ignore[attr-defined]
        assert invalidated == []
        assert looks >= 20  # the feed did look (it reports the session it was not told of)
        assert await sm.load_state("s") is not None  # the store still works


@pytest.mark.parametrize(
    "shared_backend", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
async def test_a_postgresql_save_announces_itself_in_the_bump_round_trip(
    shared_backend: Backend,
) -> None:
    """NOTIFY is PostgreSQL's: this test runs on PostgreSQL only."""
    sm = shared_backend.make()
    watcher = shared_backend.make()
    await sm.save_state("a", make_state())
    statements: list[str] = []

    def seen(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        statements.append(" ".join(statement.split()))

    feed = watcher.changes("a", known={"a": 1}, poll_interval=0.05)
    first = started(feed)
    event.listen(sm.engine.sync_engine, "before_cursor_execute", seen)
    try:
        version = await sm.save_state("a", make_state(done=1), 1)  # the cached version holds
        assert await first == [Change("a", version)]
        fresh = await sm.update_state("a", lambda s: ({**make_state(done=2)}, []))
        assert await take(feed, 1) == [Change("a", fresh)]
    finally:
        event.remove(sm.engine.sync_engine, "before_cursor_execute", seen)
    bumps = [s for s in statements if "UPDATE tf_sessions" in s]
    assert len(bumps) == 2 and all("pg_notify" in s for s in bumps)
    assert not [s for s in statements if s.startswith("SELECT pg_notify")]  # no extra trip
    # a step changed in place and the history go in the bump's own statement too
    alone = ("UPDATE tf_steps", "INSERT INTO tf_history")
    assert not [s for s in statements if s.startswith(alone)], statements
    await feed.aclose()
