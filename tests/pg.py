"""The PostgreSQL server the suite uses (started by scripts/test.sh on 127.0.0.1)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest


def pg_url() -> str:
    """`TASKFORCE_TEST_PG_URL`; without it the test FAILS when `TASKFORCE_REQUIRE_PG=1`
    (as scripts/test.sh and CI set it), and is skipped otherwise.
    """
    url = os.environ.get("TASKFORCE_TEST_PG_URL", "")
    if not url:
        if os.environ.get("TASKFORCE_REQUIRE_PG") == "1":
            pytest.fail("TASKFORCE_REQUIRE_PG=1 but TASKFORCE_TEST_PG_URL is not set")
        pytest.skip("TASKFORCE_TEST_PG_URL not set (scripts/test.sh starts PostgreSQL)")
    return url


async def admin_execute(url: str, sql: str) -> str | None:
    """Run one SQL statement on the PostgreSQL server at `url`; the server's version."""
    import asyncpg

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await conn.execute(sql)
        return str(await conn.fetchval("SHOW server_version"))
    finally:
        await conn.close()


@asynccontextmanager
async def fresh_database(prefix: str = "t") -> AsyncIterator[str]:
    """The URL of a new, empty database on the test server (dropped afterwards)."""
    admin = pg_url()
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    await admin_execute(admin, f'CREATE DATABASE "{name}"')
    try:
        yield f"{admin.rsplit('/', 1)[0]}/{name}"
    finally:
        await admin_execute(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
