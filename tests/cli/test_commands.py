"""The CLI in-process (typer's CliRunner): run, resume, sessions, plan show, chat, db."""

from __future__ import annotations

import json

import pytest
from rich.console import Console

from tests.cli.conftest import Invoke, session_of

MISSION = (
    "1. Work out the budget: 12 * 30 + 90\n2. Write the report to report.md\n3. Email it to Bob"
)


def test_help_for_everything(cli: Invoke) -> None:
    top = cli("--help")
    assert top.exit_code == 0
    for command in ("run", "chat", "sessions", "plan", "db"):
        assert command in top.stdout
    assert "Exit codes" in top.stdout
    for args in (["run"], ["chat"], ["sessions"], ["plan", "show"], ["db", "upgrade"],
                 ["db", "current"], ["db", "downgrade"]):  # fmt: skip
        result = cli(*args, "--help")
        assert result.exit_code == 0 and "Usage:" in result.stdout, args
    run_help = cli("run", "--help").stdout
    for option in ("--session", "--model", "--api-base", "--db", "--max-steps"):
        assert option in run_help
    assert "TASKFORCE_MODEL" in run_help and "TASKFORCE_DB_URL" in run_help


def test_run_offline_end_to_end_then_list_and_show(cli: Invoke) -> None:
    result = cli("run", MISSION)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "offline model — set --model for an LLM" in out
    assert "→ planner create_plan" in out and "← Step 3 marked SKIPPED." in out
    assert "← 12 * 30 + 90 = 450" in out and "← wrote report.md (" in out
    assert "answer:" in out and "2 of 3 steps done, 1 skipped" in out
    sid = session_of(out)
    assert f"taskforce plan show {sid}" in out
    # piped: the plan is printed when made and once at the end, not after every change
    final = "- [x] 1. Work out the budget: 12 * 30 + 90 — calculator → 12 * 30 + 90 = 450"
    assert out.count("plan:\n") == 2 and out.count(final) == 1

    listing = cli("sessions")
    assert listing.exit_code == 0
    row = next(line for line in listing.stdout.splitlines() if sid in line)
    assert "Work out the budget" in row and "completed" in row and "3/3" in row

    shown = cli("plan", "show", sid)
    assert shown.exit_code == 0
    assert "✔ 1. Work out the budget" in shown.stdout
    assert "2/3 done, 1 skipped" in shown.stdout  # the skipped step is not counted as done
    assert "files in " in shown.stdout and "report.md" in shown.stdout

    raw = cli("plan", "show", sid, "--raw")
    assert raw.stdout.splitlines()[0] == final
    assert len(raw.stdout.splitlines()) == 3

    state = json.loads(cli("plan", "show", sid, "--json").stdout)
    assert state["mission"] == MISSION and state["status"] == "completed"
    assert [t["status"] for t in state["plan"]["tasks"]] == ["DONE", "DONE", "SKIPPED"]


def test_resume_after_max_steps(cli: Invoke) -> None:
    stopped = cli("run", "Fetch the data; clean it; train a model; evaluate it", "--max-steps", "2")
    assert stopped.exit_code == 5
    assert "stopped after 2 model calls" in stopped.stderr
    sid = session_of(stopped.stdout)
    assert f"--session {sid}" in stopped.stderr

    resumed = cli("run", "--session", sid)  # no mission: continue the stored one
    assert resumed.exit_code == 0, resumed.output
    assert "create_plan" not in resumed.stdout  # continued, not restarted
    assert "0 of 4 steps done, 4 skipped" in resumed.stdout  # no tool fits these steps
    assert f"session: {sid}" in resumed.stdout
    state = json.loads(cli("plan", "show", sid, "--json").stdout)
    assert [t["status"] for t in state["plan"]["tasks"]] == ["SKIPPED"] * 4
    assert len(state["plan"]["tasks"]) == 4

    again = cli("run", "--session", sid)
    assert again.exit_code == 0 and "already completed" in again.stdout


def test_run_with_a_new_mission_in_an_existing_session(cli: Invoke) -> None:
    sid = session_of(cli("run", "Write a poem").stdout)
    second = cli("run", "Bake bread, then eat it", "--session", sid)
    assert second.exit_code == 0 and f"session: {sid}" in second.stdout
    raw = cli("plan", "show", sid, "--raw").stdout
    assert "Bake bread" in raw and "Eat it" in raw


def test_sessions_pagination_and_empty(cli: Invoke) -> None:
    empty = cli("sessions")
    assert empty.exit_code == 0 and "No sessions yet" in empty.stdout
    ids = [session_of(cli("run", f"Task number {i}").stdout) for i in range(3)]
    first = cli("sessions", "--limit", "2")
    assert first.exit_code == 0
    assert ids[2] in first.stdout and ids[1] in first.stdout and ids[0] not in first.stdout
    assert "--offset 2" in first.stdout
    rest = cli("sessions", "--limit", "2", "--offset", "2")
    assert ids[0] in rest.stdout and ids[2] not in rest.stdout
    assert "No sessions here" in cli("sessions", "--offset", "10").stdout
    rows = json.loads(cli("sessions", "--json", "--limit", "2").stdout)
    assert [r["session_id"] for r in rows] == [ids[2], ids[1]]
    assert rows[0]["title"] == "Task number 2" and rows[0]["steps_total"] == 1
    assert cli("sessions", "--limit", "0").exit_code == 2


