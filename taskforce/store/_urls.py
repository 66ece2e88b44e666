"""Database URLs as users type them: the async driver added, the password never shown.

Cheap to import (no SQLAlchemy): the CLI's fast paths use it.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from taskforce.errors import ConfigurationError
from taskforce.store._config import sqlite_path

# The async driver for each driverless scheme users type (and libpq tools accept).
_ASYNC_SCHEMES = {
    "postgresql": "postgresql+asyncpg",
    "postgres": "postgresql+asyncpg",
    "sqlite": "sqlite+aiosqlite",
}
# SQLAlchemy's own URL grammar: the password runs from the first ":" of the user part to "@".
_CREDENTIALS = re.compile(r"^(?P<head>[\w+.-]+://[^:/@]*):(?P<password>[^@]*)@")
_MIN_BARE_SECRET = 4  # shorter passwords are masked where they follow "user:", not everywhere


def normalize_url(url: str) -> str:
    """`url` with the async driver a driverless scheme needs.

    ``postgresql://`` and ``postgres://`` become ``postgresql+asyncpg://``; ``sqlite://``
    becomes ``sqlite+aiosqlite://``. Anything else is returned unchanged.
    """
    url = url.strip()
    scheme, sep, rest = url.partition("://")
    target = _ASYNC_SCHEMES.get(scheme.lower()) if sep else None
    return f"{target}://{rest}" if target else url


def password_of(url: str) -> str | None:
    """The password in `url`, or None."""
    match = _CREDENTIALS.match(url.strip())
    return match["password"] if match and match["password"] else None


def display_url(url: str) -> str:
    """`url` for messages: any password replaced by ``***``."""
    url = url.strip()
    return _CREDENTIALS.sub(r"\g<head>:***@", url, count=1) if password_of(url) else url


def mask_password(text: str, url: str | None) -> str:
    """`text` with the password of `url` (as typed or URL-decoded) replaced by ``***``."""
    password = password_of(url) if url else None
    if password is None:
        return text
    for secret in {password, unquote(password)}:
        text = text.replace(f":{secret}@", ":***@")
        if len(secret) >= _MIN_BARE_SECRET:
            text = text.replace(secret, "***")
    return text


def is_memory_url(url: str) -> bool:
    """Whether `url` names an in-memory SQLite database (empty path, ``:memory:``, mode=memory)."""
    path = sqlite_path(normalize_url(url))
    if path is None:
        return False
    query = url.partition("?")[2].lower()
    return path == ":memory:" or path.startswith("file::memory:") or "mode=memory" in query


def require_persistent(url: str) -> str:
    """`url` normalised, refusing an in-memory database (for the CLI and the MCP server).

    A command that exits would lose an in-memory database, and with it every session it
    printed. The library itself still accepts in-memory URLs (tests, scratch use).

    Raises:
        ConfigurationError: `url` is an in-memory SQLite URL.
    """
    if is_memory_url(url):
        raise ConfigurationError(
            f"the database URL {display_url(url)!r} is an in-memory SQLite database: nothing "
            "would be kept once this command ends. Give a file, e.g. "
            "sqlite+aiosqlite:///path/to/taskforce.db, or leave --db and TASKFORCE_DB_URL "
            "unset for the default file"
        )
    return normalize_url(url)
