"""Ctrl-C: a run interrupted mid-way exits 130, keeps what was done, and resumes."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from taskforce.store._migrate import PG_LOCK_KEY
from tests.cli.conftest import PROCESS_WAIT, TASKFORCE, run_bin, session_of
from tests.cli.procs import Watched
from tests.fakes.openai_server import ErrorReply, FakeOpenAIServer, Reply, reply, tool_call
from tests.pg import fresh_database

pytestmark = pytest.mark.skipif(not TASKFORCE.exists(), reason="taskforce is not installed")


def test_ctrl_c_during_a_model_call_saves_and_resumes(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'tf.db'}"
    env = {**os.environ, "TASKFORCE_DB_URL": url, "COLUMNS": "200"}
    env.pop("TASKFORCE_MODEL", None)
    with FakeOpenAIServer() as server:
        server.script(
            reply(tool_calls=[tool_call("planner", {"action": "create_plan",
                                                    "tasks": ["One", "Two"]})]),
            reply(tool_calls=[tool_call("planner", {"action": "mark_done", "step_index": [1],
                                                    "note": "done in my head"})]),
            reply("never sent", delay=60),  # the model "thinks" until we press Ctrl-C
        )  # fmt: skip
        proc = subprocess.Popen(
            [str(TASKFORCE), "run", "One, then two", "--model", "openai/test-model",
             "--api-base", server.url],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + PROCESS_WAIT
        while len(server.requests) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert len(server.requests) == 3, proc.communicate(timeout=PROCESS_WAIT)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=PROCESS_WAIT)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    sid = session_of(out)
    assert f"taskforce run --session {sid}" in err

    state = json.loads(run_bin(["plan", "show", sid, "--json"], url).stdout)
    assert [t["status"] for t in state["plan"]["tasks"]] == ["DONE", "PENDING"]

    resumed = run_bin(["run", "--session", sid, "--model", "offline"], url)  # server gone
    assert resumed.returncode == 0, resumed.stderr
    assert f"session {sid} ran with model openai/test-model; continuing with offline" in (
        resumed.stderr
    )
    assert "create_plan" not in resumed.stdout and "1 of 2 steps done, 1 skipped" in resumed.stdout


def _server_run(server: FakeOpenAIServer, mission: str = "One, then two") -> list[str]:
    return ["run", mission, "--model", "openai/test-model", "--api-base", server.url, "--plain"]


def test_ctrl_c_during_the_first_migration_stops_before_any_model_call(tmp_path: Path) -> None:
    db = tmp_path / "tf.db"
    url = f"sqlite+aiosqlite:///{db}"
    holder = sqlite3.connect(db, isolation_level=None)  # an empty database: it needs migrating
    try:
        holder.execute("PRAGMA journal_mode = WAL")
        holder.execute("BEGIN IMMEDIATE")  # the run's migration must wait for us
        with FakeOpenAIServer() as server:
            server.script(reply("should never be asked"))
            with Watched(_server_run(server), url) as proc:
                proc.wait_until(lambda: proc.opened(db))  # connecting: blocked on our lock
                proc.proc.send_signal(signal.SIGINT)
                holder.execute("COMMIT")
                code, out, err = proc.finish()
            assert server.requests == []
    finally:
        holder.close()
    assert code == 130, (out, err)
    assert "Traceback" not in err


async def test_ctrl_c_while_the_migration_waits_on_postgresql(tmp_path: Path) -> None:
    import asyncpg

    async with fresh_database("intr") as url:  # empty: the run must migrate it first
        await _ctrl_c_while_migration_waits(url, asyncpg)


async def _ctrl_c_while_migration_waits(url: str, asyncpg: Any) -> None:
    admin = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        tx = admin.transaction()
        await tx.start()
        await admin.execute("SELECT pg_advisory_xact_lock($1)", PG_LOCK_KEY)
        with FakeOpenAIServer() as server:
            server.script(reply("should never be asked"))
            waiting = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            with Watched(_server_run(server), url) as proc:
                while not await admin.fetchval(waiting):
                    assert proc.proc.poll() is None, proc.finish()
                    await asyncio.sleep(0.02)
                proc.proc.send_signal(signal.SIGINT)
                code, out, err = await asyncio.to_thread(proc.finish)
            assert server.requests == []
        await tx.rollback()
    finally:
        await admin.close()
    assert code == 130, (out, err)
    assert "Traceback" not in err


def test_ctrl_c_while_a_tool_result_is_saved_keeps_it(tmp_path: Path) -> None:
    db = tmp_path / "tf.db"
    url = f"sqlite+aiosqlite:///{db}"
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)

    def mark_done_holding_the_lock(_: object) -> Reply | ErrorReply:
        holder.execute("BEGIN IMMEDIATE")  # the save of this call's result must wait for us
        return reply(
            tool_calls=[
                tool_call("planner", {"action": "mark_done", "step_index": 1, "note": "done"})
            ]
        )

    try:
        with FakeOpenAIServer() as server:
            server.script(
                reply(tool_calls=[tool_call("planner", {"action": "create_plan",
                                                        "tasks": ["One", "Two"]})]),
                mark_done_holding_the_lock,
                reply("never asked"),
            )  # fmt: skip
            with Watched(_server_run(server), url) as proc:
                proc.wait_for(lambda line: line.startswith("← Step 1 marked DONE"))  # then saved
                proc.proc.send_signal(signal.SIGINT)
                holder.execute("COMMIT")
                code, out, err = proc.finish()
            assert len(server.requests) == 2  # nothing asked after the interrupt
    finally:
        holder.close()
    assert code == 130, (out, err)
    sid = session_of(out)
    assert f"taskforce run --session {sid}" in err
    state = json.loads(run_bin(["plan", "show", sid, "--json"], url).stdout)
    assert [t["status"] for t in state["plan"]["tasks"]] == ["DONE", "PENDING"]
