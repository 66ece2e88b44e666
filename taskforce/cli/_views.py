"""`taskforce sessions`, `plan show` and `db ...`: reading the store without a model.

SQLite is read through the store's synchronous read-only path (no SQLAlchemy, so these
commands start fast); other databases go through the async `StateManager`.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from taskforce.cli._checklist import checklist_text
from taskforce.cli._errors import EXIT_USAGE, database_errors, fail, shown_url
from taskforce.cli._safe import cell, json_text, one_line, printable
from taskforce.cli._settings import Settings
from taskforce.cli._tables import clip, table_console, text_console
from taskforce.documents.dashboard import session_status
from taskforce.errors import SchemaVersionError, SessionNotFoundError
from taskforce.plan.step import StepStatus

if TYPE_CHECKING:
    from taskforce.store import SessionSummary


def _tasks(state: dict[str, Any]) -> list[dict[str, Any]]:
    plan = state.get("plan")
    tasks = plan.get("tasks") if isinstance(plan, dict) else None
    return [t for t in tasks if isinstance(t, dict)] if isinstance(tasks, list) else []


def checklist(state: dict[str, Any]) -> str:
    """The session's plan as a Markdown checklist (`No active plan.` when it has none)."""
    from taskforce.plan import Plan

    plan = state.get("plan")
    return Plan.from_state(plan if isinstance(plan, dict) else None).render()


def progress_text(state: dict[str, Any]) -> str:
    """``2/3 done, 1 skipped``: a skipped step is finished, never counted as done."""
    finished, total = progress(state)
    skipped = sum(
        str(t.get("status", "")).upper() == StepStatus.SKIPPED.value for t in _tasks(state)
    )
    return f"{finished - skipped}/{total} done" + (f", {skipped} skipped" if skipped else "")


def progress(state: dict[str, Any]) -> tuple[int, int]:
    """(done or skipped, total) plan steps of a session state."""
    tasks = _tasks(state)
    finished = {s.value for s in StepStatus if s.is_finished}
    done = sum(str(t.get("status", "")).upper() in finished for t in tasks)
    return done, len(tasks)


def pending_of(state: dict[str, Any]) -> dict[str, Any] | None:
    """The call a stored session waits on for approval, or None when it is not paused."""
    pending = state.get("pending_approval")
    return pending if state.get("status") == "paused" and isinstance(pending, dict) else None


def waiting_line(session_id: str, pending: dict[str, Any]) -> str:
    """One line: what waits for approval, and the commands that decide it."""
    preview = one_line(pending.get("preview") or pending.get("name") or "?")
    return (
        f"waits for approval: {preview} — approve: taskforce approve {session_id} · "
        f"reject: taskforce reject {session_id} --note WHY"
    )


# ---- reading: the store's fast read-only path (it falls back to StateManager itself) -----


def read_sessions(url: str, limit: int, offset: int) -> list[SessionSummary]:
    """Sessions newest first (empty when the database does not exist yet)."""
    from taskforce.store.readonly import read_sessions as fetch

    with database_errors(url):
        return fetch(url, limit=limit, offset=offset)


def read_state(url: str, session_id: str) -> dict[str, Any]:
    """The session's state; raises `SessionNotFoundError` when there is none."""
    from taskforce.store.readonly import read_state as fetch

    with database_errors(url):
        state = fetch(url, session_id)
    if state is None:
        raise SessionNotFoundError(f"no session {session_id!r}")
    return state


# ---- commands -------------------------------------------------------------------------------


def _summary_json(row: SessionSummary) -> dict[str, Any]:
    return {
        "session_id": row.session_id,
        "title": row.title,
        "status": _status(row),
        "steps_done": row.steps_done,
        "steps_total": row.steps_total,
        "created_at": row.created_at.isoformat(),
        "updated_at": row.updated_at.isoformat(),
        "version": row.version,
    }


_MISSION_WIDTH = 60


