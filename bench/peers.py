"""The peers taskforce is compared with, each persisting "one step of the plan is done".

Every peer is timed two ways, interleaved with taskforce (``bench/_interleave.py``):

* ``write``: its durable write alone. Whatever it is given (the plan with step j marked
  done, the rendered checklist) is prepared outside the timed section;
* ``planner``: the peer with its own natural planner: a list of step dicts, the step's
  status set, the result built, then the same write, all timed.

The peers:

* ``origin``: the original taskforce, re-described here (none of its code is copied):
  its PlannerTool keeps ``{"tasks": [{"description", "status"}]}``; ``execute`` dispatches
  on the action; ``mark_done`` checks
  the 1-based index, sets the status and answers with the checklist (``[x] 1. ...``);
  ``get_state`` copies the step dicts; its FileStateManager writes the session state as
  ``json.dump(state, f, indent=2)`` to ``<session>.json`` opened for writing, in a worker
  thread (``asyncio.to_thread``), then ``flush`` and one ``os.fsync`` of the file: no
  temporary file, no rename, no fsync of the directory.
* ``openai_agents``: openai-agents' ``SQLAlchemySession`` (SQLite file through aiosqlite,
  or PostgreSQL through asyncpg), appending the turn's two items: the ``function_call``
  and its ``function_call_output`` (the rendered checklist).
* ``langgraph``: LangGraph's ``AsyncSqliteSaver.aput``: one checkpoint whose channel
  values hold the plan state, as a graph whose state carries the plan saves after a node.

SQLite peers run in WAL mode with ``synchronous=FULL`` (set explicitly, then read back
and reported with :meth:`pragmas`), as taskforce does by default.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

PEERS = ("origin", "openai_agents", "langgraph")


def tasks(n: int) -> list[str]:
    """The step texts of an n-step plan (the same for every contender)."""
    return [f"Step {i}: do the thing number {i} carefully" for i in range(1, n + 1)]


class OriginPlanner:
    """The origin's planner as described in the module docstring (a dict list)."""

    def __init__(self, texts: list[str]) -> None:
        self.tasks = [{"description": text, "status": "PENDING"} for text in texts]

    async def execute(self, action: str, **params: Any) -> dict[str, Any]:
        if action == "mark_done":
            return self.mark_done(**params)
        return {"success": False, "error": f"unknown action {action!r}"}

    def mark_done(self, step_index: int) -> dict[str, Any]:
        if not isinstance(step_index, int) or not 1 <= step_index <= len(self.tasks):
            return {"success": False, "error": f"step_index {step_index} is out of range"}
        self.tasks[step_index - 1]["status"] = "DONE"
        return {"success": True, "output": self.render()}

    def render(self) -> str:
        return "\n".join(
            f"[{'x' if t['status'] == 'DONE' else ' '}] {i}. {t['description']}"
            for i, t in enumerate(self.tasks, start=1)
        )

    def get_state(self) -> dict[str, Any]:
        return {"tasks": [dict(t) for t in self.tasks]}


def _write_json(path: Path, state: dict[str, Any]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(state, f, indent=2)
        f.flush()
        os.fsync(f.fileno())


class Peer:
    """Base: a fresh plan per round, then ``planner(j)`` or ``write(j)`` timed."""

    name = "peer"
    version = ""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.n = 0
        self.plan = OriginPlanner([])

    async def prepare(self, n: int) -> None:
        self.n = n
        self.plan = OriginPlanner(tasks(n))
        await self.start()

    async def start(self) -> None:
        """Begin a new session/thread/file for the round (untimed)."""

    async def store(self, plan_state: dict[str, Any], rendered: str) -> None:
        raise NotImplementedError

    async def planner(self, j: int) -> float:
        start = time.perf_counter()
        result = await self.plan.execute("mark_done", step_index=j % self.n + 1)
        await self.store(self.plan.get_state(), result["output"])
        return time.perf_counter() - start

    async def write(self, j: int) -> float:
        result = self.plan.mark_done(j % self.n + 1)
        state, rendered = self.plan.get_state(), result["output"]
        start = time.perf_counter()
        await self.store(state, rendered)
        return time.perf_counter() - start

    async def pragmas(self) -> dict[str, Any]:
        return {}

    def disk_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.dir.rglob("*") if p.is_file())

    async def close(self) -> None:
        return None


class OriginPeer(Peer):
    name = "origin"
    version = "origin format (described in bench/peers.py)"

    async def start(self) -> None:
        self.path = self.dir / f"{uuid.uuid4().hex}.json"
        self.session = {"session_id": self.path.stem, "mission": "bench", "status": "running"}

    async def store(self, plan_state: dict[str, Any], rendered: str) -> None:
        await asyncio.to_thread(self.save, plan_state)

    def save(self, plan_state: dict[str, Any]) -> None:
        """The file save itself (``store`` runs it in a thread, as the origin does)."""
        _write_json(self.path, {**self.session, "planner_state": plan_state})

    async def pragmas(self) -> dict[str, Any]:
        return {"format": "JSON, indent=2", "fsync": "the file, once", "directory fsync": "none"}


