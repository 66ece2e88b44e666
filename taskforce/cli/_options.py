"""The options several commands share (typer `Annotated` aliases), and their settings."""

from __future__ import annotations

from typing import Annotated

import typer

from taskforce.cli._settings import Settings

SessionOpt = Annotated[
    str | None,
    typer.Option("--session", "-s", help="Continue this session (see `taskforce sessions`)."),
]
ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        "-m",
        envvar="TASKFORCE_MODEL",
        help="litellm model name, e.g. openai/gpt-4o-mini. Default: the offline rule-based model.",
    ),
]
ApiBaseOpt = Annotated[
    str | None,
    typer.Option(
        "--api-base",
        envvar="TASKFORCE_API_BASE",
        help="Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1.",
    ),
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
TimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        envvar="TASKFORCE_TIMEOUT",
        min=0.5,
        help="Seconds a model call may take, retries included (default: 60 per attempt, "
        "150 in all). A provider that hangs gives up after this.",
    ),
]
NoteOpt = Annotated[
    str | None, typer.Option("--note", "-n", help="Why: shown to the model with the decision.")
]
PlainOpt = Annotated[bool, typer.Option("--plain", help="Plain lines instead of the live view.")]
SessionArg = Annotated[str, typer.Argument(help="A paused session (see `taskforce sessions`).")]
DemoToolsOpt = Annotated[
    bool | None,
    typer.Option(
        "--demo-tools/--no-demo-tools",
        help="The built-in demo tools (calculator, notes, files in the workspace). "
        "Default: on with the offline model, off with an LLM.",
        show_default=False,
    ),
]
WorkspaceOpt = Annotated[
    str | None,
    typer.Option(
        "--workspace",
        envvar="TASKFORCE_WORKSPACE",
        help="Folder the demo tools write in. Default: workspaces/SESSION next to the "
        "database file.",
    ),
]


def settings_of(
    ctx: typer.Context,
    db: str | None,
    model: str | None = None,
    api_base: str | None = None,
    max_steps: int = 30,
    *,
    demo_tools: bool | None = None,
    workspace: str | None = None,
    timeout: float | None = None,
) -> Settings:
    """The settings of one command (``ctx.obj`` holds ``--debug``)."""
    root = ctx.find_root()
    return Settings(
        db_url=db,
        model=model,
        api_base=api_base,
        max_steps=max_steps,
        debug=bool(root.obj),
        demo_tools=demo_tools,
        workspace=workspace,
        timeout=timeout,
    )


LeaseOpt = Annotated[
    float,
    typer.Option(
        "--lease", min=1, max=86400, help="Seconds a claimed step stays held without renewal."
    ),
]
