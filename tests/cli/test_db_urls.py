"""Database URLs at the command line: typed the usual way, never in memory, no password shown."""

from __future__ import annotations

import pytest

from tests.cli.conftest import Invoke, run_bin, session_of
from tests.pg import pg_url

IN_MEMORY = ["sqlite+aiosqlite://", "sqlite+aiosqlite:///", "sqlite://", "sqlite:///:memory:"]
COMMANDS = [
    ["run", "a; b"],
    ["sessions"],
    ["plan", "show", "abc"],
    ["plan", "export", "abc"],
    ["chat"],
    ["db", "current"],
    ["db", "upgrade"],
]


@pytest.mark.parametrize("url", IN_MEMORY)
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: "-".join(a[:2]))
def test_an_in_memory_database_is_refused(cli: Invoke, url: str, args: list[str]) -> None:
    for how in ("flag", "env"):
        result = (
            cli(*args, "--db", url) if how == "flag" else cli(*args, env={"TASKFORCE_DB_URL": url})
        )
        assert result.exit_code == 2, (how, result.output)
        assert "in-memory SQLite database" in result.stderr and "Traceback" not in result.stderr
        assert "continue it" not in result.stdout


def test_the_mcp_server_refuses_an_in_memory_database(tmp_path: object) -> None:
    for url in ("sqlite+aiosqlite://", "sqlite://"):
        result = run_bin(["mcp", "--db", url], url)
        assert result.returncode == 2, result.stderr
        assert "in-memory SQLite database" in result.stderr


def test_sqlite_url_typed_without_the_driver_works(cli: Invoke, tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/typed.db"
    sid = session_of(cli("run", "a; b", "--db", url).stdout)
    assert sid in cli("sessions", "--db", url).stdout
    assert (
        cli("plan", "show", sid, "--db", f"sqlite+aiosqlite:///{tmp_path}/typed.db").exit_code == 0
    )


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg2://tf:SECRET-PW@127.0.0.1:1/x",  # the driver is not installed
        "postgresql://tf:SECRET-PW@127.0.0.1:1/x",  # nothing listens there
        "postgres://tf:SECRET-PW@127.0.0.1:1/x",
        "mysql+nosuch://tf:SECRET-PW@127.0.0.1:1/x",
    ],
)
def test_a_password_is_never_printed(cli: Invoke, url: str) -> None:
    for args in (["sessions"], ["run", "x"], ["plan", "show", "abc"], ["db", "current"]):
        result = cli(*args, "--db", url)
        assert result.exit_code in (2, 4), (args, result.output)
        assert "SECRET-PW" not in result.output, (args, result.output)
        assert "tf:***@127.0.0.1:1" in result.stderr, (args, result.stderr)
    debug = cli("sessions", "--db", url, env={"TASKFORCE_DEBUG": "0"})
    assert "SECRET-PW" not in debug.output


@pytest.mark.postgres
@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
def test_postgresql_url_typed_without_the_driver_works(cli: Invoke, scheme: str) -> None:
    url = pg_url().replace("postgresql+asyncpg", scheme, 1)
    assert url.startswith(f"{scheme}://")
    result = cli("run", "a; b", "--db", url)
    assert result.exit_code == 0, result.output
    sid = session_of(result.stdout)
    assert sid in cli("sessions", "--db", url).stdout
    assert "up to date" in cli("db", "current", "--db", url).stdout
