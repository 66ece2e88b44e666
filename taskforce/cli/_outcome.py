"""How a run ended, for people: the answer, the plan, what is still open, the exit code.

The outcomes and their exit codes (also in the README and `taskforce --help`):
``completed`` 0; ``incomplete`` (the model answered with plan steps still open) 7;
``max_steps`` 5; ``paused`` 6; ``failed`` 3 when the provider failed (the session is kept
and can be retried), 2 for a model name litellm does not know, 1 otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.panel import Panel

from taskforce.cli._checklist import checklist_text
from taskforce.cli._errors import (
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_MAX_STEPS,
    EXIT_OK,
    EXIT_PAUSED,
    EXIT_PROVIDER,
    EXIT_USAGE,
    fail,
)
from taskforce.cli._safe import markdown, one_line, printable
from taskforce.cli._views import waiting_line
from taskforce.plan.text import plural

if TYPE_CHECKING:
    from taskforce.agent import AgentResult

_OPEN_SHOWN = 20


def status_of(result: AgentResult) -> str:
    """The run's status as text (``completed``, ``incomplete``, ...)."""
    return str(getattr(result.status, "value", result.status))


def bad_model_name(result: AgentResult) -> str | None:
    """The model name litellm could not place (a usage error, nothing worth keeping)."""
    kind, _, detail = (result.error or "").partition(": ")
    if kind == "ProviderError" and "LLM Provider NOT provided" in detail:
        return detail.split(":", 1)[0]
    return None


def report(
    console: Console, result: AgentResult, *, live: bool, plan_shown: str | None = None
) -> int:
    """Print the final answer, the plan and how to come back; return the exit code.

    The plan is left out when it is `plan_shown`, the plan as last printed.
    """
    status, sid = status_of(result), result.session_id
    if bad_model_name(result) is not None:
        raise failure(result)  # nothing ran and nothing was kept: just say why
    if status != "failed" or result.steps:
        _answer_and_plan(console, result, live=live, plan_shown=plan_shown)
    console.print(f"session: {sid} · status: {status} · model calls: {result.steps}", markup=False)
    if status == "paused" and result.pending_approval is not None:
        console.print(waiting_line(sid, result.pending_approval), markup=False, style="yellow")
        return EXIT_PAUSED
    verb = "retry" if status == "failed" else "continue"
    console.print(
        f"(show it: taskforce plan show {sid} · {verb} it: taskforce run --session {sid})",
        markup=False,
        style="dim",
    )
    if status in ("incomplete", "max_steps"):
        _open_steps(console, result)
    if status == "incomplete":
        raise fail(
            f"the model finished with {plural(len(result.open_steps), 'plan step')} still open; "
            f"continue with `taskforce run --session {sid}`",
            EXIT_INCOMPLETE,
        )
    if status == "max_steps":
        raise fail(
            f"stopped after {plural(result.steps, 'model call')} with "
            f"{plural(len(result.open_steps), 'plan step')} open; continue with "
            f"`taskforce run --session {sid}` (or raise --max-steps)",
            EXIT_MAX_STEPS,
        )
    if status == "failed":
        raise failure(result)
    return EXIT_OK


def _answer_and_plan(
    console: Console, result: AgentResult, *, live: bool, plan_shown: str | None
) -> None:
    if live:
        answer = markdown(result.final_message)
        plan = checklist_text(result.plan_markdown)
        console.print(Panel(answer, title="answer", title_align="left", border_style="green"))
        console.print(Panel(plan, title="plan", title_align="left", border_style="blue"))
    else:
        answer_text = printable(result.final_message or "(no answer)")
        console.print("answer:\n" + answer_text, markup=False)
        if result.plan_markdown != plan_shown:
            console.print("plan:\n" + printable(result.plan_markdown), markup=False)


def _open_steps(console: Console, result: AgentResult) -> None:
    """List the steps still open (the first 20, then how many more)."""
    steps = result.open_steps
    if not steps:
        return
    lines = [f"  {one_line(step)}" for step in steps[:_OPEN_SHOWN]]
    if len(steps) > _OPEN_SHOWN:
        lines.append(f"  … and {len(steps) - _OPEN_SHOWN} more (taskforce plan show SESSION)")
    console.print(f"open steps ({len(steps)}):\n" + "\n".join(lines), markup=False)


def failure(result: AgentResult) -> typer.Exit:
    """The one-line error and exit code for a failed run."""
    error = result.error or result.final_message or "the run failed"
    if (model := bad_model_name(result)) is not None:
        return fail(
            f"bad model name {model!r}: litellm does not know its provider; use "
            "provider/model, e.g. openai/gpt-4o-mini or anthropic/claude-3-5-haiku-latest",
            EXIT_USAGE,
        )
    kind, _, detail = error.partition(": ")
    if kind == "ProviderError":
        return fail(f"model provider: {detail}", EXIT_PROVIDER)
    return fail(error, EXIT_FAILED)
