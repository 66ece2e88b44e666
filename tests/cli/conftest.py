"""CLI fixtures: a database file per test, an in-process runner and the real executable."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from taskforce.cli.app import app

TASKFORCE = Path(sys.executable).parent / "taskforce"
PROCESS_WAIT = 300.0
"""Seconds a test waits for a `taskforce` process (its output, its exit). Only a bound for a
hung process, never a speed check: on a loaded 2-core machine a CLI start takes 30-60 s."""
SESSION_ID = re.compile(r"session:? (\d{8}-\d{6}-[0-9a-f]{6})")

Invoke = Callable[..., Result]


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'tf.db'}"


@pytest.fixture
def cli(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    """`cli("run", "mission", input=...)` runs the app in-process against `db_url`."""
    monkeypatch.setenv("TASKFORCE_DB_URL", db_url)
    monkeypatch.delenv("TASKFORCE_DEBUG", raising=False)
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
        return runner.invoke(app, list(args), input=input, env=env, catch_exceptions=False)

    return invoke


def run_bin(
    args: Sequence[str],
    db_url: str,
    *,
    extra_env: dict[str, str] | None = None,
    timeout: float = PROCESS_WAIT,
) -> subprocess.CompletedProcess[str]:
    """Run the installed `taskforce` executable with TASKFORCE_DB_URL set."""
    env = {**os.environ, "TASKFORCE_DB_URL": db_url, "COLUMNS": "200", **(extra_env or {})}
    env.pop("TASKFORCE_MODEL", None)
    return subprocess.run(
        [str(TASKFORCE), *args], env=env, capture_output=True, text=True, timeout=timeout
    )


def session_of(output: str) -> str:
    match = SESSION_ID.search(output)
    assert match, output
    return match.group(1)
