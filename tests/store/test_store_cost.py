"""A change to one step writes O(1) step rows, whatever the plan size (counted, not timed)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event

from taskforce.store import StateManager
from tests.store.conftest import Backend, make_state

_WRITE = re.compile(r"^\s*(INSERT INTO|UPDATE|DELETE FROM)\s+\"?(\w+)", re.IGNORECASE)


@contextmanager
def count_rows(sm: StateManager) -> Iterator[Counter[str]]:
    """Rows written per (verb, table), from SQLAlchemy's cursor events."""
    rows: Counter[str] = Counter()

    def after(conn: Any, cursor: Any, statement: str, params: Any, ctx: Any, many: bool) -> None:
        match = _WRITE.match(statement)
        if match:
            verb, table = match.group(1).split()[0].upper(), match.group(2)
            rows[f"{verb} {table}"] += max(cursor.rowcount, 0) if not many else len(params)

    event.listen(sm.engine.sync_engine, "after_cursor_execute", after)
    try:
        yield rows
    finally:
        event.remove(sm.engine.sync_engine, "after_cursor_execute", after)


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
        with count_rows(sm) as rows:
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
        with count_rows(sm) as rows:
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
    with count_rows(sm) as rows:
        state["version"] = await sm.save_state("p", state)
    assert step_rows(rows) == 1
    del state["plan"]["tasks"][-1]
    with count_rows(sm) as rows:
        state["version"] = await sm.save_state("p", state)
    assert step_rows(rows) == 1
    with count_rows(sm) as rows:
        await sm.save_state("p", state)  # nothing changed in the plan
    assert step_rows(rows) == 0
