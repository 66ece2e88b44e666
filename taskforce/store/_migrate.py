"""Alembic, run programmatically on a connection the StateManager holds (no alembic.ini).

The schema version lives in the database (Alembic's ``alembic_version`` table). Callers
hold the write lock (SQLite ``BEGIN IMMEDIATE``; PostgreSQL advisory lock) around these
functions, so concurrent first openers migrate once and the others see the head.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from taskforce.errors import SchemaVersionError
from taskforce.store._config import HEAD_REVISION, SCHEMA_REVISIONS

PG_LOCK_KEY = 7_406_337_180_212
"""``pg_advisory_xact_lock`` key serialising migrations on PostgreSQL."""


def _config(connection: Connection) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", "taskforce.store:migrations")
    config.attributes["connection"] = connection
    return config


def current_revision(connection: Connection) -> str | None:
    """The revision recorded in the database, ``None`` for an empty database.

    Raises:
        SchemaVersionError: several revisions recorded, or taskforce tables without one.
    """
    tables = set(inspect(connection).get_table_names())
    if "alembic_version" not in tables:
        if "tf_sessions" in tables:
            raise SchemaVersionError(
                "the database has taskforce tables but no schema version (alembic_version); "
                "refusing to guess what they contain"
            )
        return None
    rows = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    if len(rows) > 1:
        raise SchemaVersionError(f"the database records several schema versions: {rows}")
    return rows[0] if rows else None


def check_revision(revision: str | None, *, url: str, auto_upgrade: bool) -> bool:
    """Decide what to do with a recorded revision: True when an upgrade is needed.

    Raises:
        SchemaVersionError: the database is newer than this code (unknown revision), or it
            is older and ``auto_upgrade`` is off.
    """
    if revision == HEAD_REVISION:
        return False
    if revision is not None and revision not in SCHEMA_REVISIONS:
        raise SchemaVersionError(
            f"database {url} has schema revision {revision!r}, which this version of "
            f"taskforce does not know (it knows up to {HEAD_REVISION!r}): the database was "
            "written by a newer taskforce. Upgrade taskforce; the database was not touched."
        )
    if not auto_upgrade and revision is not None:
        raise SchemaVersionError(
            f"database {url} has schema revision {revision!r}, older than {HEAD_REVISION!r}; "
            "run `taskforce db upgrade` (or StateManager.upgrade())"
        )
    return True


def upgrade(connection: Connection, revision: str = "head") -> None:
    """Upgrade the schema to ``revision`` inside the connection's transaction."""
    from alembic import command

    command.upgrade(_config(connection), revision)


def downgrade(connection: Connection, revision: str) -> None:
    """Downgrade the schema to ``revision`` (``"base"`` drops every taskforce table)."""
    from alembic import command

    command.downgrade(_config(connection), revision)


def script_revisions() -> list[str]:
    """Revisions found in the shipped migration scripts, oldest first (for tests)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", "taskforce.store:migrations")
    scripts = ScriptDirectory.from_config(config)
    return [script.revision for script in reversed(list(scripts.walk_revisions()))]
