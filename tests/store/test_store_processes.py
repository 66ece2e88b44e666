"""Real processes on one SQLite file: SIGKILL mid-write, and concurrent increments."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from taskforce.store import StateManager
from taskforce.store._codec import encode_state
from tests.store.store_worker import state_for

WORKER = Path(__file__).with_name("store_worker.py")
KILLS = int(os.environ.get("TASKFORCE_CRASH_KILLS", "10"))
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}


def _expected_history(upto: int) -> list[tuple[str, str | None, object, object, int]]:
    # each save passes its event ("tick"): the store records exactly the events it is given
    assert all(encode_state(state_for(v)).steps for v in range(1, upto + 1))
    return [("tick", None, None, None, version) for version in range(1, upto + 1)]


def test_sigkill_at_random_moments_leaves_a_committed_version(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    url = f"sqlite+aiosqlite:///{path}"
    rng = random.Random(1234)
    printed = 0
    for _ in range(KILLS):
        proc = subprocess.Popen(
            [sys.executable, str(WORKER), "crash", url], stdout=subprocess.PIPE, env=ENV, text=True
        )
        assert proc.stdout is not None
        if rng.random() < 0.8:  # usually kill mid-stream; sometimes during start-up/migration
            line = proc.stdout.readline()
            if line:
                printed = max(printed, int(line))
        time.sleep(rng.uniform(0.0, 0.15))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        printed = max([printed, *(int(v) for v in out.split())])
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()

    async def check() -> None:
        async with StateManager(url) as sm:
            state = await sm.load_state("crash")
            assert state is not None
            version = state["version"]
            assert version >= printed >= 1  # nothing acknowledged was lost
            assert state == {**state_for(version), "version": version}  # one whole version
            history = await sm.get_history("crash")
            got = [(h.kind, h.step_id, h.from_status, h.to_status, h.version) for h in history]
            assert got == _expected_history(version)  # exactly the prefix that committed
            assert await sm.load_messages("crash") == [{"v": v} for v in range(1, version + 1)]

    asyncio.run(check())


def test_processes_incrementing_one_counter_lose_no_update(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'count.db'}"

    async def setup() -> None:
        async with StateManager(url) as sm:
            await sm.save_state("c", {"counter": 0})

    asyncio.run(setup())
    procs, per_proc = 4, 25
    workers = [
        subprocess.Popen([sys.executable, str(WORKER), "count", url, "c", str(per_proc)], env=ENV)
        for _ in range(procs)
    ]
    assert [w.wait(timeout=120) for w in workers] == [0] * procs

    async def check() -> None:
        async with StateManager(url) as sm:
            state = await sm.load_state("c")
            assert state == {"counter": procs * per_proc, "version": procs * per_proc + 1}
            history = await sm.get_history("c")
            assert [h.kind for h in history] == ["inc"] * (procs * per_proc)

    asyncio.run(check())
