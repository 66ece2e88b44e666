"""Reliability suite: generated tool calls, SIGKILL during writes, concurrent writers.

Quick mode (the default, part of the normal test run) keeps the whole suite to well
under a minute on 2 cores. Long mode: ``pytest tests/reliability --long`` or
``TASKFORCE_RELIABILITY_LONG=1`` (``bash scripts/reliability.sh --long`` sets it).
``--reliability-report PATH`` (or ``TASKFORCE_RELIABILITY_REPORT``) writes the figures
and outcomes of the run as Markdown (``scripts/reliability.sh`` uses it for
docs/qa/reliability.md).

PostgreSQL cases use ``TASKFORCE_TEST_PG_URL`` (each test gets a fresh database); when
``TASKFORCE_REQUIRE_PG=1`` and the URL is missing they FAIL instead of skipping.
No test here asserts anything about time.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.pg import admin_execute, fresh_database, pg_url
from tests.reliability.ledger import LEDGER, Ledger

LONG_ENV = "TASKFORCE_RELIABILITY_LONG"
REPORT_ENV = "TASKFORCE_RELIABILITY_REPORT"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("taskforce reliability")
    group.addoption("--long", action="store_true", help="run the long reliability mode")
    group.addoption("--reliability-report", default=None, help="write a Markdown report here")


@dataclass(frozen=True)
class Mode:
    """How hard the suite pushes: quick (CI) or long."""

    long: bool

    def pick(self, quick: int, long: int) -> int:
        return long if self.long else quick

    @property
    def name(self) -> str:
        return "long" if self.long else "quick"


def _option(config: pytest.Config, name: str) -> Any:
    try:
        return config.getoption(name)
    except ValueError:  # this conftest was not an initial one: the option is not registered
        return None


@pytest.fixture(scope="session")
def mode(request: pytest.FixtureRequest) -> Mode:
    return Mode(bool(_option(request.config, "--long")) or os.environ.get(LONG_ENV) == "1")


@pytest.fixture(scope="session")
def ledger(mode: Mode) -> Ledger:
    LEDGER.mode = mode.name
    return LEDGER


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if "tests/reliability" in report.nodeid:
        outcome = "xfailed" if getattr(report, "wasxfail", None) is not None else report.outcome
        LEDGER.outcome(report.nodeid, report.when, outcome, report.duration)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = _option(session.config, "--reliability-report") or os.environ.get(REPORT_ENV)
    if path and LEDGER.outcomes:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(LEDGER.render())


@pytest.fixture(params=["sqlite", "postgresql"])
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh database: an SQLite file, or a new database on the test PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'reliability.db'}"
        return
    if LEDGER.pg_version is None:
        LEDGER.pg_version = await admin_execute(pg_url(), "SELECT 1")
    async with fresh_database("rel") as url:
        yield url
