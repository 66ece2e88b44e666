"""The installed `taskforce` executable, as real processes, against a real SQLite file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import PROCESS_WAIT, TASKFORCE, run_bin, session_of

pytestmark = pytest.mark.skipif(not TASKFORCE.exists(), reason="taskforce is not installed")

# Runs main() like the console script does, then records which heavy modules got imported.
PROBE = """
import json, sys
from taskforce.cli.app import main
sys.argv = ["taskforce", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
heavy = ["litellm", "sqlalchemy", "sqlalchemy.ext.asyncio", "aiosqlite", "alembic"]
with open(__import__("os").environ["PROBE_OUT"], "w") as out:
    json.dump({"code": code, "loaded": [m for m in heavy if m in sys.modules]}, out)
"""


def test_offline_mission_end_to_end_and_resume(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'tf.db'}"
    first = run_bin(["run", "Plan a party; invite friends; buy snacks", "--max-steps", "3"], url)
    assert first.returncode == 5, first.stderr
    assert "Traceback" not in first.stderr
    sid = session_of(first.stdout)
    assert (tmp_path / "tf.db").exists()

    resumed = run_bin(["run", "--session", sid], url)
    assert resumed.returncode == 0, resumed.stderr
    assert "0 of 3 steps done, 3 skipped" in resumed.stdout  # no demo tool fits these

    listing = run_bin(["sessions"], url)
    assert listing.returncode == 0
    row = next(line for line in listing.stdout.splitlines() if sid in line)
    assert "completed" in row and "3/3" in row and "Plan a party" in row

    raw = run_bin(["plan", "show", sid, "--raw"], url)
    first_line = raw.stdout.splitlines()[0]
    assert first_line == (
        "- [x] 1. ~~Plan a party~~ (skipped: no tool fits this step; "
        "the offline model cannot do it itself)"
    )
    state = json.loads(run_bin(["plan", "show", sid, "--json"], url).stdout)
    assert state["status"] == "completed" and len(state["plan"]["tasks"]) == 3
    rendered = run_bin(["plan", "show", sid], url)
    assert "⊘ 3. Buy snacks" in rendered.stdout


def test_errors_as_a_process(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'tf.db'}"
    unknown = run_bin(["plan", "show", "nope"], url)
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert unknown.stderr.strip() == (
        "error: no session 'nope' (list sessions with `taskforce sessions`)"
    )
    no_key = run_bin(["run", "x", "--model", "openai/gpt-4o-mini"], url,
                     extra_env={"OPENAI_API_KEY": ""})  # fmt: skip
    assert no_key.returncode == 2 and "set OPENAI_API_KEY" in no_key.stderr
    assert "Traceback" not in no_key.stderr
    down = run_bin(["sessions", "--db", "postgresql+asyncpg://u:pw@127.0.0.1:1/x"], url)
    assert down.returncode == 4 and down.stderr.startswith("error: ") and "pw" not in down.stderr
    assert len(down.stderr.splitlines()) == 1
    debug = run_bin(["--debug", "plan", "show", "nope"], url)
    assert debug.returncode == 2 and "Traceback" in debug.stderr
    piped = subprocess.run(  # a reader that leaves early is not an error
        f"'{TASKFORCE}' --help | head -1", shell=True, capture_output=True, text=True
    )
    assert piped.stdout.startswith("Usage:") and "Error" not in piped.stderr


@pytest.fixture(scope="module")
def one_session(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('probe') / 'tf.db'}"
    return url, session_of(run_bin(["run", "a; b"], url).stdout)


READ_ONLY = [
    ["--help"],
    ["run", "--help"],
    ["sessions"],
    ["sessions", "--summary"],
    ["sessions", "delete", "--help"],
    ["plan", "show", "SID"],
    ["plan", "show", "SID", "--raw"],
    ["plan", "show", "SID", "--json"],
]


@pytest.mark.parametrize("args", READ_ONLY)
def test_read_only_commands_do_not_import_litellm_or_the_async_engine(
    tmp_path: Path, one_session: tuple[str, str], args: list[str]
) -> None:
    url, sid = one_session
    args = [sid if a == "SID" else a for a in args]
    out = tmp_path / "probe.json"
    env = {"TASKFORCE_DB_URL": url, "PROBE_OUT": str(out), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=PROCESS_WAIT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() and "error" not in done.stderr
    probe = json.loads(out.read_text())
    assert probe["code"] in (0, None)
    assert probe["loaded"] == [], probe
