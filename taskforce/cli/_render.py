"""Rendering the agent's events: a live rich view on a terminal, plain lines elsewhere.

The agent loop renders nothing; these are its `on_event` callbacks.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.spinner import Spinner
from rich.text import Text

from taskforce.cli._checklist import checklist_text
from taskforce.cli._safe import clean, one_line
from taskforce.plan.checklist import parse_checklist
from taskforce.tools.arguments import decode_arguments

if TYPE_CHECKING:
    from types import TracebackType

    from taskforce.agent.events import AgentEvent

_ARGS_SHOWN = 100


def _get(data: dict[str, Any], *keys: str) -> Any:
    return next((data[k] for k in keys if data.get(k) is not None), None)


def _kind(event: AgentEvent) -> str:
    return str(getattr(event.kind, "value", event.kind))


def _data(event: AgentEvent) -> dict[str, Any]:
    """The event's data with every string made printable (see ``_safe``)."""
    data = clean(dict(event.data or {}))
    return data if isinstance(data, dict) else {}


def describe_call(data: dict[str, Any]) -> str:
    """`planner mark_done step_index=[2] status='DONE'` for a tool-call event."""
    name = str(data.get("name") or "?")
    args = data.get("arguments")
    if isinstance(args, str):
        with contextlib.suppress(ValueError):
            args = decode_arguments(args)
    if isinstance(args, dict):
        action = args.get("action") if name == "planner" else None
        rest = [f"{k}={v!r}" for k, v in args.items() if not (action and k == "action")]
        shown = " ".join(([str(action)] if action else []) + rest)
    else:
        shown = "" if args is None else str(args)
    shown = " ".join(shown.split())
    if len(shown) > _ARGS_SHOWN:
        shown = shown[: _ARGS_SHOWN - 1] + "…"
    return f"{name} {shown}".rstrip()


def describe_result(data: dict[str, Any]) -> tuple[bool, str]:
    """(ok, one line) for a tool-result event."""
    inner = data.get("result")
    result: dict[str, Any] = inner if isinstance(inner, dict) else {}
    ok = bool(data.get("success", result.get("success", True)))
    text = _get(result, "error", "message", "output")
    line = " ".join(str(text if text is not None else ("ok" if ok else "failed")).split())
    return ok, line[:160]


def plan_markdown(data: dict[str, Any]) -> str | None:
    """The checklist carried by a plan-updated event."""
    text = data.get("markdown")
    return text if isinstance(text, str) else None


def approval_line(kind: str, data: dict[str, Any]) -> str:
    """`⏸ waits for approval: …` or `▶ approved: …` for the approval events."""
    preview = one_line(data.get("preview") or data.get("name") or "?")
    if kind == "approval_required":
        return f"⏸ waits for approval: {preview}"[:200]
    verb = "approved" if data.get("approved") else "rejected"
    note = f" (note: {one_line(data['note'])})" if data.get("note") else ""
    return f"▶ {verb}: {preview}{note}"[:200]


def thinks_next(kind: str, data: dict[str, Any]) -> bool:
    """Whether the model is asked next: after tool results and recovered errors.

    (The loop reports `llm_call` after the model answered, with its usage.)
    """
    return kind in ("tool_result", "plan_updated") or (
        kind == "error" and bool(data.get("recovered"))
    )


