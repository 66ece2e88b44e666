"""The plan as a GitHub-flavoured Markdown task list, and the text hygiene behind it.

Pure functions, no I/O. A step renders as one task-list line whose number is 1-based::

    - [x] 1. Research — found 3 sources
    - [ ] 2. Summarize (in progress)
    - [ ] 3. Deploy (failed: timeout)
    - [x] 4. ~~Optional polish~~ (skipped)
    - [ ] 5. Publish (needs approval) (blocked by 3)

Step text can never break the list: newlines and control characters are folded into
spaces, leading list/checkbox/heading syntax is removed, and HTML angle brackets are
escaped so a chat UI shows them as text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

NO_PLAN = "No active plan."
"""What `read_plan` returns when there is no plan (the seed's exact string)."""

_LEADING_SYNTAX = re.compile(
    r"""^(?:
        [-*+•]\s+                # bullet
      | \d{1,4}[.)](?:\s+|$)     # ordered-list number: "1." "2)"
      | \[[ xX✓-]?\]\s*          # checkbox "[ ]" "[x]"
      | \#{1,6}\s+               # heading
      | >\s*                     # block quote
      | (?:step|task)\s*\d{1,4}\s*[:.)-]\s*   # "Step 3:"
    )""",
    re.VERBOSE | re.IGNORECASE,
)
_WHITESPACE = re.compile(r"\s+")


def clean_text(text: str) -> str:
    """Fold a step's text into one safe line.

    Control and format characters (newlines, NUL, bidi overrides) become spaces, runs of
    whitespace collapse, and leading list, checkbox, heading or quote syntax is stripped
    (repeatedly, so `- [ ] 1. Do it` becomes `Do it`).
    """
    chars = [" " if unicodedata.category(ch) in {"Cc", "Cf", "Zl", "Zp"} else ch for ch in text]
    line = _WHITESPACE.sub(" ", "".join(chars)).strip()
    while (stripped := _LEADING_SYNTAX.sub("", line, count=1).strip()) != line:
        line = stripped
    return line


def escape_inline(text: str) -> str:
    """Escape what could render as HTML inside a Markdown line."""
    return text.replace("<", "&lt;").replace(">", "&gt;")


class RenderableStep(Protocol):
    """What the renderer needs of a step."""

    @property
    def description(self) -> str:
        """The step's text (already cleaned)."""
        ...

    @property
    def note(self) -> str | None:
        """An optional short note or result."""
        ...

    @property
    def status_name(self) -> str:
        """PENDING, IN_PROGRESS, DONE, FAILED or SKIPPED."""
        ...


def render_step(number: int, step: RenderableStep, blocked_by: Iterable[int] = ()) -> str:
    """One task-list line for `step`, numbered `number` (1-based)."""
    text = escape_inline(step.description)
    note = escape_inline(step.note) if step.note else None
    status = step.status_name
    box = "[x]" if status in {"DONE", "SKIPPED"} else "[ ]"
    if status == "SKIPPED":
        text = f"~~{text}~~"
    suffix = {
        "IN_PROGRESS": " (in progress" + (f": {note})" if note else ")"),
        "FAILED": " (failed" + (f": {note})" if note else ")"),
        "SKIPPED": " (skipped" + (f": {note})" if note else ")"),
        "DONE": f" — {note}" if note else "",
        "PENDING": f" — {note}" if note else "",
    }[status]
    if getattr(step, "requires_approval", False) and status in {"PENDING", "IN_PROGRESS"}:
        suffix += " (needs approval)"
    blockers = list(blocked_by)
    if blockers and status == "PENDING":
        suffix += " (blocked by " + ", ".join(str(b) for b in blockers) + ")"
    return f"- {box} {number}. {text}{suffix}"


def render_checklist(steps: Iterable[RenderableStep]) -> str:
    """The whole plan as Markdown, or :data:`NO_PLAN` when there are no steps."""
    lines = [render_step(i, step) for i, step in enumerate(steps, start=1)]
    return "\n".join(lines) if lines else NO_PLAN


@dataclass(frozen=True, slots=True)
class _StoredStep:
    description: str
    note: str | None
    status_name: str
    requires_approval: bool


def render_state(plan_state: Mapping[str, Any] | None) -> str:
    """Render a stored plan state (plain JSON data) exactly as `Plan.render` would.

    For readers that should not pay for building the pydantic model (the CLI's fast
    `plan show`). Malformed entries render as best they can; nothing raises.
    """
    raw = plan_state.get("tasks") if isinstance(plan_state, Mapping) else None
    tasks = [t for t in raw if isinstance(t, Mapping)] if isinstance(raw, list) else []
    if not tasks:
        return NO_PLAN
    numbers = {t.get("id"): i for i, t in enumerate(tasks, start=1)}
    status = {t.get("id"): _status_name(t.get("status")) for t in tasks}
    lines = []
    for number, task in enumerate(tasks, start=1):
        deps = task.get("depends_on")
        blocked = [
            numbers[d]
            for d in (deps if isinstance(deps, list) else [])
            if d in numbers and status[d] not in {"DONE", "SKIPPED"}
        ]
        note = task.get("note")
        step = _StoredStep(
            str(task.get("description", "")),
            note if isinstance(note, str) else None,
            _status_name(task.get("status")),
            task.get("requires_approval") is True,
        )
        lines.append(render_step(number, step, blocked))
    return "\n".join(lines)


def _status_name(value: object) -> str:
    name = str(value).upper() if isinstance(value, str) else "PENDING"
    return name if name in {"PENDING", "IN_PROGRESS", "DONE", "FAILED", "SKIPPED"} else "PENDING"
