"""Where the database lives, and the limits the store enforces (no SQLAlchemy here).

This module is imported by the fast read-only path, so it must stay cheap to import.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from taskforce.errors import InvalidSessionIdError, UserError

ENV_VAR = "TASKFORCE_DB_URL"
"""Environment variable that overrides the default database URL."""

TIMEOUT_ENV = "TASKFORCE_DB_TIMEOUT"
"""Environment variable: seconds to wait for a database server to answer (default 10)."""

DEFAULT_DB_TIMEOUT = 10.0

MAX_PAYLOAD_BYTES = 16 * 1024 * 1024
"""Default limit on one saved state, one message or one event, as UTF-8 JSON (16 MiB)."""

SCHEMA_REVISIONS: tuple[str, ...] = ("0001", "0002")
"""Alembic revisions shipped with this code, oldest first; the last one is the head."""

HEAD_REVISION = SCHEMA_REVISIONS[-1]

_SESSION_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


def default_db_path() -> Path:
    """The default SQLite file: ``<platformdirs user data dir>/taskforce/taskforce.db``."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("taskforce", appauthor=False)) / "taskforce.db"


def default_db_url(environ: Mapping[str, str] | None = None) -> str:
    """The database URL used when none is given.

    Args:
        environ: Where to look up ``TASKFORCE_DB_URL`` (defaults to ``os.environ``).

    Returns:
        ``$TASKFORCE_DB_URL`` when set and non-empty, else
        ``sqlite+aiosqlite:///<user data dir>/taskforce/taskforce.db``.
    """
    env = os.environ if environ is None else environ
    url = env.get(ENV_VAR, "").strip()
    return url or f"sqlite+aiosqlite:///{default_db_path()}"


def db_timeout(environ: Mapping[str, str] | None = None) -> float:
    """Seconds to wait for a database server to answer: ``TASKFORCE_DB_TIMEOUT`` or 10.

    Raises:
        UserError: the variable is set but not a positive number of seconds.
    """
    env = os.environ if environ is None else environ
    text = env.get(TIMEOUT_ENV, "").strip()
    if not text:
        return DEFAULT_DB_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise UserError(f"{TIMEOUT_ENV} must be a positive number of seconds, not {text[:40]!r}")
    return value


def validate_session_id(session_id: object) -> str:
    """Return ``session_id`` if it is 1-128 characters of ``[A-Za-z0-9._:-]``.

    Raises:
        InvalidSessionIdError: for anything else (wrong type, empty, too long, odd chars).
    """
    if not isinstance(session_id, str) or not _SESSION_ID.fullmatch(session_id):
        shown = repr(session_id)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        raise InvalidSessionIdError(
            f"invalid session id {shown}: use 1-128 characters from A-Z a-z 0-9 . _ : -"
        )
    return session_id


def sqlite_path(url: str) -> str | None:
    """The file path of an SQLite URL, ``":memory:"`` for in-memory, ``None`` if not SQLite."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.split("+")[0] != "sqlite":
        return None
    path = rest[1:] if rest.startswith("/") else rest
    path = path.split("?", 1)[0]
    return path or ":memory:"


def read_only_query(path: Path) -> str | None:
    """How to open an existing SQLite file that cannot be written, as a URI query; else None.

    On a read-only file system nobody can write the file, so it is opened ``immutable``
    (SQLite then needs no ``-shm`` file, which it could not create there). A file or folder
    merely without write permission is opened ``mode=ro``: another user may still write it.
    """
    if not path.is_file():
        return None
    try:
        read_only_fs = bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs (Windows)
        read_only_fs = False
    if read_only_fs:
        return "mode=ro&immutable=1"
    if not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK):
        return "mode=ro"
    return None


MAX_PAGE = 2**63 - 1
"""Largest ``limit``/``offset`` (SQLite's and PostgreSQL's 64-bit integers)."""


def check_page(limit: int | None, offset: int = 0) -> None:
    """Refuse a ``limit``/``offset`` that is not an integer from 0 to :data:`MAX_PAGE`.

    Raises:
        UserError: naming the value (a larger one would overflow the database's integers).
    """
    for name, value in (("limit", limit), ("offset", offset)):
        if value is not None and (type(value) is not int or not 0 <= value <= MAX_PAGE):
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            raise UserError(f"{name} must be an integer from 0 to {MAX_PAGE}, not {shown}")
