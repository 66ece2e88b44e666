"""`taskforce chat`: a conversation with the agent in one session, saved as it goes."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rich.console import Console

from taskforce.cli._errors import EXIT_OK, database_errors
from taskforce.cli._render import EventPrinter, approval_line
from taskforce.cli._run import model_label, new_session_id, stored_or_new
from taskforce.cli._safe import markdown, one_line
from taskforce.cli._settings import (
    Settings,
    for_session,
    make_model,
    plan_first_for,
    warn_ignored_api_base,
)
from taskforce.cli._views import pending_of
from taskforce.cli._workspace import demo_tools_on, run_tools, workspace_of
from taskforce.plan.text import plural

if TYPE_CHECKING:
    from taskforce.agent import LeanAgent
    from taskforce.models.base import Model
    from taskforce.store import StateManager

_LEAVE = frozenset({"/exit", "/quit", "exit", "quit"})


async def _open(
    settings: Settings, model: Model, printer: EventPrinter, session_id: str
) -> tuple[StateManager, LeanAgent]:
    from taskforce.agent import LeanAgent
    from taskforce.store import StateManager

    store = StateManager(settings.resolved_db_url())
    agent = LeanAgent(
        model=model, tools=run_tools(settings, session_id), state_manager=store,
        max_steps=settings.max_steps, plan_first=plan_first_for(model), on_event=printer,
    )  # fmt: skip
    return store, agent


def chat_command(settings: Settings, session: str | None) -> int:
    """Read requests until EOF, Ctrl-C or /exit; each one runs the agent in the session."""
    state = stored_or_new(settings.resolved_db_url(), session, starting=True)
    if session is not None and state is not None:
        settings = for_session(settings, state, session)
    model = make_model(settings)  # fail on a bad model before opening anything
    warn_ignored_api_base(settings)
    waiting = pending_of(state) if state is not None else None
    session_id = session or new_session_id()
    console = Console(highlight=False)
    if not console.is_terminal:  # piped: long lines stay whole
        console = Console(highlight=False, soft_wrap=True)
    printer = EventPrinter(console, rich_output=True, spinner=console.is_terminal)
    console.print(
        f"taskforce chat · session {session_id} · model {model_label(settings, model)}\n"
        "Ctrl-D, Ctrl-C or /exit leaves; everything is saved as you go.",
        markup=False,
    )
    if demo_tools_on(settings):
        where = workspace_of(settings, session_id)
        console.print(f"demo tools: calculator, notes, files in {where}", markup=False)
    with database_errors(settings.resolved_db_url()), asyncio.Runner() as runner:
        store, agent = runner.run(_open(settings, model, printer, session_id))
        try:
            if _decide_pending(console, runner, agent, printer, session_id, waiting):
                _converse(console, runner, agent, printer, session_id)
        finally:
            printer.stop()
            runner.run(store.close())
    console.print(
        f"session {session_id} saved · continue: taskforce chat --session {session_id}",
        markup=False,
    )
    return EXIT_OK


def _ask(console: Console, pending: dict[str, Any]) -> tuple[bool, str | None] | None:
    """Ask the human about the waiting call: (approve, note), or None to leave undecided."""
    console.print(approval_line("approval_required", pending), style="yellow", markup=False)
    while True:
        try:
            answer = console.input("approve? y = yes, n = no, n: WHY = no with a note > ")
        except (EOFError, KeyboardInterrupt):
            console.print()
            return None
        word, _, note = answer.strip().partition(":")
        if word.strip().lower() in ("y", "yes"):
            return True, note.strip() or None
        if word.strip().lower() in ("n", "no"):
            return False, note.strip() or None


def _decide_pending(
    console: Console,
    runner: asyncio.Runner,
    agent: LeanAgent,
    printer: EventPrinter,
    session_id: str,
    pending: dict[str, Any] | None,
) -> bool:
    """While the session waits for approval: ask, resume, show. False: leave the chat."""
    while pending is not None:
        decision = _ask(console, pending)
        if decision is None:
            console.print(f"left undecided: session {session_id} stays paused", markup=False)
            return False
        printer.thinking()
        result = runner.run(agent.resume(session_id, *decision))
        printer.stop()
        console.print(markdown(result.final_message))
        pending = result.pending_approval
    return True


def _converse(
    console: Console,
    runner: asyncio.Runner,
    agent: LeanAgent,
    printer: EventPrinter,
    session_id: str,
) -> None:
    while True:
        try:
            line = console.input("you> ").strip()
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        if not line:
            continue
        if line.lower() in _LEAVE:
            return
        printer.thinking()
        try:
            result = runner.run(agent.execute(line, session_id=session_id))
        except KeyboardInterrupt:
            printer.stop()
            console.print("interrupted; the session is saved up to the last step")
            return
        printer.stop()
        console.print(markdown(result.final_message))
        pending = result.pending_approval
        if not _decide_pending(console, runner, agent, printer, session_id, pending):
            return
        if result.error:
            console.print(f"error: {one_line(result.error)}", style="red", markup=False)
        elif result.open_steps and str(getattr(result.status, "value", "")) == "max_steps":
            console.print(
                f"(stopped after {plural(result.steps, 'model call')} with "
                f"{plural(len(result.open_steps), 'step')} open; say “continue” to go on)",
                style="dim",
                markup=False,
            )
