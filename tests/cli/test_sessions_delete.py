"""`taskforce sessions delete`: by id or by age, listed first, never without a yes."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from taskforce.cli import _delete
from taskforce.errors import UserError
from taskforce.store import StateManager
from tests.cli.conftest import Invoke

DAY = 86_400


def plant(url: str, *session_ids: str) -> None:
    """Sessions as another program (an MCP client) could leave them: a plan, no status."""
    plan = {"tasks": [{"id": "s1", "description": "Step", "status": "DONE"},
                      {"id": "s2", "description": "Next", "status": "PENDING"}],
            "version": 2, "next_id": 3}  # fmt: skip

    async def go() -> None:
        async with StateManager(url) as store:
            for sid in session_ids:
                await store.save_state(sid, {"mission": f"mission of {sid}", "plan": plan})

    asyncio.run(go())


def age(url: str, days: dict[str, float]) -> None:
    """Make sessions look last saved so many days ago."""

    async def go() -> None:
        async with StateManager(url) as store, store.engine.begin() as conn:
            for sid, n in days.items():
                moment = datetime.now(UTC).timestamp() - n * DAY
                await conn.execute(
                    text("UPDATE tf_sessions SET updated_at = :t WHERE session_id = :sid"),
                    {"t": moment, "sid": sid},
                )

    asyncio.run(go())


def ids(cli: Invoke) -> list[str]:
    return [row["session_id"] for row in json.loads(cli("sessions", "--json").stdout)]


def test_delete_by_id(cli: Invoke, db_url: str) -> None:
    plant(db_url, "a", "b", "c")
    result = cli("sessions", "delete", "a", "c", "--yes")
    assert result.exit_code == 0, result.output
    assert "to delete: 2 sessions" in result.stdout
    assert "  a  running  1/2  mission of a" in result.stdout  # what goes, shown first
    assert result.stdout.rstrip().endswith("deleted 2 sessions")
    assert ids(cli) == ["b"]
    one = cli("sessions", "delete", "b", "b", "--yes")  # a repeated id counts once
    assert one.exit_code == 0 and "deleted 1 session\n" in one.stdout and ids(cli) == []


def test_an_unknown_id_deletes_nothing(cli: Invoke, db_url: str) -> None:
    plant(db_url, "a", "b")
    result = cli("sessions", "delete", "a", "typo", "oops", "b", "--yes")
    assert result.exit_code == 2 and result.stdout == ""
    assert "error: no sessions 'typo', 'oops'; nothing deleted" in result.stderr
    assert sorted(ids(cli)) == ["a", "b"]
    bad = cli("sessions", "delete", "../etc", "--yes")
    assert bad.exit_code == 2 and "invalid session id" in bad.stderr


def test_no_yes_no_delete(cli: Invoke, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    plant(db_url, "a")
    piped = cli("sessions", "delete", "a")  # no terminal to ask on: refuse, say how
    assert piped.exit_code == 2 and "needs a yes: add --yes" in piped.stderr
    dry = cli("sessions", "delete", "a", "--dry-run")
    assert dry.exit_code == 0 and "would delete: 1 session" in dry.stdout
    assert "(dry run: nothing deleted)" in dry.stdout and ids(cli) == ["a"]
    monkeypatch.setattr(_delete, "_interactive", lambda: True)
    declined = cli("sessions", "delete", "a", input="n\n")
    assert declined.exit_code == 0 and "Delete 1 session? [y/N]" in declined.output
    assert "nothing deleted" in declined.stdout and ids(cli) == ["a"]
    eof = cli("sessions", "delete", "a", input="")  # Ctrl-D at the prompt: a no
    assert eof.exit_code == 0 and ids(cli) == ["a"]
    accepted = cli("sessions", "delete", "a", input="y\n")
    assert accepted.exit_code == 0 and "deleted 1 session" in accepted.stdout and ids(cli) == []


def test_delete_older_than(cli: Invoke, db_url: str) -> None:
    plant(db_url, "new", "week", "month")
    age(db_url, {"week": 8, "month": 31})
    dry = cli("sessions", "delete", "--older-than", "30d", "--dry-run")
    assert dry.exit_code == 0 and "would delete: 1 session" in dry.stdout and "month" in dry.stdout
    result = cli("sessions", "delete", "--older-than", "1w", "--yes")
    assert result.exit_code == 0, result.output
    assert "deleted 2 sessions" in result.stdout and ids(cli) == ["new"]
    none = cli("sessions", "delete", "--older-than", "2d12h", "--yes")
    assert none.exit_code == 0
    assert none.stdout.strip() == "no sessions were last updated more than 60h ago"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--older-than", "7 days"], "bad duration '7 days'"),
        (["--older-than", "0d"], "must be more than 0"),
        (["--older-than", "-1d"], "bad duration"),
        (["a", "--older-than", "7d"], "one of the two"),
        ([], "one of the two"),
    ],
)
def test_usage_errors(cli: Invoke, db_url: str, args: list[str], message: str) -> None:
    plant(db_url, "a")
    result = cli("sessions", "delete", *args, "--yes")
    assert result.exit_code == 2 and message in result.stderr and ids(cli) == ["a"]


def test_parse_age() -> None:
    assert _delete.parse_age("7d").total_seconds() == 7 * DAY
    assert _delete.parse_age(" 1d 12h ").total_seconds() == 1.5 * DAY
    assert _delete.parse_age("2W").total_seconds() == 14 * DAY
    assert _delete.parse_age("90s").total_seconds() == 90
    with pytest.raises(UserError):
        _delete.parse_age("1.5d")


def test_a_session_changed_after_the_listing_is_kept(
    cli: Invoke, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    plant(db_url, "busy", "idle")
    monkeypatch.setattr(_delete, "_interactive", lambda: True)

    def answer(*_: object, **__: object) -> bool:
        with ThreadPoolExecutor(1) as other:  # another run saves it while the user reads
            other.submit(plant, db_url, "busy").result()
        return True

    monkeypatch.setattr(_delete.typer, "confirm", answer)
    result = cli("sessions", "delete", "busy", "idle")
    assert result.exit_code == 0, result.output
    assert "kept busy: it changed after it was listed" in result.stderr
    assert "deleted 1 session" in result.stdout and ids(cli) == ["busy"]


def test_listing_still_works_with_the_group(cli: Invoke, db_url: str) -> None:
    plant(db_url, "a")
    assert cli("sessions").exit_code == 0 and "a" in cli("sessions").stdout
    assert cli("sessions", "--limit", "1", "--json").exit_code == 0
    unknown = cli("sessions", "remove", "a")
    assert unknown.exit_code == 2 and ids(cli) == ["a"]
