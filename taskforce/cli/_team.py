"""`taskforce run MISSION --workers N`: a team in one process (a lead, N workers).

The lead plans, the workers do the steps (others may join from anywhere with
`taskforce work SESSION`), and the lead answers. On a terminal the plan is shown live with
owners and leases (the `watch` board) and worker events above it; piped, one line each.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import TYPE_CHECKING

from rich.console import Console
from rich.live import Live

from taskforce.cli._errors import EXIT_INTERRUPTED, database_errors
from taskforce.cli._outcome import report
from taskforce.cli._render import EventPrinter
from taskforce.cli._run import model_label, new_session_id
from taskforce.cli._settings import Settings, make_model, warn_ignored_api_base
from taskforce.cli._watch import Board
from taskforce.errors import SessionNotFoundError, UserError
from taskforce.plan import Plan

if TYPE_CHECKING:
    from taskforce.agent import AgentResult
    from taskforce.agent.worker import WorkerEvent
    from taskforce.models.base import Model
    from taskforce.store import StateManager


def team_command(
    settings: Settings,
    mission: str | None,
    session: str | None,
    workers: int,
    lease: float,
    *,
    plain: bool,
) -> int:
    """Run `mission` with a lead and `workers` workers; print the outcome; the exit code."""
    request = (mission or "").strip()
    url = settings.resolved_db_url()
    if session is not None:  # continue it, or (with a mission) start it under that name
        from taskforce.cli._views import read_state
        from taskforce.store import validate_session_id

        try:
            state = read_state(url, validate_session_id(session))
        except SessionNotFoundError:
            if not request:
                raise
        else:
            from taskforce.agent.session import current_request

            request = request or current_request(state).strip()
    if not request:
        raise UserError('the mission is empty: taskforce run "what to do" --workers N')
    model = make_model(settings)
    warn_ignored_api_base(settings)
    sid = session or new_session_id()
    console = Console(highlight=False)
    live = console.is_terminal and not plain
    if not live:
        console = Console(highlight=False, soft_wrap=True)
    console.print(
        f"taskforce · session {sid} · model {model_label(settings, model)} · "
        f"team: a lead and {workers} worker{'s' * (workers != 1)}",
        markup=False,
    )
    console.print(
        f"(more workers can join from any machine using this database: taskforce work {sid})",
        markup=False,
        style="dim",
    )
    try:
        with database_errors(url):
            result = asyncio.run(
                _team(settings, model, request, sid, workers, lease, console, live)
            )
    except KeyboardInterrupt:
        print(
            f"interrupted: session {sid} is saved; steps in hand were given back; continue "
            f"with `taskforce run --session {sid} --workers {workers}`",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    return report(console, result, live=live)


async def _team(
    settings: Settings,
    model: Model,
    mission: str,
    sid: str,
    workers: int,
    lease: float,
    console: Console,
    live: bool,
) -> AgentResult:
    from taskforce.agent import LeanAgent
    from taskforce.agent.team import Team
    from taskforce.agent.worker import describe, step_agent
    from taskforce.store import StateManager

    def said(event: WorkerEvent) -> None:
        if event.kind != "left":
            console.print(describe(event)[:300], markup=False, style="cyan")

    from taskforce.cli._workspace import run_tools

    printer = None if live else EventPrinter(console, rich_output=False)
    tools = run_tools(settings, sid)  # the demo tools (by default with the offline model)
    async with StateManager(settings.resolved_db_url()) as store:

        def lead(max_steps: int, plan_first: bool) -> LeanAgent:
            return LeanAgent(
                model, state_manager=store, max_steps=max_steps, plan_first=plan_first,
                on_event=printer, tools=tools,
            )  # fmt: skip

        team = Team(
            store, lead, workers, step_agent(model, max_steps=settings.max_steps, tools=tools),
            lease=lease, on_worker_event=said, max_steps=settings.max_steps,
        )  # fmt: skip
        if not live:
            return await team.run(mission, sid)
        board = Board(sid)
        with Live(board, console=console, refresh_per_second=2) as board.view:
            follower = asyncio.create_task(_follow(store, sid, board))
            try:
                return await team.run(mission, sid)
            finally:
                follower.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await follower


async def _follow(store: StateManager, sid: str, board: Board) -> None:
    """Keep the board on the session's latest state (it may not exist yet)."""
    state = await store.load_state(sid)
    known = {sid: state["version"]} if state is not None else {}
    if state is not None:
        board.show(state, Plan.from_state(state.get("plan")))
    feed = store.changes(sid, known=known, poll_interval=0.25)
    try:
        async for _ in feed:
            state = await store.load_state(sid)
            if state is not None:
                board.show(state, Plan.from_state(state.get("plan")))
    finally:
        await feed.aclose()