def test_chat_renders_the_checklist_and_saves(cli: Invoke) -> None:
    result = cli("chat", input="Write a poem, then read it aloud\nhello\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "○ 1. Write a poem" in out and "⊘ 2. Read it aloud" in out
    assert "✔ 1. Write a poem — write_file → wrote poem.md" in out
    assert "1 of 2 steps done, 1 skipped" in out and "Hello!" in out
    sid = session_of(out)
    assert "saved" in out and f"taskforce chat --session {sid}" in out
    again = cli("chat", "--session", sid, input="Bake bread\n/exit\n")
    # a new request extends the session's plan (13.8): the finished steps stay first
    assert again.exit_code == 0 and "⊘ 3. Bake bread" in again.stdout
    raw = cli("plan", "show", sid, "--raw").stdout
    assert raw.index("Write a poem") < raw.index("Read it aloud") < raw.index("Bake bread")


def test_db_upgrade_and_current(cli: Invoke) -> None:
    before = cli("db", "current")
    assert before.exit_code == 0 and "revision: none" in before.stdout
    up = cli("db", "upgrade")
    assert up.exit_code == 0 and "(head)" in up.stdout
    after = cli("db", "current")
    assert "up to date" in after.stdout
    refused = cli("db", "downgrade", "0001")
    assert refused.exit_code == 2 and "--yes" in refused.stderr
    assert cli("db", "downgrade", "42", "--yes").exit_code == 2
    down = cli("db", "downgrade", "0001", "--yes")
    assert down.exit_code == 0 and "revision 0001" in down.stdout
    assert "older than" in cli("db", "current").stdout
    assert "(head)" in cli("db", "upgrade").stdout


def test_chat_ctrl_c_at_the_prompt_leaves_cleanly(
    cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = iter(["Plan a picnic; pack food"])

    def fake_input(self: Console, prompt: str = "", **_: object) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None

    monkeypatch.setattr(Console, "input", fake_input)
    result = cli("chat")
    assert result.exit_code == 0, result.output
    sid = session_of(result.stdout)
    assert "saved" in result.stdout and "Traceback" not in result.output
    state = json.loads(cli("plan", "show", sid, "--json").stdout)
    assert state["status"] == "completed" and len(state["plan"]["tasks"]) == 2


def test_chat_stopped_at_max_steps_continues_on_request(cli: Invoke) -> None:
    result = cli("chat", "--max-steps", "2", input="Wash; dry; fold\ncontinue\n")
    assert result.exit_code == 0, result.output
    assert "say “continue” to go on" in result.stdout
    sid = session_of(result.stdout)
    state = json.loads(cli("plan", "show", sid, "--json").stdout)
    assert [t["description"] for t in state["plan"]["tasks"]] == ["Wash", "Dry", "Fold"]
    assert [t["status"] for t in state["plan"]["tasks"]] == ["SKIPPED"] * 3


def test_run_with_a_new_session_name_starts_that_session(cli: Invoke) -> None:
    result = cli("run", "Write a haiku; read it aloud", "--session", "my-haiku")
    assert result.exit_code == 0, result.output
    assert "new session my-haiku" in result.stderr
    assert "session: my-haiku" in result.stdout
    state = json.loads(cli("plan", "show", "my-haiku", "--json").stdout)
    assert state["mission"] == "Write a haiku; read it aloud" and state["status"] == "completed"
    again = cli("run", "Now a limerick", "--session", "my-haiku")  # exists now: continued
    assert again.exit_code == 0 and "new session" not in again.stderr
    invalid = cli("run", "x", "--session", "bad name")
    assert invalid.exit_code == 2 and "invalid session id" in invalid.stderr
    assert "new session" not in invalid.stderr


def test_a_new_request_extends_the_session_and_keeps_its_title(cli: Invoke) -> None:
    """13.8: `run "..." --session S` on a finished session adds to its plan."""
    first = cli("run", "Write a haiku; read it aloud", "--session", "poems")
    assert first.exit_code == 0, first.output
    before = json.loads(cli("plan", "show", "poems", "--json").stdout)["plan"]["tasks"]
    again = cli("run", "Now also publish it", "--session", "poems")
    assert again.exit_code == 0, again.output
    state = json.loads(cli("plan", "show", "poems", "--json").stdout)
    tasks = state["plan"]["tasks"]
    assert tasks[: len(before)] == before  # the finished steps, as they were
    assert [t["description"] for t in tasks[len(before) :]] == ["Now also publish it"]
    assert state["mission"] == "Write a haiku; read it aloud"
    assert state["request"] == "Now also publish it"
    (row,) = json.loads(cli("sessions", "--json").stdout)
    assert row["title"] == "Write a haiku; read it aloud"


def test_chat_answers_what_is_left_from_the_plan(cli: Invoke) -> None:
    """Issue 13: in chat, "What is left?" became a plan step; it is answered from the plan."""
    result = cli("chat", "--session", "ask", input="Wash; dry; fold\nWhat is left?\n/exit\n")
    assert result.exit_code == 0, result.output
    assert "Nothing is left. Finished the plan: 0 of 3 steps done, 3 skipped." in result.stdout
    state = json.loads(cli("plan", "show", "ask", "--json").stdout)
    assert [t["description"] for t in state["plan"]["tasks"]] == ["Wash", "Dry", "Fold"]
    assert state["mission"] == state["request"] == "Wash; dry; fold"


def test_chat_with_a_new_session_name_starts_that_session(cli: Invoke) -> None:
    result = cli("chat", "--session", "talk-1", input="Plan a picnic; pack food\n/exit\n")
    assert result.exit_code == 0, result.output
    assert "new session talk-1" in result.stderr
    assert "talk-1" in cli("sessions").stdout
