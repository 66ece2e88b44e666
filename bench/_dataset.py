"""Large SQLite databases for the scale and CLI benchmarks, built fast.

One template session is written through the real ``StateManager`` (so its rows are exactly
what taskforce writes); its rows are then cloned with ``executemany`` in one transaction
per batch, under new session ids and increasing ``updated_at`` times. 100,000 sessions
(with their steps, messages and history rows) take seconds, not hours.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from taskforce.store import StateManager

MISSION = "Compare the weather in Oslo and Rome"
TEMPLATE = "template"
BIG = "big-session"
BATCH = 10_000


def template_state(steps: int = 5) -> dict[str, Any]:
    """A finished-plan session (so a resumed agent may answer at once)."""
    tasks = [
        {"id": f"s{i}", "description": f"Step {i} of the mission", "status": "DONE"}
        for i in range(1, steps + 1)
    ]
    return {
        "mission": MISSION,
        "status": "running",
        "plan": {"tasks": tasks, "version": steps + 1, "next_id": steps + 1},
    }


def conversation(n: int) -> Iterator[dict[str, Any]]:
    """n alternating user/assistant messages (~100 characters each)."""
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        yield {"role": role, "content": f"message {i}: " + "lorem ipsum dolor sit amet " * 3}


def url_of(path: Path) -> str:
    """The SQLAlchemy URL of an SQLite file."""
    return f"sqlite+aiosqlite:///{path}"


async def _write_template(path: Path) -> None:
    async with StateManager(url_of(path)) as sm:
        if await sm.load_state(TEMPLATE) is None:
            await sm.save_state(TEMPLATE, template_state(), 0, messages=list(conversation(4)))


def _rows(conn: sqlite3.Connection, table: str, session_id: str) -> tuple[list[str], list[Any]]:
    cursor = conn.execute(f"SELECT * FROM {table} WHERE session_id = ?", (session_id,))
    return [d[0] for d in cursor.description], cursor.fetchall()


def count_sessions(path: Path) -> int:
    """Sessions in the database (0 if it does not exist)."""
    if not path.exists():
        return 0
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(*) FROM tf_sessions").fetchone()[0])
    finally:
        conn.close()


async def grow_sessions(path: Path, total: int) -> float:
    """Clone the template until the database holds ``total`` sessions; returns seconds."""
    start = time.perf_counter()
    await _write_template(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    tables = {
        name: _rows(conn, name, TEMPLATE)
        for name in ("tf_sessions", "tf_steps", "tf_messages", "tf_history")
    }
    have = int(conn.execute("SELECT count(*) FROM tf_sessions").fetchone()[0])
    base = time.time() - 10 * 86400
    while have < total:
        upto = min(total, have + BATCH)
        conn.execute("BEGIN")
        for table, (columns, rows) in tables.items():
            keep = [c for c in columns if c != "id"]
            sid_at = keep.index("session_id")
            idx = [columns.index(c) for c in keep]
            placeholders = ", ".join("?" for _ in keep)
            sql = f"INSERT INTO {table} ({', '.join(keep)}) VALUES ({placeholders})"

            def clone(
                i: int,
                rows: list[Any] = rows,
                idx: list[int] = idx,
                keep: list[str] = keep,
                sid_at: int = sid_at,
            ) -> Iterator[list[Any]]:
                for row in rows:
                    values = [row[j] for j in idx]
                    values[sid_at] = f"s{i:07d}"
                    if "updated_at" in keep:
                        values[keep.index("updated_at")] = base + i
                    yield values

            conn.executemany(sql, (v for i in range(have, upto) for v in clone(i)))
        conn.execute("COMMIT")
        have = upto
    conn.close()
    return time.perf_counter() - start


async def add_big_session(path: Path, entries: int) -> float:
    """A session with ``entries`` messages and ``entries`` history entries; returns seconds."""
    start = time.perf_counter()

    async def make() -> None:
        async with StateManager(url_of(path)) as sm:
            if await sm.load_state(BIG) is None:
                await sm.save_state(BIG, template_state(), 0, messages=list(conversation(2)))

    await make()
    conn = sqlite3.connect(path, isolation_level=None)
    have = conn.execute("SELECT count(*) FROM tf_messages WHERE session_id = ?", (BIG,))
    missing = entries - int(have.fetchone()[0])
    now = time.time()
    if missing > 0:
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO tf_messages (session_id, created_at, body) VALUES (?, ?, ?)",
            ((BIG, now, json.dumps(m)) for m in conversation(missing)),
        )
        body = json.dumps({"from_status": "PENDING", "to_status": "DONE", "note": None})
        conn.executemany(
            "INSERT INTO tf_history (session_id, version, kind, step_id, created_at, body) "
            "VALUES (?, 1, 'status_changed', 's1', ?, ?)",
            ((BIG, now, body) for _ in range(missing)),
        )
        conn.execute("COMMIT")
    conn.close()
    return time.perf_counter() - start
