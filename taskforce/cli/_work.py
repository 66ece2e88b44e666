"""`taskforce work SESSION --owner NAME`: join a session's plan as a worker, from anywhere.

Any machine that reaches the database can run it (for many machines, point them all at
one PostgreSQL with ``--db`` / ``TASKFORCE_DB_URL``). The worker claims steps, works each
one with its own agent, writes the result in the step's note, and leaves when nothing is
left to claim. One line per thing it does, on a terminal or a pipe.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from typing import TYPE_CHECKING

from taskforce.cli._errors import EXIT_INTERRUPTED, EXIT_OK, database_errors
from taskforce.cli._settings import Settings, make_model, warn_ignored_api_base
from taskforce.errors import SessionNotFoundError

if TYPE_CHECKING:
    from taskforce.agent.worker import WorkerEvent, WorkerReport


def default_owner() -> str:
    """A worker name unique enough without one given: ``host-pid``."""
    host = "".join(c if c.isalnum() or c in ".-" else "-" for c in socket.gethostname())
    return f"{host.strip('.-')[:40] or 'worker'}-{os.getpid()}"


def work(settings: Settings, session: str, owner: str | None, lease: float) -> int:
    """Work `session`'s plan until nothing is left to claim; the exit code."""
    from taskforce.plan.step import check_owner

    name = check_owner(owner) if owner is not None else default_owner()
    model = make_model(settings)
    warn_ignored_api_base(settings)
    url = settings.resolved_db_url()
    print(f"taskforce work · session {session} · worker {name} · model {model.name}", flush=True)
    try:
        with database_errors(url):
            report = asyncio.run(_work(settings, session, name, lease, model))
    except KeyboardInterrupt:
        print(
            f"interrupted: worker {name} stopped; the step it held was given back",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    done = ", ".join(map(str, report.done)) or "none"
    print(f"{name} leaves: {report.reason} (steps done by {name}: {done})", flush=True)
    return EXIT_OK


async def _work(
    settings: Settings, session: str, owner: str, lease: float, model: object
) -> WorkerReport:
    from taskforce.agent.worker import Worker, step_agent
    from taskforce.cli._workspace import run_tools
    from taskforce.models.base import Model
    from taskforce.store import StateManager

    assert isinstance(model, Model)
    async with StateManager(settings.resolved_db_url()) as store:
        if await store.load_state(session) is None:
            raise SessionNotFoundError(f"no session {session!r}")
        worker = Worker(
            store,
            session,
            owner,
            step_agent(model, max_steps=settings.max_steps, tools=run_tools(settings, session)),
            lease=lease,
            on_event=_print,
        )
        return await worker.run()


def _print(event: WorkerEvent) -> None:
    from taskforce.agent.worker import describe
    from taskforce.plan.text import clean_text

    if event.kind != "left":  # the summary line says why it leaves
        print(clean_text(describe(event))[:300], flush=True)
