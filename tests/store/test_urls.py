"""Database URLs as users type them: async drivers added, passwords never shown."""

from __future__ import annotations

import pytest

from taskforce.errors import ConfigurationError
from taskforce.store import StateManager
from taskforce.store._urls import (
    display_url,
    is_memory_url,
    mask_password,
    normalize_url,
    require_persistent,
)


@pytest.mark.parametrize(
    ("typed", "used"),
    [
        ("postgresql://tf:pw@db:5432/x", "postgresql+asyncpg://tf:pw@db:5432/x"),
        ("postgres://tf@db/x", "postgresql+asyncpg://tf@db/x"),
        ("POSTGRESQL://db/x", "postgresql+asyncpg://db/x"),
        ("sqlite:///tmp/x.db", "sqlite+aiosqlite:///tmp/x.db"),
        (" sqlite:////abs/x.db ", "sqlite+aiosqlite:////abs/x.db"),
        ("postgresql+asyncpg://db/x", "postgresql+asyncpg://db/x"),
        ("sqlite+aiosqlite:///x.db", "sqlite+aiosqlite:///x.db"),
        ("mysql://db/x", "mysql://db/x"),
    ],
)
def test_driverless_schemes_get_the_async_driver(typed: str, used: str) -> None:
    assert normalize_url(typed) == used


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://tf:S3cr/t:x@db:5432/x",
        "postgresql+psycopg2://tf:SECRET@db/x",
        "postgres://tf:p%40ss%3Aword@db/x",
    ],
)
def test_passwords_are_masked_in_urls_and_in_messages(url: str) -> None:
    password = url.split("://", 1)[1].split("@", 1)[0].split(":", 1)[1]
    assert password not in display_url(url) and ":***@" in display_url(url)
    assert "@db" in display_url(url)
    message = f"cannot connect to {url}: password {password} rejected"
    assert password not in mask_password(message, url)


def test_a_url_without_password_is_shown_as_is() -> None:
    assert display_url("postgresql://tf@db/x") == "postgresql://tf@db/x"
    assert mask_password("anything", "postgresql://tf@db/x") == "anything"


@pytest.mark.parametrize(
    "url",
    [
        "sqlite+aiosqlite://",
        "sqlite+aiosqlite:///",
        "sqlite://",
        "sqlite+aiosqlite:///:memory:",
        "sqlite+aiosqlite:///file::memory:?cache=shared&uri=true",
        "sqlite+aiosqlite:///file:x?mode=memory&uri=true",
    ],
)
def test_in_memory_urls_are_recognised_and_refused_where_data_must_last(url: str) -> None:
    assert is_memory_url(url)
    with pytest.raises(ConfigurationError, match="in-memory SQLite"):
        require_persistent(url)


def test_file_and_server_urls_are_persistent() -> None:
    for url in ("sqlite:///x.db", "postgresql://db/x", "sqlite+aiosqlite:////tmp/m.db"):
        assert not is_memory_url(url)
        assert require_persistent(url) == normalize_url(url)


async def test_the_store_opens_urls_as_users_type_them(tmp_path: object) -> None:
    async with StateManager(f"sqlite:///{tmp_path}/typed.db") as store:
        await store.save_state("s", {"mission": "m"})
        assert store.url.startswith("sqlite+aiosqlite://")
        assert (await store.load_state("s") or {}).get("mission") == "m"


def test_a_driver_error_never_shows_the_password() -> None:
    with pytest.raises(ConfigurationError) as caught:
        StateManager("postgresql+nosuchdriver://tf:SECRET-PW@db/x")
    assert "SECRET-PW" not in str(caught.value) and "***" in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
