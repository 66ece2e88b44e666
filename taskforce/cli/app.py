"""The `taskforce` command line: run missions, chat, list sessions, show plans, migrate.

Only typer and the standard library are imported here; each command imports what it
needs when it runs, so `--help`, `sessions` and `plan show` start fast (no litellm, no
SQLAlchemy async engine for SQLite).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from taskforce.cli._errors import (
    EXIT_CODES_HELP,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    fail,
    reporting,
)
from taskforce.cli._eval_command import eval_command
from taskforce.cli._options import (
    ApiBaseOpt,
    DbOpt,
    DemoToolsOpt,
    LeaseOpt,
    MaxStepsOpt,
    ModelOpt,
    NoteOpt,
    PlainOpt,
    SessionArg,
    SessionOpt,
    TimeoutOpt,
    WorkspaceOpt,
    settings_of,
)
from taskforce.cli._sessions_app import sessions_app
from taskforce.cli._team_app import watch_command, work_command

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
app.add_typer(sessions_app, name="sessions")
app.add_typer(plan_app, name="plan")
app.add_typer(db_app, name="db")
app.command("eval")(eval_command)
app.command("work")(work_command)
app.command("watch")(watch_command)


@app.callback()
def _root(
    ctx: typer.Context,
    debug: Annotated[
        bool,
        typer.Option("--debug", envvar="TASKFORCE_DEBUG", help="Show tracebacks on errors."),
    ] = False,
) -> None:
    ctx.obj = debug


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
    timeout: TimeoutOpt = None,
    plain: PlainOpt = False,
    demo_tools: DemoToolsOpt = None,
    workspace: WorkspaceOpt = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=0,
            max=64,
            help="Run a team: the agent plans, N workers do the steps (0: only workers that "
            "join with `taskforce work`), then the agent answers.",
        ),
    ] = None,
    lease: LeaseOpt = 60.0,
) -> None:
    """Run a mission with the agent; show the tool calls and the checklist; the answer."""
    settings = settings_of(
        ctx,
        db,
        model,
        api_base,
        max_steps,
        demo_tools=demo_tools,
        workspace=workspace,
        timeout=timeout,
    )
    with reporting(settings.debug, settings.typed_db_url()):
        if workers is not None:
            from taskforce.cli._team import team_command

            code = team_command(settings, mission, session, workers, lease, plain=plain)
        else:
            from taskforce.cli._run import run_command

            code = run_command(settings, mission, session, plain=plain)
    raise typer.Exit(code)


def _decide(
    ctx: typer.Context,
    session: str,
    approve: bool,
    note: str | None,
    model: str | None,
    api_base: str | None,
    db: str | None,
    max_steps: int,
    timeout: float | None,
    plain: bool,
    demo_tools: bool | None,
    workspace: str | None,
) -> None:
    settings = settings_of(
        ctx,
        db,
        model,
        api_base,
        max_steps,
        demo_tools=demo_tools,
        workspace=workspace,
        timeout=timeout,
    )
    with reporting(settings.debug, settings.typed_db_url()):
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
    timeout: TimeoutOpt = None,
    plain: PlainOpt = False,
    demo_tools: DemoToolsOpt = None,
    workspace: WorkspaceOpt = None,
) -> None:
    """Approve the call a paused session waits for; it runs and the mission continues."""
    _decide(
        ctx,
        session,
        True,
        note,
        model,
        api_base,
        db,
        max_steps,
        timeout,
        plain,
        demo_tools,
        workspace,
    )


@app.command()
def reject(
    ctx: typer.Context,
    session: SessionArg,
    note: NoteOpt = None,
    model: ModelOpt = None,
    api_base: ApiBaseOpt = None,
    db: DbOpt = None,
    max_steps: MaxStepsOpt = 30,
    timeout: TimeoutOpt = None,
    plain: PlainOpt = False,
    demo_tools: DemoToolsOpt = None,
    workspace: WorkspaceOpt = None,
) -> None:
    """Reject the call a paused session waits for; the model is told (with --note) and replans."""
    _decide(
        ctx,
        session,
        False,
        note,
        model,
        api_base,
        db,
        max_steps,
        timeout,
        plain,
        demo_tools,
        workspace,
    )


@app.command()
def chat(
    ctx: typer.Context,
    session: SessionOpt = None,
    model: ModelOpt = None,
    api_base: ApiBaseOpt = None,
    db: DbOpt = None,
    max_steps: MaxStepsOpt = 30,
    demo_tools: DemoToolsOpt = None,
    workspace: WorkspaceOpt = None,
    timeout: TimeoutOpt = None,
) -> None:
    """Talk with the agent; the checklist is shown after every plan change.

    Ctrl-C or Ctrl-D (EOF) leaves; everything is already saved.
    """
    settings = settings_of(
        ctx,
        db,
        model,
        api_base,
        max_steps,
        demo_tools=demo_tools,
        workspace=workspace,
        timeout=timeout,
    )
    with reporting(settings.debug, settings.typed_db_url()):
        from taskforce.cli._chat import chat_command

        code = chat_command(settings, session)
    raise typer.Exit(code)


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
    owner: Annotated[
        str | None,
        typer.Option("--owner", help="Act as this worker on shared plans (adds claim tools)."),
    ] = None,
    lease: LeaseOpt = 300.0,
) -> None:
    """Serve the planner over MCP (stdio by default), so any MCP client can plan with it."""
    settings = settings_of(ctx, db)
    with reporting(settings.debug, settings.typed_db_url()):
        from taskforce.mcp import run_server

        run_server(
            settings.resolved_db_url(), session, transport, host, port, owner=owner, lease=lease
        )


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


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `taskforce` console script (`argv`: the arguments, for tests)."""
    # litellm must use its bundled cost map: no network fetch when it is first imported.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # typer's click (vendored by recent typer) raises usage errors of this class:
    click_error: type[Exception] = next(
        c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
    )
    try:
        code = app(args=argv, standalone_mode=False)
    except click_error as error:  # a usage error can quote what was typed: sanitise it
        from taskforce.cli._safe import printable

        exc: Any = error
        exc.message = printable(exc.message)
        exc.show()
        code = exc.exit_code
    except typer.Abort:
        print("Aborted!", file=sys.stderr)
        code = EXIT_FAILED
    sys.exit(code if isinstance(code, int) else EXIT_OK)
