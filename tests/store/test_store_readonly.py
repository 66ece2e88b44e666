"""The fast sqlite3 read path returns exactly what the StateManager returns."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from taskforce.errors import (
    InvalidSessionIdError,
    SchemaVersionError,
    StateCorruptError,
    StateError,
)
from taskforce.store import StateManager, default_db_url
from taskforce.store._config import HEAD_REVISION, default_db_path
from taskforce.store.readonly import read_sessions, read_state
from tests.store.conftest import make_state


def _url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


async def _fill(url: str) -> None:
    async with StateManager(url) as sm:
        for i in range(7):
            await sm.save_state(f"s{i}", make_state(3, done=i % 4, title=f"t{i} 😀\x00"))
        state = await sm.load_state("s2")
        assert state is not None
        state["plan"]["tasks"][0]["note"] = "n\x00"
        await sm.save_state("s2", state)


async def _both(url: str) -> tuple[object, object]:
    async with StateManager(url) as sm:
        slow = (
            await sm.list_sessions(),
            await sm.list_sessions(limit=3, offset=2),
            await sm.load_state("s2"),
            await sm.load_state("missing"),
        )
    fast = await asyncio.to_thread(
        lambda: (
            read_sessions(url),
            read_sessions(url, limit=3, offset=2),
            read_state(url, "s2"),
            read_state(url, "missing"),
        )
    )
    return slow, fast


async def test_fast_and_async_paths_agree(tmp_path: Path) -> None:
    url = _url(tmp_path / "r.db")
    await _fill(url)
    slow, fast = await _both(url)
    assert slow == fast
    assert len(fast[0]) == 7 and fast[2]["plan"]["tasks"][0]["note"] == "n\x00"  # type: ignore[index]


def test_missing_file_reads_empty_and_creates_nothing(tmp_path: Path) -> None:
    url = _url(tmp_path / "none.db")
    assert read_sessions(url) == [] and read_state(url, "x") is None
    assert not (tmp_path / "none.db").exists()
    with pytest.raises(InvalidSessionIdError):
        read_state(url, "bad id")


async def test_older_schema_falls_back_to_the_migrating_manager(tmp_path: Path) -> None:
    url = _url(tmp_path / "o.db")
    async with StateManager(url) as sm:
        await sm.upgrade("0001")
    assert await asyncio.to_thread(read_sessions, url) == []
    async with StateManager(url, auto_upgrade=False) as sm:
        assert await sm.current_revision() == HEAD_REVISION


async def test_newer_schema_is_refused_by_the_fast_path_too(tmp_path: Path) -> None:
    url = _url(tmp_path / "n.db")
    await _fill(url)
    async with StateManager(url) as sm, sm.engine.begin() as conn:
        await conn.execute(text("UPDATE alembic_version SET version_num = '0999'"))
    with pytest.raises(SchemaVersionError):
        await asyncio.to_thread(read_sessions, url)
    with pytest.raises(SchemaVersionError):
        await asyncio.to_thread(read_state, url, "s1")


async def test_corrupt_row_is_reported_by_the_fast_path(tmp_path: Path) -> None:
    url = _url(tmp_path / "c.db")
    await _fill(url)
    async with StateManager(url) as sm, sm.engine.begin() as conn:
        await conn.execute(text("UPDATE tf_steps SET body = 'x' WHERE session_id = 's3'"))
    with pytest.raises(StateCorruptError, match="'s3'"):
        read_state(url, "s3")


async def test_memory_and_postgres_urls_use_the_manager() -> None:
    assert await asyncio.to_thread(read_sessions, "sqlite+aiosqlite://") == []


def _python(code: str, **env: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **env},
        timeout=60,
    )
    return result.stdout.strip()


def test_importing_the_store_and_the_fast_path_does_not_import_sqlalchemy(tmp_path: Path) -> None:
    url = _url(tmp_path / "i.db")
    asyncio.run(_fill(url))
    code = (
        "import sys, taskforce.store, taskforce.store.readonly as r;"
        f"n = len(r.read_sessions({url!r}));"
        "print(n, any(m.startswith('sqlalchemy') for m in sys.modules))"
    )
    assert _python(code) == "7 False"


def test_default_url_env_var_and_constructor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TASKFORCE_DB_URL", raising=False)
    default = default_db_url()
    assert default == f"sqlite+aiosqlite:///{default_db_path()}"
    assert default_db_path().parts[-2:] == ("taskforce", "taskforce.db")
    assert default_db_url({"TASKFORCE_DB_URL": "postgresql+asyncpg://u@h/db"}).startswith(
        "postgresql"
    )
    env_url = _url(tmp_path / "env.db")
    monkeypatch.setenv("TASKFORCE_DB_URL", env_url)
    assert default_db_url() == env_url
    assert StateManager().url == env_url
    other = _url(tmp_path / "arg.db")
    assert StateManager(other).url == other


async def test_a_file_that_is_not_a_database_is_a_state_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not an SQLite database, just junk " * 100)
    url = _url(path)
    with pytest.raises(StateError, match="not a database"):
        await asyncio.to_thread(read_sessions, url)
    async with StateManager(url) as sm:
        with pytest.raises(StateError, match="not a database"):
            await sm.load_state("x")
    assert path.read_bytes().startswith(b"this is not")  # left as it was
