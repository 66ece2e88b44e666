"""A change to one step writes O(1) step rows, whatever the plan size (counted, not timed)."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import text

from taskforce.plan import Plan, StepStatus
from taskforce.store import StateManager
from tests.store.conftest import Backend, make_state

_TABLES = ("tf_sessions", "tf_steps", "tf_messages", "tf_history")
_PG_FUNCTION = """CREATE OR REPLACE FUNCTION test_count_row() RETURNS trigger LANGUAGE plpgsql
AS $$ BEGIN INSERT INTO test_row_counts VALUES (TG_OP || ' ' || TG_TABLE_NAME); RETURN NULL;
END $$"""


@asynccontextmanager
async def count_rows(sm: StateManager) -> AsyncIterator[Counter[str]]:
    """Rows written per (verb, table) meanwhile, counted by the database's own triggers.

    Triggers count what reached the tables whatever path the store takes to them (the
    SQLite write path runs raw in the driver's thread, past SQLAlchemy's events).
    """
    rows: Counter[str] = Counter()
    pg = sm.engine.dialect.name == "postgresql"
    create, drop = ["CREATE TABLE test_row_counts (op TEXT)"], ["DROP TABLE test_row_counts"]
    if pg:
        create.append(_PG_FUNCTION)
        drop.append("DROP FUNCTION test_count_row()")
    for table in _TABLES:
        for verb in ("INSERT", "UPDATE", "DELETE"):
            name = f"test_count_{table}_{verb.lower()}"
            action = (
                "FOR EACH ROW EXECUTE FUNCTION test_count_row()"
                if pg
                else f"BEGIN INSERT INTO test_row_counts VALUES ('{verb} {table}'); END"
            )
            create.append(f"CREATE TRIGGER {name} AFTER {verb} ON {table} {action}")
            drop.insert(0, f"DROP TRIGGER {name}" + (f" ON {table}" if pg else ""))
    async with _triggered(sm, create, drop, "SELECT op FROM test_row_counts") as found:
        yield rows
    rows.update(found)


@asynccontextmanager
async def _triggered(
    sm: StateManager, create: list[str], drop: list[str], query: str
) -> AsyncIterator[list[Any]]:
    """Run `create`, then the caller's block; the first column of `query` lands in the
    list it gets; then `drop`, whatever happened."""
    found: list[Any] = []
    async with sm.engine.begin() as conn:
        for sql in create:
            await conn.execute(text(sql))
    try:
        yield found
        async with sm.engine.begin() as conn:
            found.extend(row[0] for row in await conn.execute(text(query)))
    finally:
        async with sm.engine.begin() as conn:
            for sql in drop:
                await conn.execute(text(sql))


def step_rows(rows: Counter[str]) -> int:
    return sum(n for key, n in rows.items() if key.endswith(" tf_steps"))


@pytest.mark.parametrize("size", [10, 1000])
async def test_marking_one_step_done_writes_one_step_row(backend: Backend, size: int) -> None:
    sm = backend.make()
    await sm.save_state("big", make_state(size))
    state = await sm.load_state("big")
    assert state is not None
    for index in (0, size // 2, size - 1):
        state["plan"]["tasks"][index]["status"] = "DONE"
        async with count_rows(sm) as rows:
            state["version"] = await sm.save_state("big", state)
        assert step_rows(rows) == 1, rows
        assert rows["UPDATE tf_sessions"] == 1
        assert rows["INSERT tf_history"] == 1
    # without a cached plan (another process wrote it), the write is still one step row
    other = backend.make() if backend.shared else sm
    fresh = await other.load_state("big")
    assert fresh is not None
    fresh["plan"]["tasks"][1]["note"] = "checked"
    fresh["version"] = await other.save_state("big", fresh)
    fresh["plan"]["tasks"][2]["status"] = "SKIPPED"
    if backend.shared:
        async with count_rows(sm) as rows:
            await sm.save_state("big", fresh)  # sm's cache is stale: it reads, then diffs
        assert step_rows(rows) == 1, rows
    final = await sm.load_state("big")
    assert final is not None
    assert sum(t["status"] == "DONE" for t in final["plan"]["tasks"]) == 3
    assert final["plan"]["tasks"][1]["note"] == "checked"


async def test_adding_and_removing_a_step_touch_only_what_changed(sm: StateManager) -> None:
    await sm.save_state("p", make_state(100))
    state = await sm.load_state("p")
    assert state is not None
    state["plan"]["tasks"].append({"id": "s101", "description": "new", "status": "PENDING"})
    async with count_rows(sm) as rows:
        state["version"] = await sm.save_state("p", state)
    assert step_rows(rows) == 1
    del state["plan"]["tasks"][-1]
    async with count_rows(sm) as rows:
        state["version"] = await sm.save_state("p", state)
    assert step_rows(rows) == 1
    async with count_rows(sm) as rows:
        await sm.save_state("p", state)  # nothing changed in the plan
    assert step_rows(rows) == 0


async def test_a_plan_value_is_stored_as_its_state_writing_only_changed_steps(
    backend: Backend,
) -> None:
    sm = backend.make()
    now = datetime(2026, 1, 1, tzinfo=UTC)
    plan = Plan().replaced([f"step {i}" for i in range(1, 201)])
    version = await sm.save_state("pv", {"mission": "m", "plan": plan})
    for index in (1, 100, 200):
        plan = plan.with_status([index], StepStatus.DONE, "ok", now=now)
        async with count_rows(sm) as rows:
            version = await sm.save_state("pv", {"mission": "m", "plan": plan}, version)
        assert step_rows(rows) == 1, rows
    stored = await sm.load_state("pv")
    assert stored == {"mission": "m", "plan": plan.to_state(), "version": version}
    # the same plan as a dict is stored byte for byte alike
    await sm.save_state("pd", {"mission": "m", "plan": plan.to_state()})
    async with sm.engine.connect() as conn:
        query = "SELECT session_id, plan_meta FROM tf_sessions WHERE session_id IN ('pv', 'pd')"
        metas = {sid: meta for sid, meta in await conn.execute(text(query))}
        query = "SELECT session_id, step_id, body FROM tf_steps WHERE session_id IN ('pv', 'pd')"
        bodies: dict[str, dict[str, str]] = {"pv": {}, "pd": {}}
        for sid, step_id, body in await conn.execute(text(query)):
            bodies[sid][step_id] = body
    assert metas["pv"] == metas["pd"]
    assert bodies["pv"] == bodies["pd"] and len(bodies["pv"]) == 200


@asynccontextmanager
async def position_writes(sm: StateManager) -> AsyncIterator[list[str]]:
    """The steps whose ``position`` an UPDATE assigned meanwhile (even to the same value).

    ``UPDATE OF position`` triggers fire when the column is in the SET list: on SQLite
    that is what makes it rewrite the position index, one more page per commit.
    """
    found: list[str] = []
    pg = sm.engine.dialect.name == "postgresql"
    if pg:
        create = [
            "CREATE TABLE test_position_writes (step_id TEXT)",
            "CREATE OR REPLACE FUNCTION test_position_write() RETURNS trigger LANGUAGE plpgsql"
            " AS $$ BEGIN INSERT INTO test_position_writes VALUES (NEW.step_id); RETURN NULL;"
            " END $$",
            "CREATE TRIGGER test_position AFTER UPDATE OF position ON tf_steps"
            " FOR EACH ROW EXECUTE FUNCTION test_position_write()",
        ]
        drop = [
            "DROP TRIGGER test_position ON tf_steps",
            "DROP FUNCTION test_position_write()",
            "DROP TABLE test_position_writes",
        ]
    else:
        create = [
            "CREATE TABLE test_position_writes (step_id TEXT)",
            "CREATE TRIGGER test_position AFTER UPDATE OF position ON tf_steps"
            " BEGIN INSERT INTO test_position_writes VALUES (NEW.step_id); END",
        ]
        drop = ["DROP TRIGGER test_position", "DROP TABLE test_position_writes"]
    query = "SELECT step_id FROM test_position_writes"
    async with _triggered(sm, create, drop, query) as rows:
        yield found
    found.extend(sorted(rows))


async def test_a_step_changed_in_place_keeps_its_position_unwritten(backend: Backend) -> None:
    sm = backend.make()
    await sm.save_state("pos", make_state(10))
    state = await sm.load_state("pos")
    assert state is not None
    tasks = state["plan"]["tasks"]
    tasks[3]["status"] = "DONE"
    async with position_writes(sm) as found, count_rows(sm) as rows:
        state["version"] = await sm.save_state("pos", state)
    assert found == [] and step_rows(rows) == 1, (found, rows)
    # a step removed: the steps after it move up (their positions written); the first step,
    # changed in the same save where it stands, is rewritten without its position
    removed = tasks.pop(1)["id"]
    tasks[0]["note"] = "kept"
    async with position_writes(sm) as found:
        state["version"] = await sm.save_state("pos", state)
    assert found == sorted(t["id"] for t in tasks[1:]), found
    # a fresh manager (no cache) reads the same plan, in the same order
    other = backend.make() if backend.shared else sm
    stored = await other.load_state("pos")
    assert stored is not None and stored["plan"]["tasks"] == tasks
    assert removed not in [t["id"] for t in stored["plan"]["tasks"]]
    async with sm.engine.connect() as conn:
        query = "SELECT step_id, position FROM tf_steps WHERE session_id = 'pos' ORDER BY position"
        positions = [tuple(row) for row in await conn.execute(text(query))]
    assert positions == [(t["id"], i) for i, t in enumerate(tasks)]
