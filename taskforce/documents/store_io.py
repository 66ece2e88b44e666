"""Thin async helpers between a session store and the documents.

They read and write through the one session-store protocol
(:class:`~taskforce.store.SessionStore`: a ``StateManager``, a ``MemoryStore``, ...), so
this module imports no SQLAlchemy.

Folder export (e.g. an Obsidian vault)::

    DIR/Dashboard.md
    DIR/<session>.md          plans not completed
    DIR/Done/<session>.md     completed plans

File names are the session id with ``:`` and a leading ``.`` percent-encoded (and a
session named ``Dashboard`` encoded so it cannot clobber the dashboard). A file is only
rewritten when its content changes, and a plan that moves to or from ``Done/`` has its
old copy removed (only when that file's frontmatter ``id`` is the session's).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import secrets
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from taskforce.documents._text import read_frontmatter
from taskforce.documents.dashboard import (
    DashboardSummary,
    SessionLike,
    render_dashboard_md,
    summarize,
)
from taskforce.documents.from_session import (
    DEFAULT_LOG_LIMIT,
    HistoryLike,
    document_from_session,
    state_from_document,
)
from taskforce.documents.plan_json import is_plan_json, read_plan_json
from taskforce.documents.plan_md import PlanDocument, render_plan_md
from taskforce.documents.plan_md_read import parse_plan_md
from taskforce.errors import SessionNotFoundError, StaleStateError, UserError
from taskforce.plan import Plan, lifecycle_events
from taskforce.store import SessionStore

PAGE = 200
DONE_DIR = "Done"
DASHBOARD = "Dashboard.md"


async def all_sessions(store: SessionStore) -> list[Any]:
    """Every session summary, page by page."""
    found: list[Any] = []
    while True:
        page = list(await store.list_sessions(limit=PAGE, offset=len(found)))
        found.extend(page)
        if len(page) < PAGE:
            return found


async def load_plan_document(
    store: SessionStore,
    session_id: str,
    *,
    summary: SessionLike | Any | None = None,
    log_limit: int = DEFAULT_LOG_LIMIT,
) -> PlanDocument:
    """The Plan.md document of a stored session.

    Raises:
        SessionNotFoundError: no such session.
    """
    state = await store.load_state(session_id)
    if state is None:
        raise SessionNotFoundError(f"no session {session_id!r}")
    limit = log_limit if summary is not None and log_limit > 0 else None
    history: Sequence[HistoryLike] = list(await store.get_history(session_id, limit=limit))
    return document_from_session(
        session_id,
        state,
        history,
        created_at=getattr(summary, "created_at", None),
        updated_at=getattr(summary, "updated_at", None),
        log_limit=log_limit,
    )


async def export_plan_md(store: SessionStore, session_id: str) -> str:
    """A stored session's plan as Plan.md text (``taskforce plan export SESSION``)."""
    return render_plan_md(await load_plan_document(store, session_id))


async def dashboard_summary(store: SessionStore, now: datetime) -> DashboardSummary:
    """The dashboard of every stored session as of `now` (``taskforce sessions --summary``)."""
    return summarize(await all_sessions(store), now)


def file_name(session_id: str) -> str:
    """A portable file name for a session's Plan.md (reversible, see module docstring)."""
    name = "".join(
        ch if ch.isascii() and (ch.isalnum() or ch in "_.-") else f"%{ord(ch):02X}"
        for ch in session_id
    )
    if name.startswith("."):
        name = "%2E" + name[1:]
    if name.lower() == "dashboard":
        name = f"%{ord(name[0]):02X}" + name[1:]
    return name + ".md"


@dataclass(frozen=True)
class ExportReport:
    """What a folder export did."""

    written: tuple[Path, ...] = ()
    unchanged: tuple[Path, ...] = ()
    removed: tuple[Path, ...] = ()
    dashboard: Path | None = None
    errors: tuple[str, ...] = field(default=())


def write_if_changed(path: Path, text: str) -> bool:
    """Atomically write UTF-8 `text` (LF line ends) unless the file already holds it.

    A new file gets the usual permissions (0666 less the umask); a replaced one keeps its own.
    """
    data = text.encode("utf-8")
    mode: int | None = None
    try:
        if path.read_bytes() == data:
            return False
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _new_temp_file(path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def _new_temp_file(directory: Path) -> tuple[int, str]:
    """A new file next to the target, created 0666 less the umask (mkstemp would use 0600)."""
    while True:
        name = str(directory / f".tmp-{secrets.token_hex(8)}.md")
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), name
        except FileExistsError:  # pragma: no cover - 64 random bits
            continue


