"""`taskforce sessions`: list sessions (the group's own callback) and `sessions delete`."""

from __future__ import annotations

from typing import Annotated

import typer

from taskforce.cli._errors import reporting
from taskforce.cli._options import DbOpt, settings_of

sessions_app = typer.Typer(
    help="List sessions, newest first: id, mission, status, progress, last update.",
    invoke_without_command=True,
)


@sessions_app.callback()
def sessions(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Rows to show.")] = 50,
    offset: Annotated[int, typer.Option("--offset", min=0, help="Rows to skip.")] = 0,
    as_json: Annotated[
        bool, typer.Option("--json", help="A JSON list instead of a table.")
    ] = False,
    summary: Annotated[
        bool,
        typer.Option("--summary", help="Dashboard: active, paused, completed today, per plan."),
    ] = False,
    db: DbOpt = None,
) -> None:
    """List sessions, newest first: id, mission, status, progress, last update."""
    if ctx.invoked_subcommand is not None:
        return
    settings = settings_of(ctx, db)
    with reporting(settings.debug, settings.typed_db_url()):
        if summary:
            from taskforce.cli._documents import summary_command

            summary_command(settings, as_json=as_json)
            return
        from taskforce.cli._views import sessions_command

        sessions_command(settings, limit=limit, offset=offset, as_json=as_json)


@sessions_app.command("delete")
def delete(
    ctx: typer.Context,
    session_ids: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[SESSION]...", help="Sessions to delete (see `taskforce sessions`)."
        ),
    ] = None,
    older_than: Annotated[
        str | None,
        typer.Option(
            "--older-than",
            help="Instead of ids: every session last updated longer ago than this "
            "(7d, 12h, 30m, 2w, 1d12h).",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Only list what would be deleted.")
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Do not ask (needed when not on a terminal).")
    ] = False,
    db: DbOpt = None,
) -> None:
    """Delete sessions (plan, messages, history) after listing them and asking.

    An unknown id deletes nothing; a session that changes after it was listed is kept.
    Files the demo tools wrote are not deleted.
    """
    parent = ctx.parent.params if ctx.parent is not None else {}
    settings = settings_of(ctx, db or parent.get("db"))  # `sessions --db URL delete ...` too
    with reporting(settings.debug, settings.typed_db_url()):
        from taskforce.cli._delete import delete_command

        delete_command(settings, session_ids or [], older_than, dry_run=dry_run, yes=yes)
