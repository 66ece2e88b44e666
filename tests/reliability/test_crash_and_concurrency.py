"""Real processes: SIGKILL during planner writes, and concurrent writers on one session.

Both run on an SQLite file and on PostgreSQL (``db_url``). The crash test replays the
worker's deterministic actions in memory and requires the stored plan and history to be
exactly those of an uninterrupted run of as many actions as were committed: no torn
plan, the history a prefix, every acknowledged commit kept.
"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from taskforce.store import StateManager
from tests.reliability.conftest import Mode
from tests.reliability.invariants import check_plan
from tests.reliability.ledger import Ledger
from tests.reliability.worker import next_call, planner

WORKER = str(Path(__file__).with_name("worker.py"))


def _backend(url: str) -> str:
    return url.split(":", 1)[0].split("+")[0]


async def _replay(actions: int) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """The plan state and history after ``actions`` uninterrupted worker actions."""
    async with StateManager("sqlite+aiosqlite://") as sm:
        tool = planner(sm, "replay")
        for _ in range(actions):
            result = await tool.execute(**next_call(tool.get_state()))
            assert result["success"], result
        history = await sm.get_history("replay")
        return tool.get_state(), [_entry(h) for h in history]


def _entry(h: Any) -> tuple[Any, ...]:
    return (h.kind, h.step_id, h.from_status, h.to_status, h.note, h.version, h.data)


async def _stored(url: str) -> tuple[int, dict[str, Any], list[tuple[Any, ...]]]:
    async with StateManager(url) as sm:
        state = await sm.load_state("crash")
        if state is None:
            return 0, {}, []
        history = await sm.get_history("crash")
        return state["version"], state["plan"], [_entry(h) for h in history]


def _integrity(url: str) -> None:
    if _backend(url) == "sqlite":
        conn = sqlite3.connect(url.split("///", 1)[1])
        try:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        finally:
            conn.close()


def _kill_workers(url: str, kills: int, rng: random.Random) -> tuple[int, int]:
    """Start and SIGKILL the ``plan`` worker ``kills`` times; (acknowledged, mid-stream)."""
    acknowledged = 0  # highest version a worker printed (= its commit had returned)
    killed_mid_stream = 0
    for _ in range(kills):
        proc = subprocess.Popen(
            [sys.executable, WORKER, "plan", url, "crash"], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None
        if rng.random() < 0.85:  # usually after it has started committing
            line = proc.stdout.readline()
            if line.strip():
                acknowledged = max(acknowledged, int(line))
                killed_mid_stream += 1
            time.sleep(rng.uniform(0.0, 0.12))
        else:
            time.sleep(rng.uniform(0.0, 0.6))  # during start-up, connect or migration
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        acknowledged = max([acknowledged, *(int(v) for v in out.split())])
        assert proc.returncode == -signal.SIGKILL, "the worker died on its own"
        _integrity(url)
    return acknowledged, killed_mid_stream


async def test_sigkill_during_planner_writes(mode: Mode, ledger: Ledger, db_url: str) -> None:
    kills = mode.pick(4, 100)
    acknowledged, killed_mid_stream = _kill_workers(db_url, kills, random.Random(2026))
    version, plan, history = await _stored(db_url)
    assert version >= acknowledged, f"acknowledged commit {acknowledged} lost (have {version})"
    assert version > 0
    check_plan(plan)
    expected_plan, expected_history = await _replay(version)
    assert plan == expected_plan, "the stored plan is not the state after the last commit"
    assert history == expected_history, "the history is not the prefix of an uninterrupted run"
    ledger.record(
        f"SIGKILL during planner writes ({_backend(db_url)})",
        **{
            "kills": kills,
            "kills after a commit was acknowledged": killed_mid_stream,
            "commits surviving": version,
            "highest acknowledged commit": acknowledged,
            "history entries (all equal to an uninterrupted run)": len(history),
            "integrity_check": "ok after every kill" if _backend(db_url) == "sqlite" else "n/a",
        },
    )


def _run_writers(url: str, processes: int, adds: int) -> list[dict[str, Any]]:
    procs = [
        subprocess.Popen(
            [sys.executable, WORKER, "add", url, "shared", f"w{i}", str(adds)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(processes)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, err[-2000:]
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


async def test_concurrent_writers_lose_nothing(mode: Mode, ledger: Ledger, db_url: str) -> None:
    processes, adds = mode.pick(4, 8), mode.pick(12, 100)
    async with StateManager(db_url) as sm:
        await sm.upgrade()  # so the first writers race on the session, not on migrating
    results = _run_writers(db_url, processes, adds)
    errors = [e for r in results for e in r["errors"]]
    assert errors == [], errors[:5]
    assert all(r["added"] == adds for r in results)
    async with StateManager(db_url) as sm:
        state = await sm.load_state("shared")
        history = await sm.get_history("shared")
    assert state is not None
    texts = [t["description"] for t in state["plan"]["tasks"]]
    expected = {f"w{i} {k}" for i in range(processes) for k in range(adds)}
    assert len(texts) == len(expected) and set(texts) == expected, "lost or duplicated updates"
    for i in range(processes):  # each writer's steps stay in its own order
        mine = [t for t in texts if t.startswith(f"w{i} ")]
        assert mine == [f"w{i} {k}" for k in range(adds)]
    check_plan(state["plan"], max_steps=5000)
    assert state["version"] == processes * adds
    # the first step added makes the plan (plan_created); each later one revises it
    assert [h.data["steps"] for h in history if h.kind == "plan_created"] == [1]
    added = [i for h in history if h.kind == "plan_revised" for i in h.data["added"]]
    assert len(added) == len(set(added)) == processes * adds - 1
    assert sorted({h.version for h in history}) == list(range(1, processes * adds + 1))
    ledger.record(
        f"concurrent writers on one session ({_backend(db_url)})",
        **{
            "processes": processes,
            "commits": processes * adds,
            "conflicts retried (stale version, reloaded)": sum(r["conflicts"] for r in results),
            "errors surfaced (incl. 'database is locked')": len(errors),
            "lost updates": len(expected) - len(set(texts)),
        },
    )
