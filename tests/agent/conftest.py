"""Fixtures for the agent tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from taskforce.tools.function import FunctionTool
from tests.agent.helpers import Events, make_tools
from tests.pg import fresh_database


@pytest.fixture
def tools() -> tuple[list[FunctionTool], dict[str, Any]]:
    return make_tools()


@pytest.fixture
def events() -> Events:
    return Events()


@pytest.fixture(params=["sqlite", "postgresql"])
async def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh database for one test: an SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'agent.db'}"
        return
    async with fresh_database("agent") as url:
        yield url
