"""Running one transaction: locks, SQLite BEGIN IMMEDIATE, retries, a shielded commit."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from taskforce.errors import CommitUncertainError, StateError
from taskforce.store import _engine, _migrate
from taskforce.store._settle import settle, to_its_end
from taskforce.store._turns import Turn, Turns, TurnTimeout
from taskforce.store._tx import BrokenConnection, CoreTx, Tx, run_sqlite

T = TypeVar("T")
Attempt = Callable[[], Awaitable[tuple[T, bool]]]


class Runner:
    """Runs transaction bodies against one engine, migrating the schema before first use.

    Args:
        engine: The async engine (SQLite hooks already installed).
        url: The URL for messages (password hidden).
        auto_upgrade: Whether an older schema is migrated on first use.
        retry_seconds: Total time to retry transient lock errors.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        url: str,
        *,
        auto_upgrade: bool,
        retry_seconds: float,
        timeout: float | None = None,
    ) -> None:
        self.engine = engine
        self.timeout = timeout
        self.url = url
        self.dialect = engine.dialect.name
        database = engine.url.database or ""
        self.memory = self.dialect == "sqlite" and database in ("", ":memory:")
        file = self.dialect == "sqlite" and not self.memory and not database.startswith("file:")
        self._turns = Turns(Path(os.path.abspath(database)), retry_seconds) if file else None
        self._auto_upgrade = auto_upgrade
        self._retry_seconds = retry_seconds
        self._lock = asyncio.Lock()  # SQLite: one writer per process (every op in memory)
        self._ready_lock = asyncio.Lock()
        self._ready = False
        self._writer: tuple[AsyncConnection, Any] | None = None  # SQLite: kept, under _lock

    @contextlib.asynccontextmanager
    async def connect(self, *, write: bool) -> AsyncIterator[AsyncConnection]:
        """A connection inside a transaction: SQLite writes hold the write lock up front."""
        async with self.engine.connect() as conn:
            if write and self.dialect == "sqlite":
                await conn.execution_options(**{_engine.WRITE_OPTION: True})
            elif not write and self.dialect == "postgresql":
                await conn.execution_options(isolation_level="REPEATABLE READ")
            await conn.begin()
            yield conn

    @staticmethod
    async def commit(conn: AsyncConnection) -> bool:
        """Commit, shielded from cancellation; True if the caller was cancelled meanwhile.

        A cancellation that arrives during the commit waits for it to finish, so the
        commit lands whole or not at all and the caller learns which.
        """
        task = asyncio.ensure_future(conn.commit())
        cancelled = await settle(task)
        if task.cancelled():
            raise CommitUncertainError("the commit itself was cancelled")
        exc = task.exception()
        if isinstance(exc, DBAPIError):
            if _engine.is_transient(exc) or _engine.refused_by_server(exc):
                raise exc  # the server answered: the transaction did not commit
            raise CommitUncertainError(f"commit failed, outcome unknown: {exc.orig}") from exc
        if exc is not None:
            raise exc
        return cancelled is not None

    async def transact(
        self, body: Callable[[AsyncConnection], Awaitable[T]], *, write: bool
    ) -> tuple[T, bool]:
        """Run an async SQLAlchemy ``body`` in one transaction (see :meth:`_guarded`).

        Returns ``(result, cancelled_during_commit)``.
        """
        return await self._guarded(lambda: self._sa_attempt(body, write), write)

    async def run_tx(self, body: Callable[[Tx], T], *, write: bool = True) -> tuple[T, bool]:
        """Run a synchronous :class:`Tx` ``body`` in one transaction, schema checked first.

        SQLite: the whole transaction is one call in the driver's thread (one hop).
        PostgreSQL: the body runs on SQLAlchemy's synchronous facade of the connection.
        """
        await self.ready()
        if self.dialect == "sqlite":
            turn = self._turns.turn() if write and self._turns is not None else None
            if (write or self.memory) and self._writer is not None:
                return await self._sqlite_kept(body, write, turn)
            return await self._guarded(lambda: self._sqlite_attempt(body, write, turn), write, turn)

        async def on_core(conn: AsyncConnection) -> T:
            return await conn.run_sync(lambda sync_conn: body(CoreTx(sync_conn)))

        return await self._guarded(lambda: self._sa_attempt(on_core, write), write)

    async def _guarded(
        self, attempt: Attempt[T], write: bool, turn: Turn | None = None
    ) -> tuple[T, bool]:
        """Retry ``attempt`` on transient lock errors; on SQLite, shielded to its end.

        On SQLite the transaction, once begun, runs to its end shielded from cancellation
        (which then takes effect): aiosqlite cannot abandon a connection mid-statement
        without leaking its open transaction and write lock (or, in memory, the database).
        That includes waiting for its `turn` among the file's writers, as it included
        waiting in SQLite's busy handler (both bounded by the retry time). On PostgreSQL a
        cancellation before the commit aborts the transaction server-side; the commit
        itself is shielded (see :meth:`commit`).
        """
        if self.dialect != "sqlite":
            return await self._retrying(attempt, write)
        lock = self._lock if write or self.memory else None  # one SQLite writer per process
        async with lock or contextlib.nullcontext():
            return await self._shielded(attempt, write)

    async def _shielded(self, attempt: Attempt[T], write: bool) -> tuple[T, bool]:
        """:meth:`_retrying` in a task of its own, awaited to its end (lock already held)."""
        task = asyncio.ensure_future(self._retrying(attempt, write))
        cancelled = await settle(task)
        if cancelled is not None and (task.exception() is not None or not write):
            raise cancelled
        result, late = task.result()
        return result, cancelled is not None or late

    async def _sqlite_kept(
        self, body: Callable[[Tx], T], write: bool, turn: Turn | None
    ) -> tuple[T, bool]:
        """The usual write: one call on the kept connection, awaited without a task of its own.

        The same transaction as :meth:`_guarded` runs (shielded to its end: a cancellation
        waits for the call, then applies), minus a task and the loop turns it costs. A lock
        error is retried through :meth:`_guarded` (nothing was written); any other failure
        is reported as :meth:`_retrying` reports it.
        """
        async with self._lock:
            if self._writer is None or not self._writer[1]._running:  # dropped meanwhile
                return await self._shielded(lambda: self._sqlite_attempt(body, write, turn), write)
            conn, writer = self._writer
            call = functools.partial(run_sqlite, writer._conn, body, write, turn)
            done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
            writer._tx.put_nowait((done, call))  # what aiosqlite's own _execute does
            cancelled = await settle(done)
            failure = done.exception()
            if failure is None:
                if cancelled is not None and not write:
                    raise cancelled
                return done.result(), cancelled is not None
            if cancelled is not None:
                raise cancelled  # the transaction rolled back: nothing was written
            if isinstance(failure, BrokenConnection):
                self._writer = None
                await conn.invalidate()
                await conn.close()
            elif isinstance(failure, sqlite3.Error) and _engine.is_transient(failure):
                return await self._shielded(lambda: self._sqlite_attempt(body, write, turn), write)
            self._raise(failure)

    async def _sqlite_attempt(
        self, body: Callable[[Tx], T], write: bool, turn: Turn | None
    ) -> tuple[T, bool]:
        """One transaction as one call in the aiosqlite connection's thread.

        Writes (and everything in memory) hold ``_lock`` and keep one connection checked
        out across transactions (checking one out and back costs more than the commit's
        own Python work); reads without the lock take one from the pool.
        """
        if write or self.memory:
            if self._writer is None:
                held = await self.engine.connect()
                self._writer = (held, (await held.get_raw_connection()).driver_connection)
            conn, writer = self._writer
            try:
                # aiosqlite's own queue: the callable runs in the connection's thread.
                result: T = await writer._execute(run_sqlite, writer._conn, body, write, turn)
            except BrokenConnection:
                self._writer = None
                await conn.invalidate()
                await conn.close()
                raise
            return result, False
        async with self.engine.connect() as conn:
            driver: Any = (await conn.get_raw_connection()).driver_connection
            try:
                result = await driver._execute(run_sqlite, driver._conn, body, write)
            except BrokenConnection:
                await conn.invalidate()
                raise
        return result, False

    async def close(self, *, dispose: bool) -> None:
        """Return the connection kept for SQLite writes to the pool; `dispose`: the engine too.

        It runs to its end through a cancellation (which then applies): a connection left
        half-closed can hang the event loop's shutdown (see :mod:`taskforce.store._settle`).
        """
        await to_its_end(self._close(dispose))

    async def _close(self, dispose: bool) -> None:
        async with self._lock:
            writer, self._writer = self._writer, None
            if writer is not None:
                await writer[0].close()
            if self._turns is not None:
                self._turns.close()  # the lock file kept open (a later write reopens it)
        if dispose:
            await self.engine.dispose()

    async def _sa_attempt(
        self, body: Callable[[AsyncConnection], Awaitable[T]], write: bool
    ) -> tuple[T, bool]:
        committed = False
        try:
            async with self.connect(write=write) as conn:
                result = await body(conn)
                cancelled = await self.commit(conn)
                committed = True
        except asyncio.CancelledError:
            if not committed:
                raise  # nothing was committed: the transaction rolls back
            cancelled = True  # cancelled while releasing the connection
        if cancelled and not write:
            raise asyncio.CancelledError
        return result, cancelled

    async def _retrying(self, attempt: Attempt[T], write: bool) -> tuple[T, bool]:
        try:
            try:
                return await attempt()  # the usual case, without setting up the retries
            except (DBAPIError, sqlite3.Error) as exc:
                if not _engine.is_transient(exc):
                    raise
            async for retry in _engine.retrying(self._retry_seconds):
                with retry:
                    return await attempt()
        except (DBAPIError, sqlite3.Error, BrokenConnection, TurnTimeout, OSError) as exc:
            self._raise(exc)
        raise AssertionError("unreachable")  # pragma: no cover

    def _raise(self, exc: BaseException) -> NoReturn:
        """Raise what a failed transaction means for the caller (a database failure: StateError)."""
        if isinstance(exc, DBAPIError | sqlite3.Error):
            orig = exc.orig if isinstance(exc, DBAPIError) else exc
            if _engine.is_transient(exc):
                raise StateError(
                    f"database {self.url} stayed locked for {self._retry_seconds}s: {orig}"
                ) from exc
            detail = " ".join(str(orig).split())[:300]
            if "readonly database" in detail:
                detail += " (it is read-only here: it can be read, not written)"
            elif _engine.disk_full(self.engine):
                detail += (
                    " (the disk holding it is full: free some space; this write was not saved)"
                )
            raise StateError(f"database {self.url} failed: {detail}") from exc
        if isinstance(exc, BrokenConnection):
            raise StateError(f"database {self.url} failed: {exc}") from exc
        if isinstance(exc, TurnTimeout):
            path = self._turns.path.name if self._turns is not None else "its lock file"
            raise StateError(
                f"database {self.url} stayed locked for {self._retry_seconds}s: another "
                f"taskforce writer held {path} all that time"
            ) from None
        if isinstance(exc, TimeoutError):  # a server that accepts connections but never answers
            waited = f" within {self.timeout:g} s" if self.timeout else ""
            raise StateError(
                f"database {self.url} did not answer{waited} (is it overloaded, or not a "
                "PostgreSQL server? TASKFORCE_DB_TIMEOUT sets how long to wait)"
            ) from exc
        if isinstance(exc, OSError):
            reason = str(exc) or type(exc).__name__
            raise StateError(f"cannot open database {self.url}: {reason}") from exc
        raise exc

    async def ready(self) -> None:
        """Make sure the schema is at the head revision (once per runner)."""
        if not self._ready:
            async with self._ready_lock:
                if not self._ready:
                    await self.migrate(None)
                    self._ready = True

    async def run(
        self, body: Callable[[AsyncConnection], Awaitable[T]], *, write: bool = True
    ) -> tuple[T, bool]:
        """Like :meth:`transact`, after making sure the schema is at the head revision."""
        await self.ready()
        return await self.transact(body, write=write)

    async def _at_head(self) -> bool:
        """A look in a read transaction: a database at the head needs no write lock at all.

        So the first operation of a process does not queue behind writers, and a read-only
        database can be read. A database newer than the code is refused here already.
        """

        async def peek(conn: AsyncConnection) -> str | None:
            return await conn.run_sync(_migrate.current_revision)

        revision, _ = await self.transact(peek, write=False)
        return not _migrate.check_revision(revision, url=self.url, auto_upgrade=self._auto_upgrade)

    async def migrate(self, action: Callable[[Any], None] | None) -> None:
        """Check (and auto-upgrade) the schema, or run an explicit Alembic ``action``."""

        async def body(conn: AsyncConnection) -> None:
            if self.dialect == "postgresql":
                lock = text("SELECT pg_advisory_xact_lock(:k)")
                await conn.execute(lock, {"k": _migrate.PG_LOCK_KEY})
            revision = await conn.run_sync(_migrate.current_revision)
            if action is not None:  # explicit upgrade/downgrade: refuse only a newer schema
                _migrate.check_revision(revision, url=self.url, auto_upgrade=True)
                await conn.run_sync(action)
            elif _migrate.check_revision(revision, url=self.url, auto_upgrade=self._auto_upgrade):
                await conn.run_sync(_migrate.upgrade)

        if action is not None:
            self._ready = False
        elif await self._at_head():
            return
        _, cancelled = await self.transact(body, write=True)
        if cancelled:  # the migration landed whole; the caller's cancellation now applies
            raise asyncio.CancelledError("taskforce: the schema migration was committed")
