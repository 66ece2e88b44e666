"""Deleting sessions: by version (kept when changed since), and listing them by age."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from taskforce.errors import StaleStateError
from taskforce.store import StateManager
from tests.store.conftest import make_state

DAY = 86_400.0


async def _age(sm: StateManager, session_id: str, days: float) -> None:
    """Make a session look last saved `days` ago (as another process long ago would have)."""
    moment = datetime.now(UTC).timestamp() - days * DAY
    async with sm.engine.begin() as conn:
        await conn.execute(
            text("UPDATE tf_sessions SET updated_at = :t WHERE session_id = :sid"),
            {"t": moment, "sid": session_id},
        )


async def test_list_sessions_updated_before(sm: StateManager) -> None:
    for sid, days in (("new", 0), ("week", 7.5), ("month", 31), ("year", 400)):
        await sm.save_state(sid, make_state())
        if days:
            await _age(sm, sid, days)
    cutoff = datetime.now(UTC) - timedelta(days=7)
    old = await sm.list_sessions(updated_before=cutoff)
    assert [s.session_id for s in old] == ["week", "month", "year"]  # newest first
    assert [s.session_id for s in await sm.list_sessions(1, 1, updated_before=cutoff)] == ["month"]
    naive = cutoff.replace(tzinfo=None) - timedelta(days=20)  # naive means UTC
    assert [s.session_id for s in await sm.list_sessions(updated_before=naive)] == ["month", "year"]
    assert [s.session_id for s in await sm.list_sessions()] == ["new", "week", "month", "year"]


async def test_delete_a_known_version_only(sm: StateManager) -> None:
    version = await sm.save_state("a", make_state(), messages=[{"role": "user", "content": "x"}])
    await sm.save_state("a", make_state(2))  # changed since `version` was read
    with pytest.raises(StaleStateError):
        await sm.delete_state("a", expected_version=version)
    kept = await sm.load_state("a")
    assert kept is not None and kept["version"] == version + 1
    assert await sm.load_messages("a") == [{"role": "user", "content": "x"}]
    assert await sm.delete_state("a", expected_version=version + 1) is True
    assert await sm.load_state("a") is None and await sm.load_messages("a") == []
    assert await sm.delete_state("a", expected_version=1) is False  # gone: nothing to do
    assert await sm.get_history("a") == []


async def test_finished_steps_count_skipped_ones(sm: StateManager) -> None:
    state = make_state(3, done=1)
    state["plan"]["tasks"][1]["status"] = "SKIPPED"
    await sm.save_state("s", state)
    (row,) = await sm.list_sessions()
    assert (row.steps_done, row.steps_total) == (2, 3)  # as Plan.progress() counts
