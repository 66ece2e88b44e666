"""Cost of one plan change vs plan size, and of a session listing vs number of sessions.

    .venv/bin/python bench/bench_store.py [--url URL] [--changes 60]

Prints the median time of `save_state` after marking ONE step done, for plans of 10 and
1,000 steps, and the growth ratio (1.0 = independent of plan size), with the step rows
written per change counted by triggers on the table (SQLite; -1 elsewhere). Then the median time of
`list_sessions(limit=50)` with 1,000 and 100,000 sessions (rows bulk-inserted) and its
ratio. Default database: a fresh SQLite file in a temporary directory; with --url the rows
the bench adds are removed afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import delete, insert, text

from taskforce.store import StateManager
from taskforce.store import _schema as tables


def plan_state(size: int) -> dict[str, Any]:
    tasks = [
        {
            "id": f"s{i}",
            "description": f"step number {i} of the plan",
            "status": "PENDING",
            "note": None,
        }
        for i in range(size)
    ]
    return {
        "mission": "bench",
        "status": "running",
        "plan": {"tasks": tasks, "version": 1, "next_id": size},
    }


async def change_cost(sm: StateManager, size: int, changes: int) -> tuple[float, float, float]:
    """Median wall and CPU seconds per one-step change, and step rows written per change."""
    sid = f"bench-{size}"
    await sm.delete_state(sid)
    await sm.save_state(sid, plan_state(size))
    state = await sm.load_state(sid)
    assert state is not None
    counting = sm.engine.dialect.name == "sqlite"  # triggers count what reaches the table
    if counting:
        async with sm.engine.begin() as conn:
            await conn.execute(text("CREATE TABLE IF NOT EXISTS bench_step_writes (n INTEGER)"))
            await conn.execute(text("DELETE FROM bench_step_writes"))
            for verb in ("INSERT", "UPDATE", "DELETE"):
                await conn.execute(
                    text(
                        f"CREATE TRIGGER IF NOT EXISTS bench_count_{verb.lower()} AFTER {verb} "
                        "ON tf_steps BEGIN INSERT INTO bench_step_writes VALUES (1); END"
                    )
                )
    timings, cpu = [], []
    for k in range(changes):
        task = state["plan"]["tasks"][(k * 7) % size]
        task["status"] = "DONE" if task["status"] == "PENDING" else "PENDING"
        start, start_cpu = time.perf_counter(), time.process_time()
        state["version"] = await sm.save_state(sid, state)
        timings.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    step_rows = -1.0
    if counting:
        async with sm.engine.begin() as conn:
            written = (await conn.execute(text("SELECT count(*) FROM bench_step_writes"))).scalar()
            for verb in ("insert", "update", "delete"):
                await conn.execute(text(f"DROP TRIGGER bench_count_{verb}"))
            await conn.execute(text("DROP TABLE bench_step_writes"))
        step_rows = int(written or 0) / changes
    return statistics.median(timings), statistics.median(cpu), step_rows


async def listing_cost(sm: StateManager, total: int, repeats: int = 30) -> float:
    """Median seconds of list_sessions(limit=50) once ``total`` sessions exist."""
    async with sm.engine.begin() as conn:
        existing = len((await conn.execute(tables.sessions.select())).all())
        rows = [
            {
                "session_id": f"list-{i}",
                "version": 1,
                "token": "t",
                "title": f"session {i}",
                "status": "completed",
                "steps_done": i % 5,
                "steps_total": 5,
                "created_at": 1e9 + i,
                "updated_at": 1e9 + i,
                "data": "{}",
            }
            for i in range(existing, total)
        ]
        for chunk in range(0, len(rows), 5000):
            await conn.execute(insert(tables.sessions), rows[chunk : chunk + 5000])
    if sm.engine.dialect.name == "postgresql":  # fresh statistics, as autovacuum would keep
        async with sm.engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text("ANALYZE tf_sessions"))
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        listed = await sm.list_sessions(limit=50)
        timings.append(time.perf_counter() - start)
        assert len(listed) == 50
    return statistics.median(timings)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--changes", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url or f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        async with StateManager(url) as sm:
            print(f"database: {sm.url}")
            small, small_cpu, rows_small = await change_cost(sm, 10, args.changes)
            large, large_cpu, rows_large = await change_cost(sm, 1000, args.changes)
            for label, wall, cpu, rows in (
                ("10 steps:   ", small, small_cpu, rows_small),
                ("1,000 steps:", large, large_cpu, rows_large),
            ):
                print(
                    f"mark one step done, {label} median {wall * 1e3:7.2f} ms wall, "
                    f"{cpu * 1e3:6.2f} ms CPU, {rows:.1f} step rows written"
                )
            print(
                f"growth ratio (1,000 / 10 steps):  {large / small:.2f}x wall, "
                f"{large_cpu / small_cpu:.2f}x CPU"
            )
            few = await listing_cost(sm, 1_000)
            many = await listing_cost(sm, 100_000)
            print(f"list_sessions(50), 1,000 sessions:    median {few * 1e3:7.2f} ms")
            print(f"list_sessions(50), 100,000 sessions:  median {many * 1e3:7.2f} ms")
            print(f"growth ratio (100,000 / 1,000):       {many / few:.2f}x")
            async with sm.engine.begin() as conn:  # leave a user-given database as it was
                await conn.execute(
                    delete(tables.sessions).where(tables.sessions.c.session_id.like("list-%"))
                )
            for size in (10, 1000):
                await sm.delete_state(f"bench-{size}")


if __name__ == "__main__":
    asyncio.run(main())