def unique_file_names(session_ids: Iterable[str]) -> dict[str, str]:
    """File names for `session_ids` that stay distinct on case-insensitive file systems.

    Ids whose names differ only in case (``Plan`` and ``plan``) all get a short hash of
    the id before ``.md``, so each keeps the same name from one export to the next.
    """
    ids = list(dict.fromkeys(session_ids))
    groups: dict[str, list[str]] = {}
    for sid in ids:
        groups.setdefault(file_name(sid).lower(), []).append(sid)
    names = {}
    for sid in ids:
        name = file_name(sid)
        if len(groups[name.lower()]) > 1:
            digest = hashlib.sha256(sid.encode("utf-8")).hexdigest()[:8]
            name = f"{name[:-3]}~{digest}.md"
        names[sid] = name
    return names


def _remove_stale(path: Path, session_id: str) -> bool:
    if not path.exists():
        return False
    try:
        front, _ = read_frontmatter(path.read_text(encoding="utf-8").split("\n"))
    except (OSError, UnicodeDecodeError, UserError):
        return False
    if front.get("id") != session_id:
        return False
    path.unlink(missing_ok=True)
    return True


async def export_all(store: SessionStore, directory: str | Path, now: datetime) -> ExportReport:
    """Write every session's Plan.md into `directory` (completed ones under ``Done/``).

    Also writes ``Dashboard.md`` (linking each plan). A session that cannot be read
    (corrupt state) is reported in ``errors`` and skipped; the others are still written.
    """
    root = Path(directory)
    summaries = await all_sessions(store)
    written: list[Path] = []
    unchanged: list[Path] = []
    removed: list[Path] = []
    errors: list[str] = []
    where: dict[str, str] = {}
    names = unique_file_names(s.session_id for s in summaries)
    for summary in summaries:
        sid = summary.session_id
        try:
            doc = await load_plan_document(store, sid, summary=summary)
        except SessionNotFoundError:
            continue  # deleted since the listing
        except Exception as exc:  # one bad session must not stop the export
            errors.append(f"{sid}: {type(exc).__name__}: {exc}")
            continue
        done = doc.status == "completed"
        name = names[sid]
        relative = f"{DONE_DIR}/{name}" if done else name
        target = root / relative
        other = root / (name if done else f"{DONE_DIR}/{name}")
        changed = await asyncio.to_thread(write_if_changed, target, render_plan_md(doc))
        (written if changed else unchanged).append(target)
        if await asyncio.to_thread(_remove_stale, other, sid):
            removed.append(other)
        where[sid] = relative
    dashboard = root / DASHBOARD
    text = render_dashboard_md(summarize(summaries, now), link=where.get)
    changed = await asyncio.to_thread(write_if_changed, dashboard, text)
    (written if changed else unchanged).append(dashboard)
    return ExportReport(tuple(written), tuple(unchanged), tuple(removed), dashboard, tuple(errors))


async def import_plan_md(
    store: SessionStore, text: str, *, session_id: str | None = None, replace: bool = False
) -> str:
    """Create a session from a plan file (``taskforce plan import FILE [--session ID]``).

    The file is a Plan.md, or a JSON plan source (a plan contract payload, or parametric
    goals for the rule planner: see :mod:`taskforce.documents.plan_json`). It is read and
    its plan built by the planner's own rules first, so a bad file changes nothing. The
    session's history records the plan's lifecycle events, as any other door would.
    Returns the session id used.

    Args:
        store: the store.
        text: the file's content.
        session_id: the session to create (default: the document's ``id``; for JSON,
            ``plan-<digest of the text>``).
        replace: overwrite an existing session instead of refusing.

    Raises:
        UserError: a malformed document, a plan that breaks the contract, or an
            existing session without `replace`.
    """
    doc = read_plan_json(text) if is_plan_json(text) else parse_plan_md(text)
    target = session_id or doc.id
    current = await store.load_state(target)
    if current is not None and not replace:
        raise UserError(
            f"session {target!r} already exists; import under another id (--session) or replace it"
        )
    version = int(current.get("version", 0)) if current is not None else 0
    state = state_from_document(doc, log_base_version=version + 1)
    events = lifecycle_events(Plan(), doc.plan)  # the history any other door would record
    try:
        await store.save_state(target, state, expected_version=version, events=events)
    except StaleStateError as exc:
        raise UserError(f"session {target!r} changed during the import; try again") from exc
    return target
