"""The sessions listing: newest first, by page, optionally only those idle since a moment."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Select, literal_column, select

from taskforce.store import _schema as t
from taskforce.store._types import SUMMARY_COLUMNS


def sessions_query(limit: int, offset: int, updated_before: datetime | None = None) -> Select[Any]:
    """The summary rows of sessions, most recently updated first (uses the updated index).

    `updated_before` keeps sessions last saved before that moment (a naive datetime is UTC).
    """
    c = t.sessions.c
    query = select(*(c[name] for name in SUMMARY_COLUMNS)).where(c.version > 0)
    if updated_before is not None:
        query = query.where(c.updated_at < timestamp(updated_before))
    return (
        query.order_by(c.updated_at.desc(), c.session_id.desc())
        .limit(_literal(limit))  # inline: a generic PostgreSQL plan would sort the table
        .offset(_literal(offset))
    )


def timestamp(moment: datetime) -> float:
    """Seconds since the epoch, as `updated_at` is stored (a naive datetime is UTC)."""
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def _literal(value: int) -> Any:
    """An already-validated int rendered inline (LIMIT/OFFSET), never a bound parameter."""
    return literal_column(str(int(value)))
