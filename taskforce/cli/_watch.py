"""`taskforce watch SESSION`: the plan as it changes, with who holds which step until when.

It follows the store's change feed (LISTEN/NOTIFY on PostgreSQL, ``PRAGMA data_version``
polling on SQLite: the feed the MCP server's notifications use), reloading the plan on
each change. On a terminal a live table (leases count down); piped, one line per step
that changed. Ctrl-C leaves (exit 130); ``--until-done`` leaves when the plan is finished
(exit 0) or stuck on a failed step (exit 1).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.table import Table
from rich.text import Text

from taskforce.cli._errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, database_errors
from taskforce.errors import SessionNotFoundError
from taskforce.plan import Plan, Step, StepStatus
from taskforce.plan.state import iso_time
from taskforce.plan.text import clean_text

if TYPE_CHECKING:
    from taskforce.cli._settings import Settings
    from taskforce.store import StateManager

POLL_SECONDS = 0.25
_MARKS = {
    StepStatus.DONE: ("✔", "green"),
    StepStatus.SKIPPED: ("⊘", "dim"),
    StepStatus.IN_PROGRESS: ("▶", "bold yellow"),
    StepStatus.FAILED: ("✗", "red"),
    StepStatus.PENDING: ("○", ""),
}


def lease_text(step: Step, now: datetime) -> str:
    """``12s left`` / ``expired 3s ago`` for a held step; empty otherwise."""
    if step.status is not StepStatus.IN_PROGRESS or step.lease_until is None:
        return ""
    seconds = int((step.lease_until - now).total_seconds())
    return f"{seconds}s left" if seconds >= 0 else f"expired {-seconds}s ago"


def step_line(plan: Plan, step: Step) -> str:
    """One plain line for a step as it is now (``3 IN_PROGRESS by alice until ...: text``)."""
    who = f" by {step.owner}" if step.owner else ""
    until = f" until {iso_time(step.lease_until)}" if step.lease_until else ""
    note = f" — {step.note}" if step.note else ""
    text = f"step {plan.number_of(step)} {step.status.value}{who}{until}: {step.description}"
    return clean_text(text + note)[:300]


def changed_lines(old: Plan | None, new: Plan) -> list[str]:
    """Plain lines for the steps of `new` that differ from `old` (all of them at first)."""
    before = {s.id: s for s in old.steps} if old is not None else {}
    lines = []
    for step in new.steps:
        was = before.get(step.id)
        if was is None or (was.status, was.owner, was.lease_until, was.note, was.description) != (
            step.status,
            step.owner,
            step.lease_until,
            step.note,
            step.description,
        ):
            lines.append(step_line(new, step))
    gone = [s for s in before.values() if s.id not in {n.id for n in new.steps}]
    lines += [clean_text(f"step removed: {s.description}")[:300] for s in gone]
    return lines


class Board:
    """The live view: header, progress and one row per step; leases computed when drawn."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.plan = Plan()
        self.version = 0
        self.mission = ""
        self.view: Live | None = None

    def show(self, state: dict[str, Any], plan: Plan) -> None:
        """Take a newly loaded state and redraw."""
        self.plan, self.version = plan, int(state["version"])
        self.mission = str(state.get("mission") or state.get("title") or "")
        if self.view is not None:
            self.view.refresh()

    def __rich__(self) -> RenderableType:
        now = datetime.now(UTC)
        done, total = self.plan.progress()
        head = Text(f"taskforce watch · session {self.session_id} · v{self.version}", "bold")
        info = Text(f"{clean_text(self.mission)[:120]}  {done}/{total} done", "dim")
        table = Table(expand=True, show_edge=False)
        for name in ("#", "step", "owner", "lease", "note"):
            table.add_column(name, overflow="fold")
        for step in self.plan.steps:
            mark, style = _MARKS[step.status]
            indent = "  " * self.plan.depth(step)
            lease = lease_text(step, now)
            table.add_row(
                Text(str(self.plan.number_of(step)), style="dim"),
                Text(f"{indent}{mark} {clean_text(step.description)}", style=style),
                Text(step.owner or "", style="cyan"),
                Text(lease, style="red" if lease.startswith("expired") else ""),
                Text(clean_text(step.note or "")[:80], style="dim"),
            )
        return Group(head, info, table)


def watch(settings: Settings, session: str, *, until_done: bool, plain: bool) -> int:
    """Follow `session`'s plan until Ctrl-C (or until it is done); the exit code."""
    url = settings.resolved_db_url()
    console = Console(highlight=False)
    live = console.is_terminal and not plain
    try:
        with database_errors(url):
            if live:
                board = Board(session)
                with Live(board, console=console, refresh_per_second=2) as board.view:
                    return asyncio.run(_follow(url, session, until_done, board.show))
            return asyncio.run(_follow(url, session, until_done, _printer()))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


Show = Callable[[dict[str, Any], Plan], None]


def _printer() -> Show:
    last: list[Plan] = []

    def show(state: dict[str, Any], plan: Plan) -> None:
        if not last:
            done, total = plan.progress()
            print(f"session v{state['version']}: {done}/{total} done", flush=True)
        for line in changed_lines(last[0] if last else None, plan):
            print(line, flush=True)
        last[:] = [plan]

    return show


async def _follow(url: str, session: str, until_done: bool, show: Show) -> int:
    from taskforce.store import StateManager

    async with StateManager(url) as store:
        state = await _load(store, session)
        feed = store.changes(session, known={session: state["version"]}, poll_interval=POLL_SECONDS)
        try:
            while True:
                plan = Plan.from_state(state.get("plan"))
                show(state, plan)
                if until_done and plan.steps and plan.status() in ("completed", "failed"):
                    if plan.status() == "failed":
                        print("the plan is stuck on a failed step", file=sys.stderr)
                        return EXIT_FAILED
                    return EXIT_OK
                change = await anext(feed)
                if change.version == 0:
                    print(f"session {session} was deleted", file=sys.stderr)
                    return EXIT_FAILED
                state = await _load(store, session)
        finally:
            await feed.aclose()


async def _load(store: StateManager, session: str) -> dict[str, Any]:
    state = await store.load_state(session)
    if state is None:
        raise SessionNotFoundError(f"no session {session!r}")
    return state
