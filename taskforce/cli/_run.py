"""`taskforce run`: one mission through LeanAgent, rendered live, persisted to the store."""

from __future__ import annotations

import asyncio
import secrets
import sys
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rich.console import Console

from taskforce.cli._errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_PAUSED, database_errors
from taskforce.cli._outcome import report
from taskforce.cli._render import EventPrinter, LiveView
from taskforce.cli._safe import one_line, printable
from taskforce.cli._settings import (
    Settings,
    for_session,
    make_model,
    plan_first_for,
    warn_ignored_api_base,
)
from taskforce.cli._views import pending_of, waiting_line
from taskforce.cli._workspace import demo_tools_on, files_line, run_tools, workspace_of
from taskforce.errors import SessionNotFoundError, UserError
from taskforce.models.offline import OFFLINE_LABEL

if TYPE_CHECKING:
    from taskforce.agent import AgentResult
    from taskforce.agent.events import EventCallback
    from taskforce.models.base import Model

CONTINUE_MISSION = "Continue with the plan."
"""The request sent when `run --session` is given without a mission."""


@dataclass(frozen=True)
class Decision:
    """A human's answer to a paused session: approve or reject, with an optional note."""

    approve: bool
    note: str | None = None


def new_session_id() -> str:
    """A fresh, sortable, readable session id such as `20261123-101500-a1b2c3`."""
    return f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def model_label(settings: Settings, model: Model) -> str:
    """How the model is named in the output; the offline model says what it is."""
    return f"offline ({OFFLINE_LABEL})" if settings.offline else one_line(model.name)


async def execute(
    settings: Settings,
    model: Model,
    request: str,
    session_id: str,
    *,
    resume: bool,
    on_event: EventCallback,
    decision: Decision | None = None,
) -> AgentResult:
    """Run `request` in `session_id` against the configured store.

    With a `decision` the paused session is resumed instead (`request` is unused).
    The session is saved from the first moment: a run that fails (even at its first
    model call) leaves it with status `failed`, to retry with `run --session`.
    """
    from taskforce.agent import LeanAgent
    from taskforce.store import StateManager

    async with StateManager(settings.resolved_db_url()) as store:
        if resume and await store.load_state(session_id) is None:
            raise SessionNotFoundError(f"no session {session_id!r}")
        agent = LeanAgent(
            model=model, tools=run_tools(settings, session_id), state_manager=store,
            max_steps=settings.max_steps, plan_first=plan_first_for(model), on_event=on_event,
        )  # fmt: skip
        if decision is not None:
            return await agent.resume(session_id, decision.approve, decision.note)
        return await agent.execute(request, session_id=session_id)


def run_command(
    settings: Settings, mission: str | None, session: str | None, *, plain: bool
) -> int:
    """Run one mission and print its outcome; returns the exit code."""
    request = (mission or "").strip()
    if not request and session is None:
        raise UserError('the mission is empty: taskforce run "what to do" (or --session ID)')
    url = settings.resolved_db_url()
    state = stored_or_new(url, session, starting=bool(request))
    if session is not None and state is not None:
        settings = for_session(settings, state, session)
    model = make_model(settings)
    warn_ignored_api_base(settings)
    if session is not None and state is not None:
        if (waiting := pending_of(state)) is not None:
            print(f"session {session} {waiting_line(session, waiting)}", file=sys.stderr)
            return EXIT_PAUSED
        if not request:
            from taskforce.agent.session import current_request

            request = current_request(state).strip() or CONTINUE_MISSION
            if state.get("status") == "completed":
                print(f"session {session} is already completed; its plan:")
                from taskforce.cli._views import checklist

                print(printable(checklist(state)))
                return EXIT_OK
    return drive(
        settings,
        model,
        request,
        session or new_session_id(),
        resumed=state is not None,
        plain=plain,
    )


def stored_or_new(url: str, session: str | None, *, starting: bool) -> dict[str, Any] | None:
    """The stored state of `session`; None for a new session (said on stderr when named).

    Fails fast, before any output, on an invalid id, or an unknown one with nothing to
    start it with (`starting` is False: no mission).
    """
    if session is None:
        return None
    from taskforce.cli._views import read_state

    try:
        return read_state(url, session)
    except SessionNotFoundError:
        if not starting:
            raise SessionNotFoundError(
                f"no session {session!r}; give a mission to start one under that name"
            ) from None
    print(f"new session {session} (no session had that name yet)", file=sys.stderr)
    return None


def drive(
    settings: Settings,
    model: Model,
    request: str,
    session_id: str,
    *,
    resumed: bool,
    plain: bool,
    decision: Decision | None = None,
) -> int:
    """Run (or resume) with the live view or plain lines; print the outcome; the exit code."""
    url = settings.resolved_db_url()
    console = Console(highlight=False)
    live = console.is_terminal and not plain
    if not live:
        console = Console(highlight=False, soft_wrap=True)
    header = f"taskforce · session {session_id} · model {model_label(settings, model)}"
    console.print(header, markup=False, style="bold" if live else None)
    if demo_tools_on(settings):
        where = workspace_of(settings, session_id)
        console.print(f"demo tools: calculator, notes, files in {where}", markup=False)
    view = LiveView(console) if live else EventPrinter(console, every_plan=False)
    try:
        with database_errors(url), view if isinstance(view, LiveView) else nullcontext():
            job = execute(
                settings, model, request, session_id, resume=resumed, on_event=view,
                decision=decision,
            )  # fmt: skip
            result = asyncio.run(job)
    except KeyboardInterrupt:
        print(
            f"interrupted: session {session_id} is saved up to its last step; continue it "
            f"with `taskforce run --session {session_id}`",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if demo_tools_on(settings) and (files := files_line(settings, session_id)) is not None:
        console.print(files, markup=False)
    shown = view.last_plan if isinstance(view, EventPrinter) else None
    return report(console, result, live=live, plan_shown=shown)


def decide_command(
    settings: Settings, session: str, *, approve: bool, note: str | None, plain: bool
) -> int:
    """`taskforce approve|reject SESSION`: decide the waiting call, then continue the run."""
    from taskforce.cli._views import read_state

    state = read_state(settings.resolved_db_url(), session)
    settings = for_session(settings, state, session)
    model = make_model(settings)
    warn_ignored_api_base(settings)
    pending = pending_of(state)
    if pending is None:
        status = state.get("status") or "unknown"
        raise UserError(
            f"session {session} is not waiting for approval (status: {status}); "
            "nothing to approve or reject"
        )
    preview = one_line(pending.get("preview") or pending.get("name"))
    verb = "approved" if approve else "rejected"
    print(f"{verb}: {preview}" + (f" (note: {one_line(note)})" if note else ""))
    decision = Decision(approve, note)
    return drive(settings, model, "", session, resumed=True, plain=plain, decision=decision)
