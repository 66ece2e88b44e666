"""The synchronous CLI entry points, end to end on an SQLite file."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from taskforce.cli._store_calls import (
    export_folder,
    export_plan,
    import_plan,
    sessions_summary,
)
from taskforce.errors import SessionNotFoundError, UserError
from taskforce.store import StateManager
from tests.documents.samples import run_session

NOW = datetime(2030, 1, 1, tzinfo=UTC)


def _seed(url: str) -> None:
    async def main() -> None:
        async with StateManager(url) as sm:
            await run_session(sm, "alpha")
            await run_session(sm, "beta", finish=True)

    asyncio.run(main())


def test_export_import_folder_and_summary(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}"
    _seed(url)
    out = tmp_path / "alpha.md"
    text = export_plan(url, "alpha", out)
    assert out.read_text(encoding="utf-8") == text and text.startswith('---\nid: "alpha"\n')

    assert import_plan(url, out, "alpha-2") == "alpha-2"
    assert export_plan(url, "alpha-2").split("\n", 2)[2] == text.split("\n", 2)[2]
    with pytest.raises(UserError, match="already exists"):
        import_plan(url, out)
    with pytest.raises(UserError, match="cannot read"):
        import_plan(url, tmp_path / "missing.md")
    with pytest.raises(SessionNotFoundError):
        export_plan(url, "nope")

    report = export_folder(url, tmp_path / "vault", NOW)
    assert (tmp_path / "vault" / "Done" / "beta.md").is_file()
    assert {p.name for p in report.written} == {"alpha.md", "alpha-2.md", "beta.md", "Dashboard.md"}

    summary = sessions_summary(url, NOW)
    assert (summary.active_plans, summary.paused_plans, summary.completed_today) == (2, 0, 0)
    rows = json.loads(summary.to_json())["plans"]
    assert {r["id"]: r["status"] for r in rows} == {
        "alpha": "running",
        "alpha-2": "running",
        "beta": "completed",
    }
