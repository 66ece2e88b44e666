"""The peers taskforce is compared with: each persists "the plan changed" in its own way.

* ``json_file``: what the original taskforce did: the whole session state as one JSON
  file per session, written atomically (temporary file, fsync, rename, fsync of the
  directory).
* ``openai_agents``: openai-agents' ``SQLAlchemySession`` on an SQLite file (WAL, its own
  settings), appending the turn's two conversation items: the ``function_call`` and its
  ``function_call_output`` (the planner's result: the rendered checklist).
* ``langgraph``: LangGraph's ``SqliteSaver`` (langgraph-checkpoint-sqlite, WAL), saving a
  checkpoint whose channel values hold the plan state, as a graph whose state carries the
  plan does after each node.

Each peer is built with :func:`make_peer` and exposes ``async step(plan_state, rendered)``
(one durable commit) and ``close()``; a peer that is not installed raises ImportError.
"""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from pathlib import Path
from typing import Any, Protocol

PEERS = ("json_file", "openai_agents", "langgraph")


class Peer(Protocol):
    """One durable write per planner action."""

    version: str

    async def step(self, plan_state: dict[str, Any], rendered: str) -> None:
        """Persist the plan after one action."""
        ...

    async def close(self) -> None:
        """Release resources."""
        ...


class JsonFilePeer:
    """One JSON file per session, replaced atomically with fsync (the original taskforce)."""

    version = "stdlib json + os.fsync"

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / f"{uuid.uuid4().hex}.json"
        self.state: dict[str, Any] = {"mission": "bench", "status": "running", "messages": []}

    async def step(self, plan_state: dict[str, Any], rendered: str) -> None:
        self.state["plan"] = plan_state
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as f:  # noqa: ASYNC230 (blocking, as it was)
            json.dump(self.state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        fd = os.open(self.dir, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    async def close(self) -> None:
        return None


class OpenAIAgentsPeer:
    """openai-agents' SQLAlchemySession: append the call and its output per action."""

    def __init__(self, path: Path) -> None:
        from importlib.metadata import version

        from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession

        self.version = f"openai-agents {version('openai-agents')}"
        self.session = SQLAlchemySession.from_url(
            uuid.uuid4().hex, url=f"sqlite+aiosqlite:///{path}", create_tables=True
        )
        self.calls = 0

    async def step(self, plan_state: dict[str, Any], rendered: str) -> None:
        self.calls += 1
        call_id = f"call_{self.calls}"
        args = json.dumps({"action": "mark_done", "step_index": [self.calls]})
        await self.session.add_items(
            [
                {"type": "function_call", "call_id": call_id, "name": "planner", "arguments": args},
                {"type": "function_call_output", "call_id": call_id, "output": rendered},
            ]  # type: ignore[list-item]
        )

    async def close(self) -> None:
        await self.session.engine.dispose()


class LangGraphPeer:
    """LangGraph's SqliteSaver: one checkpoint (with the plan in its channel values) per action."""

    def __init__(self, path: Path) -> None:
        from importlib.metadata import version

        from langgraph.checkpoint.base import empty_checkpoint
        from langgraph.checkpoint.sqlite import SqliteSaver

        self.version = (
            f"langgraph {version('langgraph')}, "
            f"langgraph-checkpoint-sqlite {version('langgraph-checkpoint-sqlite')}"
        )
        self._empty = empty_checkpoint
        self.conn = sqlite3.connect(str(path), check_same_thread=False)
        self.saver = SqliteSaver(self.conn)
        self.saver.setup()
        self.config: dict[str, Any] = {
            "configurable": {"thread_id": uuid.uuid4().hex, "checkpoint_ns": ""}
        }
        self.steps = 0

    async def step(self, plan_state: dict[str, Any], rendered: str) -> None:
        self.steps += 1
        checkpoint = self._empty()
        checkpoint["channel_values"] = {"plan": plan_state, "mission": "bench"}
        checkpoint["channel_versions"] = {"plan": self.steps, "mission": 1}
        self.config = self.saver.put(
            self.config,  # type: ignore[arg-type]
            checkpoint,
            {"source": "loop", "step": self.steps},
            {"plan": self.steps},
        )

    async def close(self) -> None:
        self.conn.close()


def make_peer(name: str, directory: Path) -> Peer:
    """Build the peer ``name`` storing under ``directory`` (ImportError if not installed)."""
    directory.mkdir(parents=True, exist_ok=True)
    if name == "json_file":
        return JsonFilePeer(directory / "json-sessions")
    if name == "openai_agents":
        return OpenAIAgentsPeer(directory / "openai-agents.db")
    if name == "langgraph":
        return LangGraphPeer(directory / "langgraph.db")
    raise ValueError(name)
