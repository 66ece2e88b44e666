"""The plan as a GitHub-flavoured Markdown task list: the one renderer and the one parser.

A step renders as one task-list line whose number is 1-based::

    - [x] 1. Research — found 3 sources
    - [ ] 2. Summarize (in progress)
    - [ ] 3. Deploy (failed: timeout)
    - [x] 4. ~~Optional polish~~ (skipped)
    - [ ] 5. Publish (needs approval) (blocked by 3)
    - [ ] 6. Build the site (1/2 done)
      - [x] 7. Write the pages
      - [ ] 8. Style them (in progress by alice)

Sub-steps are indented under their parent (two spaces per level: still a GitHub task
list), and an open parent counts its finished sub-steps. A step in progress held by a
worker names it (``by alice``).

:func:`checklist` gives the lines as values (a terminal colours them by status),
:func:`render` joins them as Markdown, :func:`parse_checklist` reads such a list back
(the planner's ``read_plan`` output, a converter's Markdown, a file). Step text is
cleaned on the way in (:mod:`taskforce.plan.text`), so it can never break the list.
Pure functions, no I/O.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from taskforce.plan.step import Step, StepStatus
from taskforce.plan.text import escape_inline

if TYPE_CHECKING:
    from taskforce.plan.plan import Plan

NO_PLAN = "No active plan."
"""What ``read_plan`` returns when there is no plan (the seed's exact string)."""

Escape = Callable[[str], str]


@dataclass(frozen=True, slots=True)
class ChecklistLine:
    """One rendered step: its number, its status, the text after ``N.``, its depth."""

    number: int
    status: StepStatus
    text: str
    depth: int = 0

    def markdown(self) -> str:
        """The task-list line (``- [x] 1. Research — found 3 sources``), indented by depth."""
        return markdown_line(self.number, self.status, self.text, self.depth)


def markdown_line(number: int, status: StepStatus, text: str, depth: int = 0) -> str:
    """The task-list line of step `number` (what :meth:`ChecklistLine.markdown` gives)."""
    box = "[x]" if status.is_finished else "[ ]"
    return f"{'  ' * depth}- {box} {number}. {text}"


def line_text(
    step: Step,
    blocked_by: Iterable[int] = (),
    escape: Escape = escape_inline,
    *,
    rollup: tuple[int, int] | None = None,
) -> str:
    """What follows the number on `step`'s line.

    Its text, status suffix, approval, blockers and (for an open parent) how many of its
    sub-steps are finished.
    """
    text = escape(step.description)
    note = escape(step.note) if step.note else None
    status = step.status
    if status is StepStatus.SKIPPED:
        text = f"~~{text}~~"
    if status in _SUFFIX_WORD:
        word = _SUFFIX_WORD[status]
        if status is StepStatus.IN_PROGRESS and step.owner:
            word += f" by {escape(step.owner)}"
        suffix = f" ({word}" + (f": {note})" if note else ")")
    else:
        suffix = f" — {note}" if note else ""
    if step.requires_approval and status.is_open:
        suffix += " (needs approval)"
    blockers = list(blocked_by)
    if blockers and status is StepStatus.PENDING:
        suffix += " (blocked by " + ", ".join(str(b) for b in blockers) + ")"
    if rollup is not None and status.is_open:
        suffix += f" ({rollup[0]}/{rollup[1]} done)"
    return text + suffix


def checklist(plan: Plan, escape: Escape = escape_inline) -> tuple[ChecklistLine, ...]:
    """Every step of `plan` as a :class:`ChecklistLine`, in order."""
    return tuple(
        ChecklistLine(
            number,
            step.status,
            line_text(step, plan.blocked_by(step), escape, rollup=plan.rollup(step)),
            plan.depth(step),
        )
        for number, step in enumerate(plan.steps, start=1)
    )


def render(plan: Plan, escape: Escape = escape_inline) -> str:
    """The plan as a Markdown checklist, or :data:`NO_PLAN` when it has no steps."""
    if not plan.steps:
        return NO_PLAN
    return "\n".join(line.markdown() for line in checklist(plan, escape))


# ---- reading a checklist back ------------------------------------------------------------

_SUFFIX_WORD = {
    StepStatus.IN_PROGRESS: "in progress",
    StepStatus.FAILED: "failed",
    StepStatus.SKIPPED: "skipped",
}
_ITEM_LINE = re.compile(r"^([ \t]{0,24})(?:[-*+]|\d{1,9}[.)])\s+\[([ xX])\](?:\s+(.*))?$")
_NUMBER = re.compile(r"^(\d{1,9})[.)]\s+")
_SUFFIX = re.compile(
    r"\s\((in progress|failed|skipped)(?: by ([^\s:()]{1,128}))?(?::\s(.*))?\)$", re.IGNORECASE
)
_ROLLUP = re.compile(r"\s\(\d{1,7}/\d{1,7} done\)$")
_APPROVAL = re.compile(r"\s\(needs approval\)$", re.IGNORECASE)
_BLOCKED = re.compile(r"\s\(blocked by (\d{1,7}(?:, \d{1,7})*)\)$", re.IGNORECASE)
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_BY_WORD = {word: status for status, word in _SUFFIX_WORD.items()}


@dataclass(frozen=True, slots=True)
class ChecklistItem:
    """One task item read from Markdown (HTML entities decoded).

    `parent` is the 1-based position, among the items read, of the item this one is
    nested under (by indentation); `owner` the worker named by ``(in progress by NAME)``.
    """

    number: int | None
    text: str
    status: StepStatus
    note: str | None = None
    blocked_by: tuple[int, ...] = ()
    requires_approval: bool = False
    parent: int | None = None
    owner: str | None = None


def parse_checklist(text: str, max_line: int | None = None) -> list[ChecklistItem]:
    """The task items (``- [ ]``, ``* [x]``, ``1. [ ]``) of a Markdown text, in order.

    Other lines and fenced code blocks are ignored. A checked box is DONE, an empty one
    PENDING, unless the item ends with ``(in progress)``, ``(failed)`` or ``(skipped)``
    (each optionally ``: note``); ``Text — note`` carries a note; ``(needs approval)``
    flags the step; ``(blocked by 1, 2)`` names the steps it waits for; an item indented
    under another is its sub-step.

    Raises:
        ValueError: an item line is longer than `max_line` characters (names the item).
    """
    items: list[ChecklistItem] = []
    fenced = False
    open_items: list[tuple[int, int]] = []  # (indent, position) of the items nested so far
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        match = None if fenced else _ITEM_LINE.match(line)
        if match is None:
            continue
        if max_line is not None and len(line) > max_line:
            raise ValueError(f"task item {len(items) + 1} is longer than {max_line} characters")
        indent = len(match.group(1).expandtabs(4))
        while open_items and open_items[-1][0] >= indent:
            open_items.pop()
        parent = open_items[-1][1] if open_items else None
        items.append(_item(match.group(2) != " ", match.group(3) or "", parent))
        open_items.append((indent, len(items)))
    return items


def _item(checked: bool, body: str, parent: int | None = None) -> ChecklistItem:
    body = body.strip()
    if found := _ROLLUP.search(body):
        body = body[: found.start()]
    number = None
    if numbered := _NUMBER.match(body):
        number, body = int(numbered.group(1)), body[numbered.end() :]
    blocked: tuple[int, ...] = ()
    if found := _BLOCKED.search(body):
        blocked = tuple(int(n) for n in found.group(1).split(", "))
        body = body[: found.start()]
    approval = bool(found := _APPROVAL.search(body))
    if found:
        body = body[: found.start()]
    status = StepStatus.DONE if checked else StepStatus.PENDING
    note = owner = None
    if suffix := _SUFFIX.search(body):
        status, owner, note = _BY_WORD[suffix.group(1).lower()], suffix.group(2), suffix.group(3)
        body = body[: suffix.start()]
        if status is StepStatus.SKIPPED and len(body) >= 4 and body[:2] == body[-2:] == "~~":
            body = body[2:-2]
    elif " — " in body:
        body, note = body.split(" — ", 1)
    return ChecklistItem(
        number,
        html.unescape(body),
        status,
        html.unescape(note) if note else None,
        blocked,
        approval,
        parent,
        html.unescape(owner) if owner else None,
    )
