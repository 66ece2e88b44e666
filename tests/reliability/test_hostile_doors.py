"""Generated hostile input at the command line, in missions and in Plan.md files.

Every example runs the real CLI entry point (``taskforce.cli.app.main``, as the console
script does) against a real SQLite file. After each: only documented exit codes, no
traceback, no raw control sequence in the output, nothing unencodable in the database,
and a refused command (usage, file or database error) left the database as it was.
Missions also go through ``LeanAgent`` on SQLite and PostgreSQL. Lone surrogates (a half
emoji) and non-UTF-8 command-line bytes are generated too: since 13.1 they are stored as
U+FFFD, so those tests pass like the others (they were strict xfails before).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.cli.app import main
from taskforce.models.offline import OfflineModel
from taskforce.store import StateManager
from tests.reliability.conftest import Mode
from tests.reliability.hostile import (
    command_lines,
    hostile_text,
    plan_documents,
    surrogate_text,
    undecodable_argv,
)
from tests.reliability.invariants import check_plan
from tests.reliability.ledger import Ledger
from tests.reliability.oracles import DOCUMENTED_EXITS, snapshot, statuses, unencodable
from tests.terminal import raw_controls

REFUSED = {2, 4, 8}
ENDED = {s.value for s in AgentStatus} - {"running"}


def budget(mode: Mode, quick: int, long: int) -> settings:
    """Hypothesis settings: fixed examples in quick mode (CI), fresh ones in long mode."""
    return settings(max_examples=mode.pick(quick, long), deadline=None, database=None,
                    derandomize=not mode.long, suppress_health_check=list(HealthCheck))  # fmt: skip


class Door:
    """Runs `taskforce ARGS` in-process on one database and checks every outcome."""

    def __init__(self, tmp: Path) -> None:
        self.db = tmp / "doors.db"
        self.env = {"TASKFORCE_DB_URL": f"sqlite:///{self.db}", "COLUMNS": "100",
                    "TASKFORCE_MODEL": None, "TASKFORCE_DEBUG": None}  # fmt: skip
        self.exits: Counter[int] = Counter()
        self.runner = CliRunner()

    def __call__(self, argv: list[str], stdin: str | None = None) -> tuple[int, str]:
        before = snapshot(self.db)
        with self.runner.isolation(input=stdin, env=self.env) as (out, err, _):
            try:
                main(argv)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            stdout = out.getvalue().decode("utf-8", "replace")
            stderr = err.getvalue().decode("utf-8", "replace")
        self.exits[code] += 1
        shown = f"{argv!r} -> {code}\n{stdout[-800:]}\n{stderr[-800:]}"
        assert code in DOCUMENTED_EXITS, shown
        assert "Traceback" not in stdout + stderr and "unexpected" not in stderr, shown
        assert raw_controls(stdout) == [] and raw_controls(stderr) == [], shown
        assert unencodable(self.db) == [], shown
        if code in REFUSED and argv[:1] != ["run"]:  # a run may fail after saving its start
            assert snapshot(self.db) == before, f"a refused command changed the data: {shown}"
        assert "running" not in statuses(self.db), shown
        return code, stdout


def _seed(door: Door, tmp: Path) -> list[str]:
    """Sessions and files the generated commands can name."""
    assert door(["run", "Collect the notes; write the summary", "--session", "known"])[0] == 0
    valid = tmp / "valid.md"
    assert door(["plan", "export", "known", "-o", str(valid)])[0] == 0
    (tmp / "garbage.md").write_bytes(b"\xff\xfe not a plan \x00\x1b[2J")
    return [str(valid), str(tmp / "garbage.md"), str(tmp / "out.md"), str(tmp), ""]


def test_generated_command_lines(mode: Mode, ledger: Ledger, tmp_path: Path) -> None:
    _command_lines(mode, ledger, tmp_path, "hostile command lines (CLI)", None)


def test_generated_command_lines_with_undecodable_bytes(
    mode: Mode, ledger: Ledger, tmp_path: Path
) -> None:
    _command_lines(mode, ledger, tmp_path, "non-UTF-8 command lines (CLI)", undecodable_argv)


def _command_lines(
    mode: Mode, ledger: Ledger, tmp: Path, label: str, texts: st.SearchStrategy[str] | None
) -> None:
    door = Door(tmp)
    paths = _seed(door, tmp)
    lines = command_lines(paths) if texts is None else command_lines(paths, texts)

    @budget(mode, 40, 600)
    @given(lines)
    def check(argv: list[str]) -> None:
        door(argv, stdin="/exit\n")

    try:
        check()
    finally:
        ledger.record(label, **{"command lines run": sum(door.exits.values())},
                      **{f"exit {code}": n for code, n in sorted(door.exits.items())})  # fmt: skip


def test_generated_plan_md_imports(mode: Mode, ledger: Ledger, tmp_path: Path) -> None:
    door = Door(tmp_path)
    valid = Path(_seed(door, tmp_path)[0]).read_text(encoding="utf-8")
    imported = Counter[str]()

    @budget(mode, 25, 400)
    @given(plan_documents(valid))
    def check(text: str) -> None:
        path = tmp_path / "gen.md"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        code, _ = door(["plan", "import", str(path), "--session", "gen", "--replace"])
        imported["accepted" if code == 0 else f"refused (exit {code})"] += 1
        if code == 0:
            state = _load(door.db, "gen")
            check_plan(state["plan"])  # imported through the planner's own rules
            shown, _ = door(["plan", "show", "gen"])
            assert shown == 0

    check()
    ledger.record("hostile Plan.md imports (CLI)", **{"files": sum(imported.values())},
                  **dict(imported), **{"exceptions escaped": 0})  # fmt: skip


def _load(db: Path, sid: str) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        async with StateManager(f"sqlite:///{db}") as store:
            state = await store.load_state(sid)
            assert state is not None
            return state

    return asyncio.run(go())


async def test_generated_missions_through_the_agent(
    mode: Mode, ledger: Ledger, db_url: str
) -> None:
    await _missions(mode, ledger, db_url, hostile_text, "hostile missions")


async def test_generated_missions_with_lone_surrogates(
    mode: Mode, ledger: Ledger, db_url: str
) -> None:
    await _missions(mode, ledger, db_url, surrogate_text, "missions with lone surrogates")


async def _missions(
    mode: Mode, ledger: Ledger, db_url: str, texts: st.SearchStrategy[str], label: str
) -> None:
    missions = [m for m in _examples(texts, mode, 15, 300) if m.strip()]
    ended: Counter[str] = Counter()
    async with StateManager(db_url) as store:
        agent = LeanAgent(model=OfflineModel(), state_manager=store, max_steps=4)
        for number, mission in enumerate(missions):
            result = await agent.execute(mission, f"m{number}")
            ended[result.status.value] += 1
            stored = await store.load_state(f"m{number}")
            assert stored is not None and stored["status"] in ENDED, stored
            check_plan(stored["plan"]) if stored.get("plan") else None
            for text in (result.final_message, result.plan_markdown, str(stored)):
                text.encode("utf-8")  # nothing unencodable comes back out
    backend = "postgresql" if db_url.startswith("postgresql") else "sqlite"
    ledger.record(f"{label} (LeanAgent, {backend})", missions=len(missions),
                  **{f"ended {k}": v for k, v in sorted(ended.items())},
                  **{"exceptions escaped": 0})  # fmt: skip


def _examples(strategy: st.SearchStrategy[str], mode: Mode, quick: int, long: int) -> list[str]:
    found: list[str] = []

    @budget(mode, quick, long)
    @given(strategy)
    def collect(value: str) -> None:
        found.append(value)

    collect()
    return found
