"""The `taskforce` command line: run missions, chat, list sessions, show plans, migrate.

Only typer and the standard library are imported here; each command imports what it
needs when it runs, so `--help`, `sessions` and `plan show` start fast (no litellm, no
SQLAlchemy async engine for SQLite).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from taskforce.cli._errors import EXIT_CODES_HELP, EXIT_USAGE, fail, reporting
from taskforce.cli._eval_command import eval_command
from taskforce.cli._options import ApiBaseOpt, ModelOpt, PlainOpt
from taskforce.cli._settings import Settings

app = typer.Typer(
    name="taskforce",
    help="Planning as a Tool for ReAct agents: run missions whose plan is a persisted checklist.",
    epilog=EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
plan_app = typer.Typer(help="Show, export and import plans.", no_args_is_help=True)
db_app = typer.Typer(help="Manage the database schema (Alembic migrations).", no_args_is_help=True)
app.add_typer(plan_app, name="plan")
app.add_typer(db_app, name="db")
app.command("eval")(eval_command)

SessionOpt = Annotated[
    str | None,
    typer.Option("--session", "-s", help="Continue this session (see `taskforce sessions`)."),
]
DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar="TASKFORCE_DB_URL",
        help="Database URL (sqlite+aiosqlite:///file.db, postgresql+asyncpg://...). "
        "Default: an SQLite file in the user data directory.",
    ),
]
MaxStepsOpt = Annotated[
    int, typer.Option("--max-steps", min=1, max=1000, help="Most model calls per request.")
]


@app.callback()
def _root(
    ctx: typer.Context,
    debug: Annotated[
        bool,
        typer.Option("--debug", envvar="TASKFORCE_DEBUG", help="Show tracebacks on errors."),
    ] = False,
) -> None:
    ctx.obj = debug


def _make_settings(
    ctx: typer.Context,
    db: str | None,
    model: str | None = None,
    api_base: str | None = None,
    max_steps: int = 30,
) -> Settings:
    return Settings(
        db_url=db, model=model, api_base=api_base, max_steps=max_steps, debug=bool(ctx.obj)
    )


@app.command()
def run(
    ctx: typer.Context,
    mission: Annotated[
        str | None,
        typer.Argument(help="What to do. Optional with --session (continues the plan)."),
    ] = None,
    session: SessionOpt = None,
    model: ModelOpt = None,
    api_base: ApiBaseOpt = None,
    db: DbOpt = None,
    max_steps: MaxStepsOpt = 30,
    plain: Annotated[
        bool, typer.Option("--plain", help="Plain lines instead of the live view.")
    ] = False,
) -> None:
    """Run a mission with the agent; show the checklist live; print the answer and plan."""
    settings = _make_settings(ctx, db, model, api_base, max_steps)
    with reporting(settings.debug):
        from taskforce.cli._run import run_command

        code = run_command(settings, mission, session, plain=plain)
    raise typer.Exit(code)


NoteOpt = Annotated[
    str | None, typer.Option("--note", "-n", help="Why: shown to the model with the decision.")
]
SessionArg = Annotated[str, typer.Argument(help="A paused session (see `taskforce sessions`).")]


def _decide(
    ctx: typer.Context,
    session: str,
    approve: bool,
    note: str | None,
    model: str | None,
    api_base: str | None,
    db: str | None,
    max_steps: int,
    plain: bool,
) -> None:
    settings = _make_settings(ctx, db, model, api_base, max_steps)
    with reporting(settings.debug):
        from taskforce.cli._run import decide_command

        code = decide_command(settings, session, approve=approve, note=note, plain=plain)
    raise typer.Exit(code)


@app.command()
def approve(
    ctx: typer.Context,
    session: SessionArg,
    note: NoteOpt = None,
    model: ModelOpt = None,
    api_base: ApiBaseOpt = None,
    db: DbOpt = None,
    max_steps: MaxStepsOpt = 30,
    plain: PlainOpt = False,
) -> None:
    """Approve the call a paused session waits for; it runs and the mission continues."""
    _decide(ctx, session, True, note, model, api_base, db, max_steps, plain)


@app.command()
def reject(
    ctx: typer.Context,
    session: SessionArg,
    note: NoteOpt = None,
    model: ModelOpt = None,
    api_base: ApiBaseOpt = None,
    db: DbOpt = None,
    max_steps: MaxStepsOpt = 30,
    plain: PlainOpt = False,
) -> None:
    """Reject the call a paused session waits for; the model is told (with --note) and replans."""
    _decide(ctx, session, False, note, model, api_base, db, max_steps, plain)


@app.command()
def chat(
    ctx: typer.Context,
    session: SessionOpt = None,
    model: ModelOpt = None,
    api_base: ApiBaseOpt = None,
    db: DbOpt = None,
    max_steps: MaxStepsOpt = 30,
) -> None:
    """Talk with the agent; the checklist is shown after every plan change.

    Ctrl-C or Ctrl-D (EOF) leaves; everything is already saved.
    """
    settings = _make_settings(ctx, db, model, api_base, max_steps)
    with reporting(settings.debug):
        from taskforce.cli._chat import chat_command

        code = chat_command(settings, session)
    raise typer.Exit(code)


@app.command()
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
    settings = _make_settings(ctx, db)
    with reporting(settings.debug):
        if summary:
            from taskforce.cli._documents import summary_command

            summary_command(settings, as_json=as_json)
            return
        from taskforce.cli._views import sessions_command

        sessions_command(settings, limit=limit, offset=offset, as_json=as_json)


@plan_app.command("show")
def plan_show(
    ctx: typer.Context,
    session: Annotated[str, typer.Argument(help="The session id.")],
    raw: Annotated[bool, typer.Option("--raw", help="Plain Markdown.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The session state as JSON.")] = False,
    db: DbOpt = None,
) -> None:
    """Show a session's plan as a rendered checklist."""
    settings = _make_settings(ctx, db)
    with reporting(settings.debug):
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
    db: DbOpt = None,
) -> None:
    """Export a plan as Plan.md (frontmatter, objective, steps, execution log)."""
    settings = _make_settings(ctx, db)
    with reporting(settings.debug):
        if (session is None) == (all_to is None):
            raise fail("give a SESSION or --all DIR (not both)", EXIT_USAGE)
        from taskforce.cli._documents import plan_export_command

        plan_export_command(settings, session, output, all_to)


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
    settings = _make_settings(ctx, db)
    with reporting(settings.debug):
        from taskforce.cli._documents import plan_import_command

        plan_import_command(settings, path, session, replace=replace)


