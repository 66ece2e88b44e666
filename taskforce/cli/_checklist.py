"""A plan checklist for the terminal: a coloured mark per step instead of `- [x]`."""

from __future__ import annotations

import re

from rich.text import Text

_TASK = re.compile(r"^- \[(?P<box>[ xX])\] (?P<rest>.*)$")
_MARKS = {
    "done": ("✔", "green"),
    "skipped": ("⊘", "dim strike"),
    "in progress": ("▶", "bold yellow"),
    "failed": ("✗", "red"),
    "pending": ("○", ""),
}


def checklist_text(markdown: str) -> Text:
    """A rendered checklist: a coloured mark per step (✔ done, ▶ in progress, ✗ failed)."""
    out = Text()
    for line in markdown.splitlines():
        match = _TASK.match(line)
        if match is None:
            out.append(line + "\n")
            continue
        rest = match["rest"].replace("&lt;", "<").replace("&gt;", ">")
        if match["box"] != " ":
            state = "skipped" if rest.startswith("~~") or "(skipped" in rest else "done"
            rest = rest.replace("~~", "")
        elif "(in progress" in rest:
            state = "in progress"
        elif "(failed" in rest:
            state = "failed"
        else:
            state = "pending"
        mark, style = _MARKS[state]
        out.append(f"{mark} ", style=style or None)
        out.append(rest + "\n", style=style if state != "pending" else None)
    out.rstrip()
    return out
