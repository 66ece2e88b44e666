"""The team commands' options: `taskforce work` and `taskforce watch` (typer only)."""

from __future__ import annotations

from typing import Annotated

import typer

from taskforce.cli._errors import reporting
from taskforce.cli._options import (
    ApiBaseOpt,
    DbOpt,
    LeaseOpt,
    MaxStepsOpt,
    ModelOpt,
    PlainOpt,
    settings_of,
)


def work_command(
    ctx: typer.Context,
    session: Annotated[str, typer.Argument(help="The session whose plan to work on.")],
    owner: Annotated[
        str | None,
        typer.Option("--owner", "-o", help="This worker's name (default: host-pid)."),
    ] = None,
    lease: LeaseOpt = 60.0,
    model: ModelOpt = None,
    api_base: ApiBaseOpt = None,
    db: DbOpt = None,
    max_steps: MaxStepsOpt = 30,
) -> None:
    """Join a session's plan as a worker: claim steps, do them, leave when none is left.

    Run it on as many machines as you like against one database (--db); each step is
    done once, by one worker, and a crashed worker's step returns after its lease.
    """
    settings = settings_of(ctx, db, model, api_base, max_steps)
    with reporting(settings.debug):
        from taskforce.cli._work import work

        code = work(settings, session, owner, lease)
    raise typer.Exit(code)


def watch_command(
    ctx: typer.Context,
    session: Annotated[str, typer.Argument(help="The session whose plan to follow.")],
    until_done: Annotated[
        bool, typer.Option("--until-done", help="Leave when the plan is finished.")
    ] = False,
    plain: PlainOpt = False,
    db: DbOpt = None,
) -> None:
    """Show a session's plan updating live: who holds which step, and their leases.

    Ctrl-C leaves (exit 130). With --until-done it leaves when the plan is finished
    (exit 0) or stuck on a failed step (exit 1). Piped: one line per changed step.
    """
    settings = settings_of(ctx, db)
    with reporting(settings.debug):
        from taskforce.cli._watch import watch

        code = watch(settings, session, until_done=until_done, plain=plain)
    raise typer.Exit(code)
