"""StateManager: durable, concurrency-safe session state over SQLAlchemy's async engine."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Iterable, Mapping
from datetime import datetime
from types import TracebackType
from typing import Any, Self, TypeVar

from sqlalchemy import bindparam, select
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from taskforce.errors import ConfigurationError, StaleStateError, UserError
from taskforce.store import _changes, _engine, _listing, _migrate, _reread, _update, _write
from taskforce.store import _schema as t
from taskforce.store._codec import (
    StepRow,
    check_size,
    dumps,
    encode_state,
    nbytes,
)
from taskforce.store._config import (
    MAX_PAYLOAD_BYTES,
    check_page,
    db_timeout,
    default_db_url,
    validate_session_id,
)
from taskforce.store._logs import LogsAPI
from taskforce.store._runner import Runner
from taskforce.store._tx import Tx
from taskforce.store._types import (
    Change,
    SessionSummary,
    summary_from_row,
)
from taskforce.store._urls import display_url, mask_password, normalize_url
from taskforce.store._write import Cached
from taskforce.store.claims import ClaimsAPI
from taskforce.store.protocol import PlanEdit

T = TypeVar("T")
_c = t.sessions.c
_LOAD = select(_c.version, _c.token, _c.data, _c.plan_meta).where(
    _c.session_id == bindparam("b_sid"), _c.version > 0
)


class StateManager(ClaimsAPI, LogsAPI):
    """Async store of session states, messages and plan history (SQLite or PostgreSQL).

    Workers sharing a session's plan claim steps with leases (:class:`ClaimsAPI`:
    ``claim_step``, ``renew_lease``, ``finish_step``, ``release_step``).

    Every session has a version; a write based on a stale version raises
    :class:`~taskforce.errors.StaleStateError` and changes nothing. Plan steps are stored
    one row per step and written as a diff, so marking one step done writes one step row.
    The schema is migrated with Alembic on first use (``auto_upgrade``) or explicitly.

    Args:
        url: Database URL (``sqlite+aiosqlite:///path.db``, ``postgresql+asyncpg://...``;
            ``sqlite://``, ``postgresql://`` and ``postgres://`` get the async driver).
            Defaults to :func:`default_db_url` (``TASKFORCE_DB_URL`` or the user data dir).
        engine: An existing ``AsyncEngine`` to use instead of ``url`` (not disposed on close;
            several stores may share one: on SQLite the first one's pragmas apply).
        auto_upgrade: Migrate an older schema on first use; if False, refuse it.
        max_payload_bytes: Limit on one save (state + messages + events) or one append, as
            UTF-8 JSON; larger payloads raise ``StatePayloadError``.
        busy_timeout_ms: SQLite busy timeout per attempt.
        lock_retry_seconds: Total time to keep retrying "database is locked" (jittered).
        sqlite_synchronous: SQLite ``synchronous`` pragma; FULL makes every commit durable.
        cache_size: Sessions whose last plan is kept in memory to diff writes against.
        connect_timeout: Seconds a PostgreSQL server has to answer a connection (a
            statement gets six times that); default ``TASKFORCE_DB_TIMEOUT`` or 10.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        engine: AsyncEngine | None = None,
        auto_upgrade: bool = True,
        max_payload_bytes: int = MAX_PAYLOAD_BYTES,
        busy_timeout_ms: int = 5000,
        lock_retry_seconds: float = 30.0,
        sqlite_synchronous: str = "FULL",
        cache_size: int = 256,
        connect_timeout: float | None = None,
    ) -> None:
        if engine is not None and url is not None:
            raise ConfigurationError("pass either url or engine, not both")
        if sqlite_synchronous.upper() not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
            raise ConfigurationError(f"bad sqlite_synchronous {sqlite_synchronous!r}")
        target = normalize_url(url or default_db_url()) if engine is None else ""
        timeout = db_timeout() if connect_timeout is None else connect_timeout
        if not timeout > 0:
            raise ConfigurationError(f"connect_timeout must be > 0 seconds, not {timeout!r}")
        try:
            self._engine = engine or _engine.create_engine(target, timeout=timeout)
        except (ArgumentError, ImportError, ValueError) as exc:  # the cause may hold the password
            cause = mask_password(str(exc), target)
            raise ConfigurationError(
                f"cannot use database URL {display_url(target)!r}: {cause}"
            ) from None
        self._owns_engine = engine is None
        shown = self._engine.url.render_as_string(hide_password=True)
        self.url: str = display_url(target) if target else shown  # as given, password hidden
        dialect = self._engine.dialect.name
        if dialect not in {"sqlite", "postgresql"}:
            raise ConfigurationError(f"unsupported database {dialect!r}: use SQLite or PostgreSQL")
        if dialect == "sqlite":
            _engine.install_sqlite_hooks(
                self._engine,
                busy_timeout_ms=busy_timeout_ms,
                synchronous=sqlite_synchronous.upper(),
            )
        self._db = Runner(self._engine, self.url, auto_upgrade=auto_upgrade,
                          retry_seconds=lock_retry_seconds, timeout=timeout)  # fmt: skip
        self._limit = max_payload_bytes
        self._cache: OrderedDict[str, Cached] = OrderedDict()
        self._cache_size = cache_size

    def _remember(self, session_id: str, entry: Cached | None) -> None:
        self._cache.pop(session_id, None)
        if entry is not None and self._cache_size > 0:
            self._cache[session_id] = entry
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    # ----------------------------------------------------------------- schema
    async def upgrade(self, revision: str = "head") -> None:
        """Migrate the schema up to ``revision`` (``taskforce db upgrade``)."""
        await self._db.migrate(lambda conn: _migrate.upgrade(conn, revision))
        self._cache.clear()

    async def downgrade(self, revision: str) -> None:
        """Migrate the schema down to ``revision`` (``"base"`` drops all taskforce tables)."""
        await self._db.migrate(lambda conn: _migrate.downgrade(conn, revision))
        self._cache.clear()

    async def current_revision(self) -> str | None:
        """The schema revision recorded in the database (None if empty)."""

        async def body(conn: AsyncConnection) -> str | None:
            return await conn.run_sync(_migrate.current_revision)

        return (await self._db.transact(body, write=False))[0]

    # ----------------------------------------------------------------- state
    async def save_state(
        self,
        session_id: str,
        state: Mapping[str, Any],
        expected_version: int | None = None,
        *,
        messages: Iterable[Any] = (),
        events: Iterable[Mapping[str, Any]] = (),
    ) -> int:
        """Save a session state; returns the new session version.

        Args:
            session_id: 1-128 characters of ``[A-Za-z0-9._:-]``.
            state: A JSON object; ``state["plan"]`` is stored one row per step.
            expected_version: The version this write is based on (falls back to
                ``state["version"]``); 0 means "must not exist yet"; None overwrites.
            messages: Messages appended in the same transaction.
            events: The history events of this save (``{"kind", "step_id", "note",
                ...}``, the lifecycle events of ``taskforce.plan.events``), recorded as
                given. Without them the store derives the plan's events from the diff
                with the stored plan, in the same vocabulary.

        Raises:
            StaleStateError: the stored version differs; nothing was written.
            StatePayloadError: not JSON-serialisable, malformed plan steps, or too large.
            InvalidSessionIdError: bad session id.
            CommitUncertainError: the commit failed in a way that leaves its outcome unknown.
            asyncio.CancelledError: the caller was cancelled. If the message says
                "committed", the save landed whole (the commit is shielded and finished
                first); otherwise nothing was written. On SQLite a begun transaction always
                runs to its end before the cancellation takes effect.
        """
        validate_session_id(session_id)
        cached = self._cache.get(session_id)
        encoded = encode_state(state, cached.memo if cached is not None else None)
        if expected_version is None and type(state.get("version")) is int:
            expected_version = state["version"]
        if expected_version is not None and (
            type(expected_version) is not int or expected_version < 0
        ):
            raise UserError(f"expected_version must be an int >= 0, not {expected_version!r}")
        message_rows = [dumps(m, "message") for m in messages]
        history = _write.history_rows(events)  # checked and encoded once
        size = encoded.nbytes + sum(map(nbytes, message_rows)) + _write.history_size(history)
        check_size(size, self._limit, f"save of session {session_id!r}")
        now = time.time()

        def body(tx: Tx) -> tuple[int, str]:
            return _write.save(  # its change notice is delivered on commit only
                tx,
                session_id,
                encoded,
                expected_version,
                cached,
                now,
                message_rows,
                history,
                notify=True,
            )

        try:
            (version, token), cancelled = await self._db.run_tx(body)
        except StaleStateError:  # refused, nothing written: the entry still says what is
            raise  # at its version (a re-applied change reads the stored rows against it)
        except BaseException:
            self._remember(session_id, None)
            raise
        memo = _reread.after_save(cached, encoded, state.get("plan"))
        return self._saved(session_id, Cached(token, version, encoded.steps, memo), cancelled)

    def _saved(self, session_id: str, entry: Cached, cancelled: bool) -> int:
        """Remember what a save wrote (`entry`); raise the cancellation that arrived meanwhile."""
        self._remember(session_id, entry)
        version = entry.version
        if cancelled:
            raise asyncio.CancelledError(
                f"taskforce: session {session_id!r} version {version} was committed "
                "before the cancellation took effect"
            )
        return version

    async def update_state(self, session_id: str, change: _update.Change) -> int:
        """Read, change and save a session's state in one transaction; the new version.

        ``change`` gets the stored state (with ``"version"``; None if there is none) and
        returns ``(new state, history events)``. It runs inside the write transaction
        (on SQLite in the driver's thread), so it must be quick and do no I/O; whatever
        it raises rolls the transaction back and reaches the caller. No other writer can
        commit in between, so this never raises StaleStateError of its own. A
        :class:`~taskforce.store.PlanEdit` gets the stored plan decoded (``edit_plan``),
        read through this manager's cache: only steps changed since are decoded.
        """
        validate_session_id(session_id)
        now = time.time()
        if isinstance(change, PlanEdit):
            cached = self._cache.get(session_id)
            body = _update.plan_body(session_id, change, self._limit, now, cached)
        else:
            body = _update.body(session_id, change, self._limit, now)
        try:
            try:
                entry, cancelled = await self._db.run_tx(body)
            except StaleStateError:  # PostgreSQL: a concurrent first writer created the row
                entry, cancelled = await self._db.run_tx(body)
        except BaseException:
            self._remember(session_id, None)
            raise
        return self._saved(session_id, entry, cancelled)

    async def load_state(self, session_id: str) -> dict[str, Any] | None:
        """The stored state with ``"version"`` added, or None if there is no such session.

        Raises:
            StateCorruptError: a stored row cannot be decoded (names the session).
        """
        validate_session_id(session_id)

        def body(tx: Tx) -> tuple[Any, tuple[StepRow, ...]]:
            found = tx.rows(_LOAD, {"b_sid": session_id})
            steps = _write.read_steps(tx, session_id) if found else ()
            return (found[0] if found else None), steps

        (row, steps), _ = await self._db.run_tx(body, write=False)
        if row is None:
            return None
        state, cached = _write.loaded(session_id, row, steps)
        self._remember(session_id, cached)
        return state

    async def delete_state(self, session_id: str, expected_version: int | None = None) -> bool:
        """Delete a session with its steps, messages and history; True if it existed.

        With `expected_version`, only that version is deleted: a session changed since
        raises :class:`~taskforce.errors.StaleStateError` and is kept.
        """
        validate_session_id(session_id)
        self._remember(session_id, None)

        def body(tx: Tx) -> bool:
            existed = _write.remove(tx, session_id, expected_version)
            if existed:
                _changes.notify(tx, session_id, 0)
            return existed

        existed, cancelled = await self._db.run_tx(body)
        if cancelled:
            raise asyncio.CancelledError(f"taskforce: session {session_id!r} was deleted")
        return existed

    async def list_sessions(
        self, limit: int = 50, offset: int = 0, *, updated_before: datetime | None = None
    ) -> list[SessionSummary]:
        """Sessions, most recently updated first (indexed, paginated).

        `updated_before` keeps those last saved before that moment (naive means UTC).
        """
        check_page(limit, offset)
        query = _listing.sessions_query(limit, offset, updated_before)

        async def body(conn: AsyncConnection) -> list[SessionSummary]:
            return [summary_from_row(row) for row in await conn.execute(query)]

        return (await self._db.run(body, write=False))[0]

    async def changes(
        self,
        session_id: str | None = None,
        *,
        known: Mapping[str, int] | None = None,
        poll_interval: float = 0.5,
    ) -> AsyncGenerator[Change]:
        """Changes to one session (or all) as they are committed, by any process.

        Yields :class:`~taskforce.store.Change` ``(session_id, version)``; version 0 means
        deleted. PostgreSQL pushes them (LISTEN/NOTIFY, sent in the writing transaction);
        SQLite is polled every `poll_interval` seconds (intermediate versions may be
        skipped: reload the state). The feed starts at the first iteration; pass `known`
        (session id -> version you hold) to be told first of anything newer.
        """
        if session_id is not None:
            validate_session_id(session_id)
        await self._db.run(_nothing, write=False)  # the schema exists before watching it
        feed = _changes.watch(self._engine, session_id, known, poll_interval)
        async with contextlib.aclosing(feed) as changes:
            async for change in changes:
                yield change

    @property
    def engine(self) -> AsyncEngine:
        """The SQLAlchemy engine in use (e.g. to attach event listeners)."""
        return self._engine

    async def close(self) -> None:
        """Release the database connections (the engine, if this manager created it)."""
        self._cache.clear()
        await self._db.close(dispose=self._owns_engine)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


async def _nothing(_conn: AsyncConnection) -> None:
    return None
