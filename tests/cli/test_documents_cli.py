"""`plan export`, `plan import`, `sessions --summary`: documents and the dashboard from the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Invoke, session_of


def run_offline(cli: Invoke, mission: str) -> str:
    result = cli("run", mission, "--plain")
    assert result.exit_code == 0, result.output
    return session_of(result.output)


def test_export_import_roundtrip_and_folder_export(cli: Invoke, tmp_path: Path) -> None:
    session = run_offline(cli, "1. Collect the notes 2. Write the summary")
    exported = cli("plan", "export", session)
    assert exported.exit_code == 0, exported.output
    text = exported.output
    assert text.startswith("---\n") and "## Steps" in text and "Collect the notes" in text

    target = tmp_path / "Plan.md"
    assert cli("plan", "export", session, "-o", str(target)).exit_code == 0
    assert target.read_text(encoding="utf-8") == text

    imported = cli("plan", "import", str(target), "--session", "copy-1")
    assert imported.exit_code == 0, imported.output
    assert imported.output.strip() == "copy-1"
    original = json.loads(cli("plan", "show", session, "--json").output)
    copy = json.loads(cli("plan", "show", "copy-1", "--json").output)
    assert copy["plan"]["tasks"] == original["plan"]["tasks"]

    again = cli("plan", "import", str(target), "--session", "copy-1")
    assert again.exit_code == 2 and "copy-1" in again.output

    vault = tmp_path / "vault"
    folder = cli("plan", "export", "--all", str(vault))
    assert folder.exit_code == 0, folder.output
    done = sorted(p.name for p in (vault / "Done").glob("*.md"))
    assert len(done) == 2  # both sessions finished


def test_export_needs_exactly_one_target(cli: Invoke, tmp_path: Path) -> None:
    neither = cli("plan", "export")
    assert neither.exit_code == 2 and "SESSION or --all" in neither.output
    unknown = cli("plan", "export", "no-such-session")
    assert unknown.exit_code == 2 and "no-such-session" in unknown.output


def test_sessions_summary_table_and_json(cli: Invoke) -> None:
    session = run_offline(cli, "Check the logs and then restart the service")
    table = cli("sessions", "--summary")
    assert table.exit_code == 0, table.output
    assert "completed today 1" in table.output and session in table.output
    data = json.loads(cli("sessions", "--summary", "--json").output)
    assert data["completed_today"] == 1 and data["total_plans"] == 1
    assert data["plans"][0]["id"] == session
    assert data["plans"][0]["steps_done"] == data["plans"][0]["steps_total"] >= 2
