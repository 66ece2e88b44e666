"""A plan checklist for the terminal: a coloured mark per step instead of `- [x]`.

The statuses come from the plan's steps (:func:`taskforce.plan.checklist.checklist`) or,
for the checklist text an agent event carries, from the one checklist parser
(:func:`taskforce.plan.parse_checklist`); the CLI reads no Markdown of its own.
"""

from __future__ import annotations

import html
from collections.abc import Iterator

from rich.text import Text

from taskforce.cli._safe import printable
from taskforce.plan import Plan, StepStatus, parse_checklist
from taskforce.plan.checklist import checklist

_MARKS = {
    StepStatus.DONE: ("✔", "green"),
    StepStatus.SKIPPED: ("⊘", "dim strike"),
    StepStatus.IN_PROGRESS: ("▶", "bold yellow"),
    StepStatus.FAILED: ("✗", "red"),
    StepStatus.PENDING: ("○", ""),
}


def checklist_text(plan: Plan | str) -> Text:
    """A plan, or its rendered checklist: a coloured mark per step (✔ done, ▶ in progress)."""
    out = Text()
    for indent, status, line in _lines(plan):
        text = printable(line)  # data: no raw control sequence reaches the terminal
        if status is None:
            out.append(text + "\n")
            continue
        if status is StepStatus.SKIPPED:
            text = text.replace("~~", "")
        mark, style = _MARKS[status]
        out.append(indent)
        out.append(f"{mark} ", style=style or None)
        out.append(text + "\n", style=style or None)
    out.rstrip()
    return out


def _lines(plan: Plan | str) -> Iterator[tuple[str, StepStatus | None, str]]:
    """(indent, status, text after the box) per line; a line that is no step has no status."""
    if isinstance(plan, Plan):
        if not plan.steps:
            yield "", None, plan.render()
        for step in checklist(plan, escape=str):
            yield "  " * step.depth, step.status, f"{step.number}. {step.text}"
        return
    for line in plan.splitlines():
        item = parse_checklist(line)
        if item:
            indent = line[: len(line) - len(line.lstrip())]
            yield indent, item[0].status, html.unescape(line.partition("]")[2].strip())
        else:
            yield "", None, line
