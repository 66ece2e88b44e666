"""Engine set-up: SQLite pragmas and transaction modes, and the "database is locked" retry."""

from __future__ import annotations

import os
import sqlite3
import weakref
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from tenacity import (
    AsyncRetrying,
    retry_if_exception,
    stop_after_attempt,
    stop_after_delay,
    wait_random_exponential,
)

from taskforce.store._config import DEFAULT_DB_TIMEOUT, read_only_query, sqlite_path

WRITE_OPTION = "taskforce_write"
"""Execution option marking a read-modify-write transaction (SQLite: BEGIN IMMEDIATE)."""

_LOCKED = ("database is locked", "database table is locked", "database schema is locked")
_PG_RETRY_STATES = {"40001", "40P01"}  # serialization failure, deadlock detected


def create_engine(url: str, *, timeout: float = DEFAULT_DB_TIMEOUT) -> AsyncEngine:
    """An async engine for ``url``; creates the parent directory of an SQLite file.

    A PostgreSQL server gets `timeout` seconds to answer a connection attempt and six
    times that for one statement: one that accepts connections and never answers is
    given up on, not waited for.

    SQLite connections go back to the pool without the pool's "rollback on return":
    every transaction the store opens ends in COMMIT or ROLLBACK before that (see
    ``_runner``), and on aiosqlite that redundant rollback would cost a thread hop.
    """
    path = sqlite_path(url)
    if path is None:
        if url.partition("://")[0].startswith("postgresql"):
            limits = {"timeout": timeout, "command_timeout": 6 * timeout}
            return create_async_engine(url, connect_args=limits)
        return create_async_engine(url)
    if path != ":memory:" and not path.startswith("file:"):
        file = Path(path).expanduser()
        if (query := read_only_query(file)) is not None:  # readable still; writes will fail
            scheme = url.partition("://")[0]
            url = f"{scheme}:///file:{quote(str(file.resolve()))}?{query}&uri=true"
        else:
            file.parent.mkdir(parents=True, exist_ok=True)
    return create_async_engine(url, pool_reset_on_return=None)


_HOOKED: weakref.WeakSet[Engine] = weakref.WeakSet()
"""Engines whose hooks are installed (stores may share an engine: the first one's apply)."""


def install_sqlite_hooks(engine: AsyncEngine, *, busy_timeout_ms: int, synchronous: str) -> None:
    """Per connection: WAL, busy timeout, foreign keys, ``synchronous``; explicit BEGINs.

    Once per engine: on an engine that already has them (another store's), nothing
    changes, and that store's busy timeout and ``synchronous`` apply.

    The driver's own implicit transactions are turned off so that SQLAlchemy's ``begin``
    emits ``BEGIN IMMEDIATE`` (write lock up front) for connections carrying
    :data:`WRITE_OPTION`, and a plain deferred ``BEGIN`` (a WAL snapshot) for reads.
    """
    if engine.sync_engine in _HOOKED:  # a second store on this engine: BEGIN once, not twice
        return
    _HOOKED.add(engine.sync_engine)
    memory = engine.url.database in (None, "", ":memory:")

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            cursor.execute("PRAGMA foreign_keys = ON")
            if not memory:
                cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute(f"PRAGMA synchronous = {synchronous}")
        finally:
            cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        write = connection.get_execution_options().get(WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def refused_by_server(exc: DBAPIError) -> bool:
    """Whether the server itself answered with an error (PostgreSQL: a SQLSTATE).

    Such a failed COMMIT rolled the transaction back; only a lost connection leaves the
    outcome unknown.
    """
    return not exc.connection_invalidated and getattr(exc.orig, "sqlstate", None) is not None


def disk_full(engine: AsyncEngine) -> bool:
    """Whether the file system holding an SQLite database has no free space left."""
    path = sqlite_path(engine.url.render_as_string())
    if path is None or path == ":memory:":
        return False
    if path.startswith("file:"):
        path = unquote(path[len("file:") :])
    try:
        stats = os.statvfs(Path(path).expanduser().parent)
    except (OSError, AttributeError):
        return False
    return stats.f_bavail * stats.f_frsize < 64 * 1024


def is_transient(exc: BaseException) -> bool:
    """True for "database is locked" (SQLite) and serialization/deadlock (PostgreSQL)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, sqlite3.OperationalError) and any(
            marker in str(seen).lower() for marker in _LOCKED
        ):
            return True
        if isinstance(seen, DBAPIError):
            orig = seen.orig
            text = str(orig).lower()
            if any(marker in text for marker in _LOCKED):
                return True
            if getattr(orig, "sqlstate", None) in _PG_RETRY_STATES:
                return True
        seen = seen.__cause__
    return False


def retrying(max_seconds: float) -> AsyncRetrying:
    """Bounded retry of a whole transaction on transient lock errors (jittered backoff)."""
    return AsyncRetrying(
        retry=retry_if_exception(is_transient),
        stop=stop_after_delay(max_seconds) | stop_after_attempt(50),
        wait=wait_random_exponential(multiplier=0.02, max=0.5),
        reraise=True,
    )
