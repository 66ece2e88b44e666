"""The CLI against a real PostgreSQL (scripts/test.sh starts one): a database per test."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from tests.cli.conftest import Invoke, session_of
from tests.pg import pg_url

pytestmark = pytest.mark.postgres


async def _admin(url: str, sql: str) -> None:
    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture
def pg_db() -> Iterator[str]:
    base = pg_url()
    name = f"tf_cli_{uuid.uuid4().hex[:10]}"
    asyncio.run(_admin(base, f'CREATE DATABASE "{name}"'))
    try:
        yield base.rsplit("/", 1)[0] + "/" + name
    finally:
        asyncio.run(_admin(base, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def test_run_resume_list_and_show_on_postgres(
    cli: Invoke, pg_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TASKFORCE_WORKSPACE", str(tmp_path / "ws"))  # not the user's data dir
    assert "revision: none" in cli("db", "current", "--db", pg_db).stdout
    stopped = cli("run", "Work out 2 * 3 + 1; review; publish", "--db", pg_db, "--max-steps", "2")
    assert stopped.exit_code == 5
    sid = session_of(stopped.stdout)
    resumed = cli("run", "--session", sid, "--db", pg_db)
    assert resumed.exit_code == 0 and "1 of 3 steps done, 2 skipped" in resumed.stdout
    assert "step 1, calculator: 2 * 3 + 1 = 7" in resumed.stdout
    row = next(line for line in cli("sessions", "--db", pg_db).stdout.splitlines() if sid in line)
    assert "completed" in row and "3/3" in row
    state = json.loads(cli("plan", "show", sid, "--json", "--db", pg_db).stdout)
    assert [t["description"] for t in state["plan"]["tasks"]] == [
        "Work out 2 * 3 + 1", "Review", "Publish"
    ]  # fmt: skip
    assert "⊘ 3. Publish" in cli("plan", "show", sid, "--db", pg_db).stdout
    assert "up to date" in cli("db", "current", "--db", pg_db).stdout
    missing = cli("plan", "show", "nope", "--db", pg_db)
    assert missing.exit_code == 2 and "no session 'nope'" in missing.stderr


def test_sessions_delete_on_postgres(cli: Invoke, pg_db: str) -> None:
    from tests.cli.test_sessions_delete import age, plant

    plant(pg_db, "keep", "old-1", "old-2")
    age(pg_db, {"old-1": 10, "old-2": 40})
    unknown = cli("sessions", "delete", "keep", "nope", "--yes", "--db", pg_db)
    assert unknown.exit_code == 2 and "no session 'nope'; nothing deleted" in unknown.stderr
    old = cli("sessions", "delete", "--older-than", "1w", "--yes", "--db", pg_db)
    assert old.exit_code == 0, old.output
    assert "deleted 2 sessions" in old.stdout
    listed = json.loads(cli("sessions", "--json", "--db", pg_db).stdout)
    assert [row["session_id"] for row in listed] == ["keep"]
    gone = cli("sessions", "delete", "keep", "--yes", "--db", pg_db)
    assert gone.exit_code == 0 and "deleted 1 session\n" in gone.stdout
    assert json.loads(cli("sessions", "--json", "--db", pg_db).stdout) == []