def _when(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def sessions_command(settings: Settings, *, limit: int, offset: int, as_json: bool) -> None:
    """Print the sessions table (or a JSON list)."""
    url = settings.resolved_db_url()
    rows = read_sessions(url, limit, offset)
    waiting = {r.session_id: _waiting(url, r.session_id) for r in rows if r.status == "paused"}
    if as_json:
        listed = [_summary_json(r) | _waiting_json(waiting.get(r.session_id)) for r in rows]
        print(json_text(listed))
        return
    console = table_console()
    if not rows:
        where = "here" if offset else "yet"
        console.print(f'No sessions {where}. Start one with: taskforce run "your mission"')
        return
    from rich.table import Table

    table = Table(header_style="bold")
    id_width = max(len(r.session_id) for r in rows)
    # rich crops (rather than shortens) a no-wrap column that does not fit: size it here.
    mission_width = max(12, min(_MISSION_WIDTH, console.width - id_width - 33 - 16))
    table.add_column("session", no_wrap=True, style="cyan", min_width=id_width)
    table.add_column("mission", no_wrap=True, max_width=mission_width)
    table.add_column("status", no_wrap=True, min_width=9, max_width=48, overflow="ellipsis")
    table.add_column("progress", justify="right", no_wrap=True, min_width=8)
    table.add_column("updated", no_wrap=True, min_width=16)
    for row in rows:
        table.add_row(
            cell(row.session_id),
            cell(clip(one_line(row.title or ""), mission_width) or "—"),
            cell(_status_cell(_status(row), waiting.get(row.session_id))),
            f"{row.steps_done}/{row.steps_total}",
            _when(row.updated_at),
        )
    console.print(table)
    if len(rows) == limit:
        console.print(
            f"(showing {offset + 1}-{offset + len(rows)}; more: --offset {offset + limit})"
        )


def _waiting(url: str, session_id: str) -> str | None:
    """What a paused session waits to have approved (its preview), if readable."""
    try:
        state = read_state(url, session_id)
    except SessionNotFoundError:  # deleted between the listing and this read
        return None
    pending = state.get("pending_approval")
    if not isinstance(pending, dict):
        return None
    return one_line(pending.get("preview") or pending.get("name") or "") or None


def _waiting_json(preview: str | None) -> dict[str, Any]:
    return {"waiting_for_approval": preview} if preview else {}


def _status(row: SessionSummary) -> str:
    """The stored status, or (sessions made by a bare planner) the plan's: as the dashboard."""
    return session_status(row.status, row.steps_done, row.steps_total)


def _status_cell(status: str, waiting: str | None) -> str:
    """The status; for a paused session also what waits (cut to fit the column)."""
    return f"{status}: {waiting}" if waiting else status


def plan_show_command(settings: Settings, session_id: str, *, raw: bool, as_json: bool) -> None:
    """Print a session's plan: rendered, raw Markdown, or the state as JSON."""
    if raw and as_json:
        raise fail("choose one of --raw and --json", EXIT_USAGE)
    state = read_state(settings.resolved_db_url(), session_id)
    console = text_console()
    if as_json:
        print(json_text(state))
        return
    markdown = checklist(state)
    if raw:
        print(printable(markdown))
        return
    title = one_line(state.get("title") or state.get("mission") or "")
    done, total = progress(state)
    stored = state.get("status")
    status = session_status(stored, done, total)
    console.print(cell(session_id, "bold"), cell(f"· {status} · {progress_text(state)}"))
    if title:
        console.print(title, markup=False, style="italic")
    pending = state.get("pending_approval")
    if status == "paused" and isinstance(pending, dict):
        console.print(waiting_line(session_id, pending), markup=False, style="yellow")
    console.print(checklist_text(markdown))
    from taskforce.cli._workspace import files_line

    if (files := files_line(settings, session_id)) is not None:
        console.print(files, markup=False, style="dim")


def db_upgrade_command(settings: Settings) -> None:
    """Migrate the database to this version's schema (refusing one newer than the code)."""
    from taskforce.store import HEAD_REVISION, SCHEMA_REVISIONS

    url = settings.resolved_db_url()

    async def _upgrade() -> str | None:
        from taskforce.store import StateManager

        async with StateManager(url, auto_upgrade=False) as store:
            before = await store.current_revision()
            if before is not None and before not in SCHEMA_REVISIONS:
                raise SchemaVersionError(
                    f"database {shown_url(url)} has schema revision {before!r}, written by a "
                    f"newer taskforce (this one knows up to {HEAD_REVISION!r}); not touched"
                )
            await store.upgrade()
            return await store.current_revision()

    import asyncio

    with database_errors(url):
        revision = asyncio.run(_upgrade())
    shown, at = one_line(shown_url(url)), one_line(revision)
    print(f"database {shown} is at schema revision {at} (head)")


def db_downgrade_command(settings: Settings, revision: str, *, confirmed: bool) -> None:
    """Migrate the schema down to `revision` (only with `confirmed`: it can lose data)."""
    from taskforce.store import SCHEMA_REVISIONS

    if revision != "base" and revision not in SCHEMA_REVISIONS:
        raise fail(
            f"unknown revision {revision!r}: use one of {', '.join(SCHEMA_REVISIONS)} or base",
            EXIT_USAGE,
        )
    url = settings.resolved_db_url()
    if not confirmed:
        raise fail(
            f"downgrading {shown_url(url)} to {revision} can drop data; add --yes to do it",
            EXIT_USAGE,
        )

    async def _downgrade() -> None:
        from taskforce.store import StateManager

        async with StateManager(url, auto_upgrade=False) as store:
            await store.downgrade(revision)

    import asyncio

    with database_errors(url):
        asyncio.run(_downgrade())
    print(f"database {one_line(shown_url(url))} is at schema revision {revision}")


def db_current_command(settings: Settings) -> None:
    """Print the database URL, its schema revision and whether it is up to date."""
    from taskforce.store import HEAD_REVISION, SCHEMA_REVISIONS

    url = settings.resolved_db_url()

    async def _current() -> str | None:
        from taskforce.store import StateManager

        async with StateManager(url, auto_upgrade=False) as store:
            return await store.current_revision()

    import asyncio

    with database_errors(url):
        revision = asyncio.run(_current())
    if revision == HEAD_REVISION:
        verdict = "up to date"
    elif revision is None:
        verdict = "empty; `taskforce db upgrade` (or the first run) creates the tables"
    elif revision in SCHEMA_REVISIONS:
        verdict = f"older than {HEAD_REVISION}; run `taskforce db upgrade`"
    else:
        verdict = f"newer than this taskforce (knows up to {HEAD_REVISION}); upgrade taskforce"
    shown = one_line(shown_url(url))
    print(f"database: {shown}\nrevision: {one_line(revision or 'none')} ({verdict})")
