"""The tables (SQLAlchemy Core), as of the head Alembic revision.

Migrations in ``migrations/versions`` create these; they never import this module, so an
old migration keeps meaning what it meant. JSON lives in TEXT columns (see ``_codec``).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

# BIGINT ids on PostgreSQL; SQLite needs INTEGER for its rowid autoincrement.
_BIGINT = BigInteger().with_variant(Integer(), "sqlite")
metadata = MetaData()

sessions = Table(
    "tf_sessions",
    metadata,
    Column("session_id", String(128), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("token", String(32), nullable=False),
    Column("title", String(200)),
    Column("status", String(64)),
    Column("steps_done", Integer, nullable=False),
    Column("steps_total", Integer, nullable=False),
    Column("created_at", Double, nullable=False),
    Column("updated_at", Double, nullable=False),
    Column("data", Text, nullable=False),
    Column("plan_meta", Text),
)
Index("ix_tf_sessions_updated", sessions.c.updated_at, sessions.c.session_id)

steps = Table(
    "tf_steps",
    metadata,
    Column(
        "session_id",
        String(128),
        ForeignKey("tf_sessions.session_id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("step_id", String(256), primary_key=True),
    Column("position", Integer, nullable=False),
    Column("status", String(64)),
    Column("body", Text, nullable=False),
)
Index("ix_tf_steps_position", steps.c.session_id, steps.c.position)

messages = Table(
    "tf_messages",
    metadata,
    Column("id", _BIGINT, primary_key=True, autoincrement=True),
    Column(
        "session_id",
        String(128),
        ForeignKey("tf_sessions.session_id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("created_at", Double, nullable=False),
    Column("body", Text, nullable=False),
)
Index("ix_tf_messages_session", messages.c.session_id, messages.c.id)

history = Table(
    "tf_history",
    metadata,
    Column("id", _BIGINT, primary_key=True, autoincrement=True),
    Column(
        "session_id",
        String(128),
        ForeignKey("tf_sessions.session_id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("version", Integer, nullable=False),
    Column("kind", String(64), nullable=False),
    Column("step_id", String(256)),
    Column("created_at", Double, nullable=False),
    Column("body", Text, nullable=False),
)
Index("ix_tf_history_session", history.c.session_id, history.c.id)
