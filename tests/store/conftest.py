"""Store fixtures: one contract suite over in-memory SQLite, an SQLite file and PostgreSQL.

PostgreSQL comes from ``TASKFORCE_TEST_PG_URL``; each test gets its own schema. When
``TASKFORCE_REQUIRE_PG=1`` and the URL is missing, the PostgreSQL params FAIL (not skip).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from taskforce.store import StateManager
from tests.pg import pg_url


@dataclass
class Backend:
    """A fresh database; ``make()`` opens another StateManager on the same database."""

    name: str
    url: str
    shared: bool  # can several managers (agents, processes) share this database?
    _make: Callable[..., StateManager]
    managers: list[StateManager] = field(default_factory=list)
    pg: PgSchema | None = None

    def make(self, **kwargs: Any) -> StateManager:
        manager = self._make(**kwargs)
        self.managers.append(manager)
        return manager


class PgSchema:
    """A throwaway PostgreSQL schema; ``engine()`` makes engines bound to it (search_path)."""

    def __init__(self) -> None:
        self.url = pg_url()
        self.schema = f"t_{uuid.uuid4().hex[:12]}"
        self.engines: list[AsyncEngine] = []

    async def create(self) -> PgSchema:
        admin = create_async_engine(self.url)
        async with admin.begin() as conn:
            await conn.execute(text(f'CREATE SCHEMA "{self.schema}"'))
        await admin.dispose()
        return self

    def engine(self) -> AsyncEngine:
        args = {"server_settings": {"search_path": self.schema}}
        engine = create_async_engine(self.url, connect_args=args)
        self.engines.append(engine)
        return engine

    async def drop(self) -> None:
        for engine in self.engines:
            await engine.dispose()
        admin = create_async_engine(self.url)
        async with admin.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA "{self.schema}" CASCADE'))
        await admin.dispose()


async def _backend(name: str, tmp_path: Path) -> Backend:
    if name == "memory":
        url = "sqlite+aiosqlite://"
        return Backend(name, url, False, lambda **kw: StateManager(url, **kw))
    if name == "file":
        url = f"sqlite+aiosqlite:///{tmp_path / 'state.db'}"
        return Backend(name, url, True, lambda **kw: StateManager(url, **kw))
    pg = await PgSchema().create()
    backend = Backend(name, pg.url, True, lambda **kw: StateManager(engine=pg.engine(), **kw))
    backend.pg = pg
    return backend


async def _close(b: Backend) -> None:
    for manager in b.managers:
        await manager.close()
    if b.pg is not None:
        await b.pg.drop()


BACKENDS = ["memory", "file", pytest.param("postgres", marks=pytest.mark.postgres)]
SHARED_BACKENDS = ["file", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    b = await _backend(request.param, tmp_path)
    yield b
    await _close(b)


@pytest.fixture(params=SHARED_BACKENDS)
async def shared_backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    b = await _backend(request.param, tmp_path)
    yield b
    await _close(b)


@pytest.fixture
async def sm(backend: Backend) -> StateManager:
    return backend.make()


def make_plan(n: int, done: int = 0) -> dict[str, Any]:
    tasks = [
        {
            "id": f"s{i + 1}",
            "description": f"step {i + 1}",
            "status": "DONE" if i < done else "PENDING",
            "note": None,
        }
        for i in range(n)
    ]
    return {"tasks": tasks, "version": 1, "next_id": n + 1}


def make_state(n: int = 3, done: int = 0, **extra: Any) -> dict[str, Any]:
    return {"mission": "write the report", "status": "running", "plan": make_plan(n, done), **extra}
