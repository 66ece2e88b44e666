"""One transaction body, two ways to run it: SQLite in one worker-thread hop, or SQLAlchemy.

The write bodies (``_write``) are plain synchronous functions of a :class:`Tx`. On SQLite
the whole body, from ``BEGIN IMMEDIATE`` to ``COMMIT``, runs as one call in the aiosqlite
connection's own thread, on its ``sqlite3`` connection (:func:`run_sqlite`): one thread
hop per transaction instead of three per statement. The statements are SQLAlchemy Core,
compiled once for SQLite and cached. On PostgreSQL the same body runs on SQLAlchemy's
synchronous facade (``AsyncConnection.run_sync``) with :class:`CoreTx`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, cast

from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import Connection
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

from taskforce.errors import CommitUncertainError
from taskforce.store._turns import Turn

T = TypeVar("T")
Params = Mapping[str, Any] | Sequence[Mapping[str, Any]]


class Tx(Protocol):
    """The statements a transaction body may run (one open transaction)."""

    dialect: str

    def run(self, statement: ClauseElement, params: Params) -> int:
        """Execute (a list of parameter sets: executemany); the rows it changed."""
        ...

    def rows(self, statement: ClauseElement, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Execute a query; all its rows as tuples."""
        ...


class CoreTx:
    """A :class:`Tx` over SQLAlchemy's synchronous ``Connection`` (used for PostgreSQL)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.dialect = conn.dialect.name

    def run(self, statement: ClauseElement, params: Params) -> int:
        """Execute through SQLAlchemy."""
        if isinstance(params, Sequence) and not params:
            return 0
        return int(self.conn.execute(statement, params).rowcount)  # type: ignore[call-overload]

    def rows(self, statement: ClauseElement, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Query through SQLAlchemy."""
        return [tuple(row) for row in self.conn.execute(statement, params)]  # type: ignore[call-overload]


_SQLITE = SQLiteDialect_pysqlite(paramstyle="named")
_compiled: dict[ClauseElement, tuple[str, dict[str, Any]]] = {}


def _sql(statement: ClauseElement) -> tuple[str, dict[str, Any]]:
    """A Core statement as SQLite text with ``:name`` parameters (compiled once).

    Also returns the values of its literal parameters (e.g. the 0 of ``version > 0``).
    """
    found = _compiled.get(statement)
    if found is None:
        compiled = cast(SQLCompiler, statement.compile(dialect=_SQLITE))
        fixed = {name: b.value for name, b in compiled.binds.items() if not b.required}
        found = _compiled[statement] = (str(compiled), fixed)
    return found


class SqliteTx:
    """A :class:`Tx` over a raw ``sqlite3`` cursor, inside the connection's own thread."""

    dialect = "sqlite"

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self.cursor = cursor

    def run(self, statement: ClauseElement, params: Params) -> int:
        """Execute the compiled statement."""
        sql, fixed = _sql(statement)
        if isinstance(params, Mapping):
            return self.cursor.execute(sql, {**fixed, **params} if fixed else params).rowcount
        if not params:
            return 0
        if fixed:
            params = [{**fixed, **p} for p in params]
        return self.cursor.executemany(sql, params).rowcount

    def rows(self, statement: ClauseElement, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Query with the compiled statement."""
        sql, fixed = _sql(statement)
        return self.cursor.execute(sql, {**fixed, **params}).fetchall()


class BrokenConnection(Exception):
    """A failed transaction could not even be rolled back: drop the connection."""


def _rollback(db: sqlite3.Connection, cause: BaseException) -> None:
    try:
        if db.in_transaction:
            db.execute("ROLLBACK")
    except sqlite3.Error as exc:
        raise BrokenConnection(f"rollback failed: {exc}") from cause


def run_sqlite(
    db: sqlite3.Connection, body: Callable[[Tx], T], write: bool, turn: Turn | None = None
) -> T:
    """Run ``body`` in one transaction on ``db`` (call it in the connection's thread).

    A write takes its `turn` among the file's writers (:mod:`~taskforce.store._turns`)
    and SQLite's write lock up front (``BEGIN IMMEDIATE``), so the body reads and writes
    with no other writer in between; the turn ends with the transaction. Any failure
    rolls back. SQLite's commit
    is atomic, so a failed ``COMMIT`` did not commit and is raised as is ("locked": the
    caller retries; "database or disk is full": nothing was written) -- except an I/O
    error, which can strike after the commit record was written:
    :class:`CommitUncertainError`.
    """
    cursor = db.cursor()
    try:
        if turn is not None:
            turn.take()
        cursor.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            result = body(SqliteTx(cursor))
        except BaseException as exc:
            _rollback(db, exc)
            raise
        try:
            cursor.execute("COMMIT")
        except sqlite3.Error as exc:
            _rollback(db, exc)
            if not str(getattr(exc, "sqlite_errorname", "SQLITE_IOERR")).startswith("SQLITE_IOERR"):
                raise
            raise CommitUncertainError(f"commit failed, outcome unknown: {exc}") from exc
        return result
    finally:
        cursor.close()
        if turn is not None:
            turn.end()
