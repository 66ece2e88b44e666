"""Command-line options shared by several commands (typer annotations only)."""

from __future__ import annotations

from typing import Annotated

import typer

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

PlainOpt = Annotated[bool, typer.Option("--plain", help="Plain lines instead of the live view.")]