class EventPrinter:
    """Prints each event as it happens: plain lines, or (chat) rich Markdown and a spinner.

    Args:
        console: where to print.
        rich_output: render plans as Markdown and colour the lines.
        spinner: show a spinner while the model thinks (terminals only).
        every_plan: print the plan after every change; if False, only when its steps
            change (created, added, removed, reworded): status changes show in the
            planner's own result lines, and the final plan is printed at the end.
    """

    def __init__(
        self,
        console: Console,
        *,
        rich_output: bool = False,
        spinner: bool = False,
        every_plan: bool = True,
    ) -> None:
        self._console = console
        self._rich = rich_output
        self._spinner = spinner
        self._every_plan = every_plan
        self._status: Any = None
        self._steps: list[str] | None = None
        self.last_plan: str | None = None
        """The last plan printed (None: none yet)."""

    def __call__(self, event: AgentEvent) -> None:
        """Handle one event."""
        kind, data = _kind(event), _data(event)
        self.stop()
        if kind == "tool_call":
            self._line(f"→ {describe_call(data)}", "cyan")
        elif kind == "tool_result":
            ok, line = describe_result(data)
            self._line(f"{'←' if ok else '✗'} {line}", "dim" if ok else "red")
        elif kind == "plan_updated" and (markdown := plan_markdown(data)):
            self._plan(markdown)
        elif kind in ("approval_required", "resumed"):
            self._line(approval_line(kind, data), "yellow")
        elif kind == "error" and data.get("recovered"):  # a fatal one is reported at the end
            self._line(f"! {data.get('message') or data}", "yellow")
        if thinks_next(kind, data):
            self.thinking()

    def _plan(self, markdown: str) -> None:
        steps = [item.text for item in parse_checklist(markdown)]
        if self._every_plan or steps != self._steps:
            self._steps, self.last_plan = steps, markdown
            if self._rich:
                self._console.print(checklist_text(markdown))
            else:
                self._console.print("plan:\n" + markdown, markup=False, highlight=False)

    def thinking(self) -> None:
        """Show the spinner until the next event (terminals only)."""
        if self._spinner and self._status is None:
            self._status = self._console.status("thinking…", spinner="dots")
            self._status.start()

    def _line(self, text: str, style: str) -> None:
        if self._rich:
            self._console.print(Text(text, style=style))
        else:
            self._console.print(text, markup=False, highlight=False)

    def stop(self) -> None:
        """Stop the spinner, if one is showing."""
        if self._status is not None:
            self._status.stop()
            self._status = None


class LiveView:
    """A live terminal view: tool calls as lines that stay, the checklist and a spinner.

    Each tool call, result, error and approval is printed above the live region as a
    permanent line, so the log of the run stays on screen when it ends; only the
    changing part (the checklist as it changes and the spinner) is redrawn, and it is
    removed at the end (the final plan is printed with the answer). Use as a context
    manager around the run; pass the instance as `on_event`.
    """

    def __init__(self, console: Console, header: str = "") -> None:
        self._header = header
        self._plan: str | None = None
        self._thinking = True
        self._calls = 1
        self.tool_calls = 0
        self._live = Live(self._render(), console=console, refresh_per_second=10, transient=True)

    @property
    def last_plan(self) -> str | None:
        """The most recent checklist seen."""
        return self._plan

    def __enter__(self) -> LiveView:
        self._live.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._live.stop()

    def __call__(self, event: AgentEvent) -> None:
        """Handle one event and redraw."""
        kind, data = _kind(event), _data(event)
        self._thinking = thinks_next(kind, data)
        if kind == "llm_call":
            self._calls = int(data.get("step") or self._calls) + 1
        elif kind == "tool_call":
            self.tool_calls += 1
            self._keep(Text(f"→ {describe_call(data)}", style="cyan"))
        elif kind == "tool_result":
            ok, line = describe_result(data)
            self._keep(Text(f"  {'←' if ok else '✗'} {line}", style="dim" if ok else "red"))
        elif kind == "plan_updated":
            self._plan = plan_markdown(data) or self._plan
        elif kind == "error":
            self._keep(Text(f"! {data.get('message') or data}", style="yellow"))
        elif kind in ("approval_required", "resumed"):
            self._keep(Text(approval_line(kind, data), style="yellow"))
        self._live.update(self._render())

    def _keep(self, line: Text) -> None:
        """Print `line` above the live region, where it stays after the run."""
        # rich's refresh thread redraws the region under this lock; printing under it
        # too keeps the two from interleaving (a stale frame would be left on screen).
        with self._live._lock:
            self._live.console.print(line)

    def _render(self) -> RenderableType:
        plan = checklist_text(self._plan) if self._plan else Text("(no plan yet)", "dim")
        parts: list[RenderableType] = [
            Panel(plan, title="plan", title_align="left", border_style="blue"),
        ]
        if self._thinking:
            parts.append(Spinner("dots", Text(f" model thinking (call {self._calls})…", "dim")))
        return Group(*([Text(self._header, style="bold")] if self._header else []), *parts)
