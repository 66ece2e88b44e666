"""`taskforce plan`: show a session's plan, export it as Plan.md, import a Plan.md."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from taskforce.cli._errors import EXIT_USAGE, fail, reporting
from taskforce.cli._options import DbOpt, SessionOpt, settings_of

plan_app = typer.Typer(help="Show, export and import plans.", no_args_is_help=True)


@plan_app.command("show")
def plan_show(
    ctx: typer.Context,
    session: Annotated[str, typer.Argument(help="The session id.")],
    raw: Annotated[bool, typer.Option("--raw", help="Plain Markdown.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The session state as JSON.")] = False,
    db: DbOpt = None,
) -> None:
    """Show a session's plan as a rendered checklist."""
    settings = settings_of(ctx, db)
    with reporting(settings.debug, settings.typed_db_url()):
        from taskforce.cli._views import plan_show_command

        plan_show_command(settings, session, raw=raw, as_json=as_json)


@plan_app.command("export")
def plan_export(
    ctx: typer.Context,
    session: Annotated[str | None, typer.Argument(help="The session id.")] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write Plan.md here (default: print).")
    ] = None,
    all_to: Annotated[
        Path | None,
        typer.Option("--all", help="Export every plan into this folder (finished: Done/)."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite the -o file if it exists.")
    ] = False,
    db: DbOpt = None,
) -> None:
    """Export a plan as Plan.md (frontmatter, objective, steps, execution log)."""
    settings = settings_of(ctx, db)
    with reporting(settings.debug, settings.typed_db_url()):
        if (session is None) == (all_to is None):
            raise fail("give a SESSION or --all DIR (not both)", EXIT_USAGE)
        from taskforce.cli._documents import plan_export_command

        plan_export_command(settings, session, output, all_to, overwrite=force)


@plan_app.command("import")
def plan_import(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="A Plan.md file.")],
    session: SessionOpt = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="Overwrite an existing session with that id.")
    ] = False,
    db: DbOpt = None,
) -> None:
    """Create a session from a Plan.md file; prints the session id."""
    settings = settings_of(ctx, db)
    with reporting(settings.debug, settings.typed_db_url()):
        from taskforce.cli._documents import plan_import_command

        plan_import_command(settings, path, session, replace=replace)
