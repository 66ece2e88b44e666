"""Documents and sessions shared by the document tests."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from taskforce.documents import Criterion, LogRow, PlanDocument
from taskforce.plan import Plan, StepStatus
from taskforce.store import StateManager

T0 = datetime(2026, 2, 3, 9, 15, tzinfo=UTC)
T = datetime(2026, 2, 3, 9, 0, tzinfo=UTC)


def newsletter_state() -> dict[str, Any]:
    return {
        "tasks": [
            {
                "id": "s1",
                "description": "Gather newsletter content",
                "status": "DONE",
                "note": "3 posts, 2 product updates",
                "started_at": "2026-02-03T09:15:10Z",
                "completed_at": "2026-02-03T09:16:00Z",
            },
            {
                "id": "s2",
                "description": "Draft email template",
                "status": "DONE",
                "depends_on": ["s1"],
                "completed_at": "2026-02-03T09:18:00Z",
            },
            {
                "id": "s3",
                "description": "Review subscriber list",
                "status": "IN_PROGRESS",
                "retries": 1,
            },
            {
                "id": "s4",
                "description": "Send newsletter to <all> subscribers",
                "status": "PENDING",
                "depends_on": ["s2", "s3"],
                "requires_approval": True,
                "channel": "email",
            },
            {
                "id": "s6",
                "description": "Post on social media",
                "status": "SKIPPED",
                "note": "no account",
            },
        ],
        "version": 9,
        "revision": 2,
        "next_id": 7,
    }


def newsletter_doc() -> PlanDocument:
    return PlanDocument(
        id="plan_20260203_091500",
        objective="Send weekly newsletter to all subscribers",
        status="running",
        plan=Plan.from_state(newsletter_state()),
        created_at=T0,
        success_criteria=(
            Criterion("Newsletter content gathered from this week's updates", met=True),
            Criterion("All active subscribers receive the email"),
            Criterion("Delivery rate > 95%"),
        ),
        log=(
            LogRow("2026-02-03T09:15:00Z", "-", "Plan created", "-"),
            LogRow("2026-02-03T09:16:00Z", "1", "Gather newsletter content", "✅ done"),
            LogRow("2026-02-03T09:18:00Z", "2", "Draft email template", "✅ done"),
            LogRow("2026-02-03T09:18:30Z", "3", "Review subscriber list", "⏳ in_progress"),
        ),
    )


@dataclass(frozen=True)
class Summary:
    """A stand-in for taskforce.store.SessionSummary (plain data)."""

    session_id: str
    title: str | None
    status: str | None
    steps_done: int
    steps_total: int
    created_at: datetime
    updated_at: datetime
    version: int = 1


async def run_session(store: StateManager, session_id: str, *, finish: bool = False) -> None:
    """A session whose plan is created, worked on and (optionally) finished."""
    plan = Plan().replaced(
        ["Research sources", {"description": "Write the summary", "depends_on": [1]}, "Email it"]
    )
    state: dict[str, Any] = {"mission": f"Research for {session_id}", "status": "running"}
    version = await store.save_state(session_id, {**state, "plan": plan.to_state()}, 0)
    plan = plan.with_status([1], StepStatus.DONE, "found 3", now=T)
    plan = plan.with_status([2], StepStatus.IN_PROGRESS, now=T)
    version = await store.save_state(session_id, {**state, "plan": plan.to_state()}, version)
    if finish:
        plan = plan.with_status([2, 3], StepStatus.DONE, now=T)
        state["status"] = "completed"
        await store.save_state(session_id, {**state, "plan": plan.to_state()}, version)
