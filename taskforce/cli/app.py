"""The `taskforce` command line: run missions, chat, list sessions, show plans, migrate.

Only typer and the standard library are imported here; each command imports what it
needs when it runs, so `--help`, `sessions` and `plan show` start fast (no litellm, no
SQLAlchemy async engine for SQLite).
"""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any

import typer

from taskforce.cli._db_app import db_app
from taskforce.cli._errors import (
    EXIT_CODES_HELP,
    EXIT_FAILED,
    EXIT_OK,
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
from taskforce.cli._plan_app import plan_app
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
