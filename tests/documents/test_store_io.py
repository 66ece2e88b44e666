"""Export, import and folder export against a real SQLite store (StateManager)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest

from taskforce.documents import (
    dashboard_summary,
    export_all,
    export_plan_md,
    file_name,
    import_plan_md,
    load_plan_document,
    parse_plan_md,
    render_plan_md,
    unique_file_names,
)
from taskforce.errors import SessionNotFoundError, UserError
from taskforce.plan import Plan, StepStatus
from taskforce.store import StateManager
from tests.documents.samples import run_session
from tests.store.conftest import PgSchema

NOW = datetime(2026, 2, 3, 18, 0, tzinfo=UTC)
T = datetime(2026, 2, 3, 9, 0, tzinfo=UTC)


STORES = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@asynccontextmanager
async def open_store(kind: str, path: Path) -> AsyncIterator[StateManager]:
    """A fresh store: an SQLite file, or a throwaway PostgreSQL schema."""
    if kind == "sqlite":
        async with StateManager(f"sqlite+aiosqlite:///{path}") as manager:
            yield manager
        return
    pg = await PgSchema().create()
    try:
        async with StateManager(engine=pg.engine()) as manager:
            yield manager
    finally:
        await pg.drop()


@pytest.fixture(params=STORES)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StateManager]:
    async with open_store(request.param, tmp_path / "a.db") as manager:
        yield manager


@pytest.fixture
async def other_store(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[StateManager]:
    kind = request.node.callspec.params.get("store", "sqlite")
    async with open_store(kind, tmp_path / "b.db") as manager:
        yield manager


async def test_export_reads_plan_history_and_times(store: StateManager) -> None:
    await run_session(store, "alpha")
    text = await export_plan_md(store, "alpha")
    doc = parse_plan_md(text)
    assert doc.id == "alpha" and doc.objective == "Research for alpha" and doc.status == "running"
    assert [s.status.value for s in doc.plan.steps] == ["DONE", "IN_PROGRESS", "PENDING"]
    assert doc.plan.steps[1].depends_on == ("s1",)
    assert doc.plan.steps[0].completed_at == T and doc.plan.steps[0].note == "found 3"
    actions = [(r.step, r.action, r.result) for r in doc.log]
    assert actions[0] == ("-", "Plan created", "3 steps")  # the lifecycle vocabulary
    assert ("1", "Research sources", "✅ done: found 3") in actions
    assert ("2", "Write the summary", "⏳ in_progress") in actions
    assert doc.created_at is not None
    assert text == await export_plan_md(store, "alpha")


async def test_export_missing_session(store: StateManager) -> None:
    with pytest.raises(SessionNotFoundError):
        await export_plan_md(store, "nope")


async def test_export_import_round_trip(store: StateManager, other_store: StateManager) -> None:
    await run_session(store, "alpha")
    original = await export_plan_md(store, "alpha")
    # into another database under the same id: byte-identical re-export
    assert await import_plan_md(other_store, original) == "alpha"
    assert await export_plan_md(other_store, "alpha") == original
    # into the same database under a new id: same plan, statuses, dependencies and log
    assert await import_plan_md(store, original, session_id="alpha-copy") == "alpha-copy"
    copy = parse_plan_md(await export_plan_md(store, "alpha-copy"))
    first = parse_plan_md(original)
    assert copy.plan == first.plan and copy.log == first.log
    assert copy.objective == first.objective and copy.status == first.status
    loaded = await store.load_state("alpha-copy")
    assert loaded is not None and Plan.from_state(loaded["plan"]) == first.plan


async def test_import_the_golden_plan(store: StateManager) -> None:
    golden = (Path(__file__).parent / "golden" / "plan.md").read_text(encoding="utf-8")
    sid = await import_plan_md(store, golden)
    assert sid == "plan_20260203_091500"
    assert await export_plan_md(store, sid) == golden
    state = await store.load_state(sid)
    assert state is not None and state["mission"] == "Send weekly newsletter to all subscribers"
    plan = Plan.from_state(state["plan"])
    assert plan.steps[3].requires_approval and plan.steps[3].depends_on == ("s2", "s3")


async def test_import_refuses_existing_sessions_unless_replacing(store: StateManager) -> None:
    await run_session(store, "alpha")
    text = await export_plan_md(store, "alpha")
    edited = text.replace("- **Status**: ⏸️ pending", "- **Status**: ⏭️ skipped")
    with pytest.raises(UserError, match="already exists"):
        await import_plan_md(store, edited)
    before = await store.load_state("alpha")
    assert (
        before is not None and Plan.from_state(before["plan"]).steps[2].status is StepStatus.PENDING
    )
    await import_plan_md(store, edited, replace=True)
    after = await export_plan_md(store, "alpha")
    assert parse_plan_md(after).plan.steps[2].status is StepStatus.SKIPPED
    assert parse_plan_md(after).log == parse_plan_md(edited).log  # no duplicated rows


async def test_bad_files_change_nothing(store: StateManager) -> None:
    bad = (
        '---\nid: "x"\nobjective: "o"\nstatus: "r"\n---\n## Steps\n'
        "### Step 1: a\n- **Dependencies**: Step 2\n### Step 2: b\n"
    )
    with pytest.raises(UserError, match="forward_dependency"):
        await import_plan_md(store, bad)
    assert await store.load_state("x") is None
    assert await store.list_sessions() == []


async def test_folder_export_with_done_and_dashboard(store: StateManager, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    await run_session(store, "alpha")
    await run_session(store, "beta", finish=True)
    await run_session(store, "ns:gamma")
    report = await export_all(store, vault, NOW)
    assert (vault / "alpha.md").is_file() and (vault / "Done" / "beta.md").is_file()
    assert (vault / "ns%3Agamma.md").is_file() and not (vault / "beta.md").exists()
    assert report.dashboard == vault / "Dashboard.md" and report.errors == ()
    assert len(report.written) == 4
    dashboard = (vault / "Dashboard.md").read_text(encoding="utf-8")
    assert "[beta](Done/beta.md)" in dashboard and "[ns:gamma](ns%253Agamma.md)" in dashboard
    assert (vault / "alpha.md").read_text(encoding="utf-8") == await export_plan_md(store, "alpha")

    again = await export_all(store, vault, NOW)
    assert again.written == () and len(again.unchanged) == 4

    (vault / "notes.md").write_text("my own notes", encoding="utf-8")
    (vault / "Done" / "alpha.md").write_text('---\nid: "someone-else"\n---\n', encoding="utf-8")
    state = await store.load_state("alpha")
    assert state is not None
    plan = Plan.from_state(state["plan"])
    plan = plan.with_status([2, 3], StepStatus.DONE, now=T)
    await store.save_state("alpha", {**state, "status": "completed", "plan": plan.to_state()})
    moved = await export_all(store, vault, NOW)
    assert vault / "Done" / "alpha.md" in moved.written
    assert (vault / "alpha.md").exists() is False and vault / "alpha.md" in moved.removed
    assert (vault / "notes.md").read_text(encoding="utf-8") == "my own notes"


async def test_folder_export_keeps_foreign_files(store: StateManager, tmp_path: Path) -> None:
    await run_session(store, "alpha", finish=True)
    (tmp_path / "alpha.md").write_text("---\nid: not-alpha\n---\n", encoding="utf-8")
    report = await export_all(store, tmp_path, NOW)
    assert report.removed == () and (tmp_path / "alpha.md").exists()


async def test_dashboard_from_the_store(store: StateManager) -> None:
    await run_session(store, "alpha")
    await run_session(store, "beta", finish=True)
    summary = await dashboard_summary(store, datetime.now(UTC))
    assert (summary.active_plans, summary.paused_plans, summary.completed_today) == (1, 0, 1)
    assert {r.id: (r.status, r.steps_done, r.steps_total) for r in summary.plans} == {
        "alpha": ("running", 1, 3),
        "beta": ("completed", 3, 3),
    }


async def test_completed_session_gets_a_completion_time(store: StateManager) -> None:
    await run_session(store, "beta", finish=True)
    (summary,) = await store.list_sessions()
    doc = await load_plan_document(store, "beta", summary=summary)
    assert doc.completed_at == summary.updated_at.replace(microsecond=0)
    assert doc.created_at == summary.created_at.replace(microsecond=0)
    assert ".000" not in render_plan_md(doc).split("---")[1]


def test_file_names_are_portable_and_distinct() -> None:
    names = {
        sid: file_name(sid)
        for sid in ["a", "A.b-c_d", "ns:x", ".hidden", "..", "Dashboard", "dashboard", "Done"]
    }
    assert names["ns:x"] == "ns%3Ax.md" and names[".."] == "%2E..md"
    assert names["Dashboard"] == "%44ashboard.md" and names["dashboard"] == "%64ashboard.md"
    assert len(set(names.values())) == len(names)
    assert all("/" not in n and ":" not in n and not n.startswith(".") for n in names.values())


def test_case_insensitive_collisions_get_stable_distinct_names() -> None:
    names = unique_file_names(["Plan", "plan", "other"])
    assert names["other"] == "other.md"
    assert names["Plan"] != names["plan"]
    assert names["Plan"].lower() != names["plan"].lower()
    assert unique_file_names(["plan", "Plan"]) == {"plan": names["plan"], "Plan": names["Plan"]}


def _plan_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.glob("*.md") if p.name != "Dashboard.md")


async def test_folder_export_of_case_variants(store: StateManager, tmp_path: Path) -> None:
    await run_session(store, "Plan")
    await run_session(store, "plan")
    report = await export_all(store, tmp_path, NOW)
    files = _plan_files(tmp_path)
    assert len(files) == 2 and len({f.lower() for f in files}) == 2
    assert len(report.written) == 3
