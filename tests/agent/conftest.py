"""Fixtures for the agent tests."""

from __future__ import annotations

from typing import Any

import pytest

from taskforce.tools.function import FunctionTool
from tests.agent.helpers import Events, make_tools


@pytest.fixture
def tools() -> tuple[list[FunctionTool], dict[str, Any]]:
    return make_tools()


@pytest.fixture
def events() -> Events:
    return Events()
