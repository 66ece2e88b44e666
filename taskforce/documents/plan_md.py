"""Plan.md: a session's plan as a Markdown document, written and read back exactly.

Layout (Obsidian-friendly; every value a user sees is also what is read back)::

    ---
    id: "research-1"
    objective: "Research X and email a summary"
    status: "running"
    created_at: "2026-02-03T09:15:00Z"
    completed_at: null
    plan_version: 3
    next_id: 4
    ---

    # Plan: Research X and email a summary

    ## Objective
    ## Success Criteria      (- [ ] / - [x] items)
    ## Steps                 (### Step N: text, then Id, Status, Requires Approval,
                              Dependencies, Parent, Owner, Lease Until, Completed,
                              Note, Text, Extra bullets)
    ## Execution Log         (| Time | Step | Action | Result |)

The frontmatter is authoritative for the objective and status; headings are for reading.
Text that would not survive as plain Markdown (newlines, leading quotes, ``&lt;``...) is
written as a JSON string, so :func:`parse_plan_md` of :func:`render_plan_md` gives back
the same document (and the same plan: ids, statuses, notes, dependencies, sub-steps
(``Parent``), owners and leases, approval flags, times, retries and unknown step keys).
Rendering is deterministic: no clock, fixed order, LF line ends.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from taskforce.documents._text import (
    encode_cell,
    encode_line,
    format_time,
    heading_text,
    write_frontmatter,
)
from taskforce.plan import Plan, Step, StepStatus
from taskforce.plan.text import escape_inline

KNOWN_STEP_KEYS = frozenset(
    {"id", "description", "status", "note", "depends_on", "requires_approval"}
)

STATUS_LABELS: dict[str, str] = {
    StepStatus.DONE: "✅ done",
    StepStatus.IN_PROGRESS: "⏳ in_progress",
    StepStatus.PENDING: "⏸️ pending",
    StepStatus.FAILED: "❌ failed",
    StepStatus.SKIPPED: "⏭️ skipped",
}
"""How each step status is shown (the last word is what is read back); StepStatus keys
(a str enum, so its names look them up too)."""


@dataclass(frozen=True, slots=True)
class Criterion:
    """A success criterion and whether it is met."""

    text: str
    met: bool = False


@dataclass(frozen=True, slots=True)
class LogRow:
    """One row of the execution log (all text; cells are stripped)."""

    time: str
    step: str
    action: str
    result: str

    def __post_init__(self) -> None:
        for name in ("time", "step", "action", "result"):
            object.__setattr__(self, name, str(getattr(self, name)).strip())

    def to_dict(self) -> dict[str, str]:
        """Plain data (as stored under ``state["execution_log"]``)."""
        return {"time": self.time, "step": self.step, "action": self.action, "result": self.result}


@dataclass(frozen=True)
class PlanDocument:
    """Everything a Plan.md holds.

    Attributes:
        id: the session (plan) id.
        objective: what the plan is for (the session's mission or title).
        status: the session status (``running``, ``paused``, ``completed``...).
        plan: the steps (statuses, notes, dependencies, approval flags, other keys).
        created_at: when the session started, if known.
        completed_at: when it completed, if it did.
        title: the session title, when it differs from the objective.
        success_criteria: what "done" means, each possibly met.
        log: the execution log, oldest first.
    """

    id: str
    objective: str
    status: str
    plan: Plan = field(default_factory=Plan)
    created_at: datetime | None = None
    completed_at: datetime | None = None
    title: str | None = None
    success_criteria: tuple[Criterion, ...] = ()
    log: tuple[LogRow, ...] = ()


def render_plan_md(doc: PlanDocument) -> str:
    """The document as Plan.md text (deterministic; see the module docstring)."""
    front: list[tuple[str, str | int | None]] = [
        ("id", doc.id),
        ("objective", doc.objective),
    ]
    if doc.title is not None:
        front.append(("title", doc.title))
    front += [
        ("status", doc.status),
        ("created_at", format_time(doc.created_at) if doc.created_at else None),
        ("completed_at", format_time(doc.completed_at) if doc.completed_at else None),
        ("plan_version", doc.plan.version),
        ("plan_revision", doc.plan.revision),
        ("next_id", doc.plan.next_id),
    ]
    out = [write_frontmatter(front), f"# Plan: {heading_text(doc.objective)}", ""]
    out += ["## Objective", "", _objective_body(doc.objective), ""]
    out += ["## Success Criteria", ""]
    if doc.success_criteria:
        out += [f"- [{'x' if c.met else ' '}] {encode_line(c.text)}" for c in doc.success_criteria]
    else:
        out.append("_None recorded._")
    out += ["", "## Steps", ""]
    numbers = {s.id: n for n, s in enumerate(doc.plan.steps, start=1)}
    if not doc.plan.steps:
        out += ["_No steps._", ""]
    for number, step in enumerate(doc.plan.steps, start=1):
        out += _render_step(number, step, numbers)
    out += ["## Execution Log", ""]
    if doc.log:
        out += ["| Time | Step | Action | Result |", "|------|------|--------|--------|"]
        out += [
            "| " + " | ".join(encode_cell(c) for c in (r.time, r.step, r.action, r.result)) + " |"
            for r in doc.log
        ]
    else:
        out.append("_No entries._")
    return "\n".join(out) + "\n"


def _objective_body(objective: str) -> str:
    if not objective.strip():
        return "_None._"
    lines = []
    for line in objective.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        stripped = line.lstrip()
        if stripped.startswith(("#", "|", "---", "```")):
            line = "\\" + stripped
        lines.append(escape_inline(line.rstrip()))
    return "\n".join(lines).strip("\n")


def _render_step(number: int, step: Step, numbers: Mapping[str, int]) -> list[str]:
    lines = [f"### Step {number}: {heading_text(step.description)}", ""]
    lines.append(f"- **Id**: {encode_line(step.id)}")
    lines.append(f"- **Status**: {STATUS_LABELS[step.status.value]}")
    lines.append(f"- **Requires Approval**: {'Yes' if step.requires_approval else 'No'}")
    deps = [f"Step {numbers[d]}" if d in numbers else encode_line(d) for d in step.depends_on]
    lines.append(f"- **Dependencies**: {', '.join(deps) if deps else 'None'}")
    if step.parent is not None:
        parent = step.parent
        shown = f"Step {numbers[parent]}" if parent in numbers else encode_line(parent)
        lines.append(f"- **Parent**: {shown}")
    if step.owner is not None:
        lines.append(f"- **Owner**: {encode_line(step.owner)}")
    if step.lease_until is not None:
        lines.append(f"- **Lease Until**: {format_time(step.lease_until)}")
    if step.started_at is not None:
        lines.append(f"- **Started**: {format_time(step.started_at)}")
    if step.completed_at is not None:
        lines.append(f"- **Completed**: {format_time(step.completed_at)}")
    if step.retries:
        lines.append(f"- **Retries**: {step.retries}")
    if step.note is not None:
        lines.append(f"- **Note**: {encode_line(step.note)}")
    if heading_text(step.description) != encode_line(step.description):
        lines.append(f"- **Text**: {encode_line(step.description)}")
    if step.extra:
        body = json.dumps(
            dict(step.extra), sort_keys=True, ensure_ascii=True, separators=(", ", ": ")
        )
        body = body.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        lines.append(f"- **Extra**: {body}")
    return [*lines, ""]