async def _sqlite_pragmas(execute: Any) -> dict[str, Any]:
    out = {}
    for pragma in ("journal_mode", "synchronous"):
        out[pragma] = await execute(f"PRAGMA {pragma}")
    out["synchronous"] = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}.get(
        out["synchronous"], out["synchronous"]
    )
    return out


class OpenAIAgentsPeer(Peer):
    name = "openai_agents"

    def __init__(self, directory: Path, url: str | None = None) -> None:
        super().__init__(directory)
        from importlib.metadata import version

        from sqlalchemy import event
        from sqlalchemy.ext.asyncio import create_async_engine

        self.version = f"openai-agents {version('openai-agents')}"
        self.engine = create_async_engine(url or f"sqlite+aiosqlite:///{directory / 'oa.db'}")
        if self.engine.dialect.name == "sqlite":

            @event.listens_for(self.engine.sync_engine, "connect")
            def _full(dbapi_connection: Any, _record: Any) -> None:
                cursor = dbapi_connection.cursor()
                cursor.execute("PRAGMA synchronous = FULL")  # same durability as taskforce
                cursor.close()

        self.calls = 0

    async def start(self) -> None:
        from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession

        self.session = SQLAlchemySession(uuid.uuid4().hex, engine=self.engine, create_tables=True)

    async def store(self, plan_state: dict[str, Any], rendered: str) -> None:
        self.calls += 1
        call_id = f"call_{self.calls}"
        args = json.dumps({"action": "mark_done", "step_index": [self.calls]})
        await self.session.add_items(
            [
                {"type": "function_call", "call_id": call_id, "name": "planner", "arguments": args},
                {"type": "function_call_output", "call_id": call_id, "output": rendered},
            ]  # type: ignore[list-item]
        )

    async def pragmas(self) -> dict[str, Any]:
        from sqlalchemy import text

        async with self.engine.connect() as conn:
            if self.engine.dialect.name == "sqlite":

                async def one(sql: str) -> Any:
                    return (await conn.execute(text(sql))).scalar()

                return await _sqlite_pragmas(one)
            value = (await conn.execute(text("SHOW synchronous_commit"))).scalar()
            return {"synchronous_commit": value}

    async def close(self) -> None:
        await self.engine.dispose()


class LangGraphPeer(Peer):
    name = "langgraph"

    def __init__(self, directory: Path) -> None:
        super().__init__(directory)
        from importlib.metadata import version

        from langgraph.checkpoint.base import empty_checkpoint
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        self.version = (
            f"langgraph {version('langgraph')}, "
            f"langgraph-checkpoint-sqlite {version('langgraph-checkpoint-sqlite')}"
        )
        self._empty = empty_checkpoint
        self._saver_class = AsyncSqliteSaver
        self.conn: Any = None

    async def start(self) -> None:
        if self.conn is None:
            import aiosqlite

            self.conn = await aiosqlite.connect(str(self.dir / "langgraph.db"))
            self.saver = self._saver_class(self.conn)
            await self.saver.setup()  # journal_mode=WAL
            await self.conn.execute("PRAGMA synchronous = FULL")
        self.config: dict[str, Any] = {
            "configurable": {"thread_id": uuid.uuid4().hex, "checkpoint_ns": ""}
        }
        self.steps = 0

    async def store(self, plan_state: dict[str, Any], rendered: str) -> None:
        self.steps += 1
        checkpoint = self._empty()
        checkpoint["channel_values"] = {"plan": plan_state, "mission": "bench"}
        checkpoint["channel_versions"] = {"plan": self.steps, "mission": 1}
        self.config = await self.saver.aput(
            self.config,  # type: ignore[arg-type]
            checkpoint,
            {"source": "loop", "step": self.steps},
            {"plan": self.steps},
        )

    async def pragmas(self) -> dict[str, Any]:
        async def one(sql: str) -> Any:
            async with self.conn.execute(sql) as cursor:
                row = await cursor.fetchone()
            return row[0] if row else None

        return await _sqlite_pragmas(one)

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()


def make_peer(name: str, directory: Path, pg_url: str | None = None) -> Peer:
    """The peer ``name`` storing under ``directory`` (ImportError if not installed)."""
    if name == "origin":
        return OriginPeer(directory / "origin")
    if name == "openai_agents":
        return OpenAIAgentsPeer(directory / "openai-agents", pg_url)
    if name == "langgraph":
        return LangGraphPeer(directory / "langgraph")
    raise ValueError(name)