@app.command("mcp")
def mcp_command(
    ctx: typer.Context,
    db: DbOpt = None,
    session: Annotated[
        str | None,
        typer.Option("--session", "-s", help="Session of calls that name none (default: mcp)."),
    ] = None,
    transport: Annotated[
        str,
        typer.Option("--transport", "-t", help="stdio, or streamable-http (http://HOST:PORT/mcp)."),
    ] = "stdio",
    host: Annotated[
        str, typer.Option("--host", help="HTTP address. No authentication: keep it local.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="HTTP port.")] = 8765,
) -> None:
    """Serve the planner over MCP (stdio by default), so any MCP client can plan with it."""
    settings = _make_settings(ctx, db)
    with reporting(settings.debug):
        from taskforce.mcp import run_server

        run_server(settings.resolved_db_url(), session, transport, host, port)


@db_app.command("upgrade")
def db_upgrade(ctx: typer.Context, db: DbOpt = None) -> None:
    """Create the tables or migrate them to this version's schema."""
    settings = _make_settings(ctx, db)
    with reporting(settings.debug):
        from taskforce.cli._views import db_upgrade_command

        db_upgrade_command(settings)


@db_app.command("current")
def db_current(ctx: typer.Context, db: DbOpt = None) -> None:
    """Show the database URL and its schema revision."""
    settings = _make_settings(ctx, db)
    with reporting(settings.debug):
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
    settings = _make_settings(ctx, db)
    with reporting(settings.debug):
        from taskforce.cli._views import db_downgrade_command

        db_downgrade_command(settings, revision, confirmed=yes)


def main() -> None:
    """Entry point of the `taskforce` console script."""
    # litellm must use its bundled cost map: no network fetch when it is first imported.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    app()
