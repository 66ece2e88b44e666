"""`taskforce sessions delete`: remove sessions by id or by age, after showing them.

What a careful user expects: the sessions to go are listed first; nothing is deleted
without a yes (a prompt on a terminal, ``--yes`` in a script, and ``--dry-run`` only
lists); an unknown id stops everything before anything is deleted; a session that
changed after it was listed (another run saved it) is kept, and said so.
"""

from __future__ import annotations

import asyncio
import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import typer

from taskforce.cli._errors import database_errors
from taskforce.cli._settings import Settings
from taskforce.documents.dashboard import session_status
from taskforce.errors import SessionNotFoundError, StaleStateError, UserError
from taskforce.plan.text import plural

if TYPE_CHECKING:
    from taskforce.store import StateManager

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
_DURATION = re.compile(r"(?:\d{1,7}[smhdw])+")
_PAGE = 500


def parse_age(text: str) -> timedelta:
    """`7d`, `12h`, `30m`, `2w`, `90s` or a sum such as `1d12h` as a duration.

    Raises:
        UserError: anything else, or a duration of zero.
    """
    compact = "".join(str(text).split()).lower()
    if not _DURATION.fullmatch(compact):
        raise UserError(
            f"bad duration {str(text)[:40]!r} for --older-than: use e.g. 7d, 12h, 30m, 2w "
            "or 1d12h (s, m, h, d, w)"
        )
    seconds = sum(int(n) * _UNITS[u] for n, u in re.findall(r"(\d+)([smhdw])", compact))
    if seconds <= 0:
        raise UserError("--older-than must be more than 0")
    return timedelta(seconds=seconds)


@dataclass(frozen=True, slots=True)
class Doomed:
    """A session about to be deleted: what is shown, and the version that was shown."""

    session_id: str
    version: int
    status: str
    progress: str
    title: str
    updated: datetime | None = None

    def line(self) -> str:
        """One line: id, status, progress, last update (when known) and mission."""
        when = f"{self.updated.astimezone():%Y-%m-%d %H:%M}  " if self.updated else ""
        title = self.title if len(self.title) <= 60 else self.title[:59] + "…"
        return f"  {self.session_id}  {self.status}  {self.progress}  {when}{title}".rstrip()


def delete_command(
    settings: Settings,
    session_ids: list[str],
    older_than: str | None,
    *,
    dry_run: bool,
    yes: bool,
) -> None:
    """List the sessions to delete, confirm, delete them; print what happened."""
    if bool(session_ids) == (older_than is not None):
        raise UserError("give session ids or --older-than DURATION (one of the two)")
    age = parse_age(older_than) if older_than is not None else None
    url = settings.resolved_db_url()
    with database_errors(url):
        asyncio.run(_delete(url, session_ids, age, dry_run=dry_run, yes=yes))


async def _delete(
    url: str, session_ids: list[str], age: timedelta | None, *, dry_run: bool, yes: bool
) -> None:
    from taskforce.store import StateManager

    async with StateManager(url) as store:
        if age is not None:
            doomed = await _idle(store, datetime.now(UTC) - age)
            if not doomed:
                print(f"no sessions were last updated more than {_shown_age(age)} ago")
                return
        else:
            doomed = await _named(store, list(dict.fromkeys(session_ids)))
        print(f"{'would delete' if dry_run else 'to delete'}: {plural(len(doomed), 'session')}")
        print("\n".join(d.line() for d in doomed))
        if dry_run:
            print("(dry run: nothing deleted)")
            return
        if not yes and not _confirmed(len(doomed)):
            print("nothing deleted")
            return
        deleted, kept = 0, []
        for item in doomed:
            try:
                deleted += await store.delete_state(item.session_id, item.version)
            except StaleStateError:
                kept.append(item.session_id)
    for session_id in kept:
        print(f"kept {session_id}: it changed after it was listed", file=sys.stderr)
    print(f"deleted {plural(deleted, 'session')}")


async def _named(store: StateManager, session_ids: list[str]) -> list[Doomed]:
    """The named sessions; an unknown one stops everything, before anything is deleted."""
    found, missing = [], []
    for session_id in session_ids:
        state = await store.load_state(session_id)
        if state is None:
            missing.append(session_id)
        else:
            found.append(_from_state(session_id, state))
    if missing:
        names = ", ".join(repr(m) for m in missing)
        raise SessionNotFoundError(
            f"no {'session' if len(missing) == 1 else 'sessions'} {names}; nothing deleted"
        )
    return found


async def _idle(store: StateManager, before: datetime) -> list[Doomed]:
    """Every session last saved before `before`, newest first."""
    rows: list[Doomed] = []
    while page := await store.list_sessions(_PAGE, len(rows), updated_before=before):
        rows += [
            Doomed(
                r.session_id,
                r.version,
                session_status(r.status, r.steps_done, r.steps_total),
                f"{r.steps_done}/{r.steps_total}",
                _one_line(r.title),
                r.updated_at,
            )
            for r in page
        ]
        if len(page) < _PAGE:
            break
    return rows


def _from_state(session_id: str, state: dict[str, Any]) -> Doomed:
    from taskforce.cli._views import progress

    done, total = progress(state)
    title = state.get("title") or state.get("mission")
    status = state.get("status")
    return Doomed(
        session_id,
        int(state["version"]),
        _one_line(session_status(status, done, total)),
        f"{done}/{total}",
        _one_line(title if isinstance(title, str) else ""),
    )


def _interactive() -> bool:
    return sys.stdin.isatty()


def _confirmed(count: int) -> bool:
    """Ask on a terminal; without one, refuse (a script says --yes)."""
    if not _interactive():
        raise UserError(
            f"deleting {plural(count, 'session')} needs a yes: add --yes "
            "(or --dry-run to only list them)"
        )
    try:
        return typer.confirm(f"Delete {plural(count, 'session')}?", default=False, err=True)
    except typer.Abort:  # Ctrl-C or Ctrl-D at the prompt
        print(file=sys.stderr)
        return False


def _one_line(text: object) -> str:
    return " ".join(str(text or "").split())


def _shown_age(age: timedelta) -> str:
    seconds = int(age.total_seconds())
    for unit in ("w", "d", "h", "m"):
        if seconds % _UNITS[unit] == 0:
            return f"{seconds // _UNITS[unit]}{unit}"
    return f"{seconds}s"
