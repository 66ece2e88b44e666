"""The dashboard: counts of active, paused and completed-today plans, and one row per plan.

From plain session summaries (anything with the :class:`SessionLike` attributes, such as
``taskforce.store.SessionSummary``) and an explicit ``now``, so the same input always
gives the same summary, JSON and ``Dashboard.md``.

Counting rules: ``completed`` sessions count as completed (and as *completed today* when
last updated on ``now``'s calendar day, in ``now``'s time zone); ``paused`` as paused;
``failed`` as failed; every other status (``running``, ``max_steps``, none...) as active.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from taskforce.documents._text import encode_cell, format_time, write_frontmatter
from taskforce.plan import lifecycle_status


class SessionLike(Protocol):
    """What the dashboard reads of a session listing row."""

    @property
    def session_id(self) -> str:
        """The session id."""
        ...

    @property
    def title(self) -> str | None:
        """The title or mission."""
        ...

    @property
    def status(self) -> str | None:
        """The session status."""
        ...

    @property
    def steps_done(self) -> int:
        """Steps done."""
        ...

    @property
    def steps_total(self) -> int:
        """All steps."""
        ...

    @property
    def updated_at(self) -> datetime:
        """When it was last saved."""
        ...


@dataclass(frozen=True, slots=True)
class DashboardRow:
    """One plan on the dashboard."""

    id: str
    objective: str
    status: str
    steps_done: int
    steps_total: int
    updated_at: datetime

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (fixed key order)."""
        return {
            "id": self.id,
            "objective": self.objective,
            "status": self.status,
            "steps_done": self.steps_done,
            "steps_total": self.steps_total,
            "updated_at": format_time(self.updated_at),
        }


@dataclass(frozen=True, slots=True)
class DashboardSummary:
    """The dashboard's counts and rows (newest first)."""

    generated_at: datetime
    active_plans: int
    paused_plans: int
    completed_today: int
    completed_plans: int
    failed_plans: int
    plans: tuple[DashboardRow, ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (fixed key order)."""
        return {
            "generated_at": format_time(self.generated_at),
            "active_plans": self.active_plans,
            "paused_plans": self.paused_plans,
            "completed_today": self.completed_today,
            "completed_plans": self.completed_plans,
            "failed_plans": self.failed_plans,
            "total_plans": len(self.plans),
            "plans": [r.to_dict() for r in self.plans],
        }

    def to_json(self) -> str:
        """Deterministic JSON (2-space indent, UTF-8 text, trailing newline)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"


_STATUS = re.compile(r"[a-z][a-z0-9_-]{0,31}")


def session_status(stored: object, done: int, total: int, *, started: bool = False) -> str:
    """A session's status: the one it stored, else derived from its plan's progress.

    The derivation is the plan's own (:func:`taskforce.plan.lifecycle_status`), in the
    session's words: a plan in progress means the session is ``running``.
    """
    if isinstance(stored, str) and _STATUS.fullmatch(stored.strip().lower()):
        return stored.strip().lower()
    derived = lifecycle_status(done, total, started=started or done > 0)
    return "running" if derived == "in_progress" else derived


def summarize(sessions: Iterable[SessionLike], now: datetime) -> DashboardSummary:
    """The dashboard for `sessions` as of `now` (naive `now` means UTC)."""
    zone = now.tzinfo or UTC
    today = now.astimezone(zone).date() if now.tzinfo else now.date()
    rows = sorted(
        (
            DashboardRow(
                s.session_id,
                (s.title or "").strip(),
                session_status(s.status, s.steps_done, s.steps_total),
                s.steps_done,
                s.steps_total,
                s.updated_at if s.updated_at.tzinfo else s.updated_at.replace(tzinfo=UTC),
            )
            for s in sessions
        ),
        key=lambda r: (-r.updated_at.timestamp(), r.id),
    )
    counts = {"completed": 0, "paused": 0, "failed": 0}
    today_count = 0
    for row in rows:
        if row.status in counts:
            counts[row.status] += 1
        if row.status == "completed" and row.updated_at.astimezone(zone).date() == today:
            today_count += 1
    active = len(rows) - sum(counts.values())
    return DashboardSummary(
        generated_at=now,
        active_plans=active,
        paused_plans=counts["paused"],
        completed_today=today_count,
        completed_plans=counts["completed"],
        failed_plans=counts["failed"],
        plans=tuple(rows),
    )


def render_dashboard_md(
    summary: DashboardSummary, link: Callable[[str], str | None] | None = None
) -> str:
    """``Dashboard.md`` text. `link(plan_id)` may return a relative path to link the id to."""
    front = write_frontmatter(
        [
            ("generated_at", format_time(summary.generated_at)),
            ("active_plans", summary.active_plans),
            ("paused_plans", summary.paused_plans),
            ("completed_today", summary.completed_today),
        ]
    )
    out = [front, "# Dashboard", "", f"As of {format_time(summary.generated_at)}.", ""]
    out += [
        "| Active | Paused | Completed today | Completed | Failed | Total |",
        "|--------|--------|-----------------|-----------|--------|-------|",
        f"| {summary.active_plans} | {summary.paused_plans} | {summary.completed_today} "
        f"| {summary.completed_plans} | {summary.failed_plans} | {len(summary.plans)} |",
        "",
        "## Plans",
        "",
    ]
    if not summary.plans:
        out.append("_No plans yet._")
    else:
        out += [
            "| Plan | Objective | Status | Progress | Updated |",
            "|------|-----------|--------|----------|---------|",
        ]
        for row in summary.plans:
            target = link(row.id) if link else None
            name = encode_cell(row.id)
            if target:
                name = f"[{name}]({target.replace('%', '%25').replace(' ', '%20')})"
            cells = [
                name,
                encode_cell(" ".join(row.objective.split())[:200]) or "-",
                encode_cell(row.status),
                f"{row.steps_done}/{row.steps_total}",
                format_time(row.updated_at),
            ]
            out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
