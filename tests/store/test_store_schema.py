"""Schema evolution with Alembic: older databases migrate, newer ones are refused."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect, text

from taskforce.errors import SchemaVersionError
from taskforce.store import StateManager
from taskforce.store._config import HEAD_REVISION, SCHEMA_REVISIONS
from taskforce.store._migrate import script_revisions
from tests.store.conftest import Backend, make_state


def test_the_code_knows_every_shipped_migration() -> None:
    assert script_revisions() == list(SCHEMA_REVISIONS)
    assert SCHEMA_REVISIONS[-1] == HEAD_REVISION


async def _tables(sm: StateManager) -> set[str]:
    async with sm.engine.connect() as conn:
        return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))


async def test_an_older_database_is_migrated_on_open(shared_backend: Backend) -> None:
    old = shared_backend.make()
    await old.upgrade("0001")
    assert await old.current_revision() == "0001"
    assert "tf_messages" not in await _tables(old)
    async with old.engine.begin() as conn:  # a row written by the 0001-era code
        await conn.execute(
            text(
                "INSERT INTO tf_sessions (session_id, version, token, title, status, steps_done, "
                "steps_total, created_at, updated_at, data, plan_meta) VALUES ('legacy', 3, 'tok', "
                "'old', 'paused', 0, 1, 1.0, 2.0, :data, :meta)"
            ),
            {"data": '{"mission":"old"}', "meta": '{"next_id":2}'},
        )
        await conn.execute(
            text(
                "INSERT INTO tf_steps (session_id, step_id, position, status, body) VALUES "
                "('legacy', 's1', 0, 'PENDING', :body)"
            ),
            {"body": '{"id":"s1","status":"PENDING"}'},
        )
    new = shared_backend.make()
    state = await new.load_state("legacy")
    assert state == {
        "mission": "old",
        "version": 3,
        "plan": {"next_id": 2, "tasks": [{"id": "s1", "status": "PENDING"}]},
    }
    assert await new.current_revision() == HEAD_REVISION
    await new.append_messages("legacy", [{"role": "user", "content": "after upgrade"}])
    assert await new.load_messages("legacy") == [{"role": "user", "content": "after upgrade"}]


async def test_auto_upgrade_off_refuses_an_older_database(shared_backend: Backend) -> None:
    await shared_backend.make().upgrade("0001")
    strict = shared_backend.make(auto_upgrade=False)
    with pytest.raises(SchemaVersionError, match="taskforce db upgrade"):
        await strict.list_sessions()
    await strict.upgrade()
    assert await strict.list_sessions() == []


async def test_a_newer_database_is_refused_and_untouched(shared_backend: Backend) -> None:
    sm = shared_backend.make()
    await sm.save_state("s", make_state())
    async with sm.engine.begin() as conn:
        await conn.execute(text("UPDATE alembic_version SET version_num = '0099_future'"))
    newer = shared_backend.make()
    with pytest.raises(SchemaVersionError, match="newer taskforce"):
        await newer.load_state("s")
    with pytest.raises(SchemaVersionError):
        await newer.save_state("s", make_state())
    with pytest.raises(SchemaVersionError, match="newer taskforce"):
        await newer.upgrade()
    with pytest.raises(SchemaVersionError):
        await newer.downgrade("base")
    async with sm.engine.connect() as conn:
        version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar()
        rows = (await conn.execute(text("SELECT count(*) FROM tf_steps"))).scalar()
    assert (version, rows) == ("0099_future", 3)


async def test_unversioned_taskforce_tables_are_refused(shared_backend: Backend) -> None:
    sm = shared_backend.make()
    await sm.save_state("s", make_state())
    async with sm.engine.begin() as conn:
        await conn.execute(text("DROP TABLE alembic_version"))
    with pytest.raises(SchemaVersionError, match="no schema version"):
        await shared_backend.make().load_state("s")


async def test_upgrade_downgrade_upgrade_round_trip(shared_backend: Backend) -> None:
    sm = shared_backend.make()
    await sm.save_state("keep", make_state(2), messages=[{"role": "user"}])
    await sm.downgrade("0001")
    assert await sm.current_revision() == "0001"
    assert {"tf_messages", "tf_history"}.isdisjoint(await _tables(sm))
    await sm.upgrade()
    assert await sm.current_revision() == HEAD_REVISION
    state = await sm.load_state("keep")
    assert state == {**make_state(2), "version": 1}  # sessions and steps survived
    assert await sm.load_messages("keep") == []  # the 0002 tables were recreated empty
    await sm.downgrade("base")
    assert await sm.current_revision() is None
    assert not {"tf_sessions", "tf_steps"} & await _tables(sm)
    await sm.upgrade("head")
    assert await sm.list_sessions() == []
    await sm.save_state("again", make_state(1))
    assert (await sm.load_state("again")) == {**make_state(1), "version": 1}
