"""`taskforce db`: migrate the schema up or down, show its revision."""

from __future__ import annotations

from typing import Annotated

import typer

from taskforce.cli._errors import reporting
from taskforce.cli._options import DbOpt, settings_of

db_app = typer.Typer(help="Manage the database schema (Alembic migrations).", no_args_is_help=True)


@db_app.command("upgrade")
def db_upgrade(ctx: typer.Context, db: DbOpt = None) -> None:
    """Create the tables or migrate them to this version's schema."""
    settings = settings_of(ctx, db)
    with reporting(settings.debug, settings.typed_db_url()):
        from taskforce.cli._views import db_upgrade_command

        db_upgrade_command(settings)


@db_app.command("current")
def db_current(ctx: typer.Context, db: DbOpt = None) -> None:
    """Show the database URL and its schema revision."""
    settings = settings_of(ctx, db)
    with reporting(settings.debug, settings.typed_db_url()):
        from taskforce.cli._views import db_current_command

        db_current_command(settings)


@db_app.command("downgrade")
def db_downgrade(
    ctx: typer.Context,
    revision: Annotated[str, typer.Argument(help='Target revision, e.g. 0001 ("base" drops all).')],
    yes: Annotated[
        bool, typer.Option("--yes", help="Do it: data of later revisions is lost.")
    ] = False,
    db: DbOpt = None,
) -> None:
    """Migrate the schema down to REVISION (for rolling back an upgrade)."""
    settings = settings_of(ctx, db)
    with reporting(settings.debug, settings.typed_db_url()):
        from taskforce.cli._views import db_downgrade_command

        db_downgrade_command(settings, revision, confirmed=yes)
