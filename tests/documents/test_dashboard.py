"""The dashboard: counts, ordering, golden Markdown and JSON, determinism."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta, timezone

from taskforce.documents import render_dashboard_md, summarize
from tests.documents.golden_files import assert_golden
from tests.documents.samples import Summary

NOW = datetime(2026, 2, 3, 18, 0, tzinfo=UTC)


def sessions() -> list[Summary]:
    day = timedelta(days=1)
    return [
        Summary(
            "newsletter",
            "Send weekly newsletter",
            "running",
            2,
            4,
            NOW - day,
            NOW - timedelta(hours=1),
        ),
        Summary("taxes", "File taxes | 2025", "paused", 1, 5, NOW - 3 * day, NOW - 2 * day),
        Summary(
            "report",
            "Write <quarterly> report",
            "completed",
            3,
            3,
            NOW - day,
            NOW - timedelta(hours=5),
        ),
        Summary("old-report", "Write last report", "completed", 3, 3, NOW - 9 * day, NOW - 8 * day),
        Summary(
            "deploy", "Deploy v2\nto staging", "failed", 1, 3, NOW - day, NOW - timedelta(hours=3)
        ),
        Summary("long-run", None, "max_steps", 4, 9, NOW - day, NOW - timedelta(hours=2)),
        Summary("fresh", "Just created", None, 0, 0, NOW, NOW - timedelta(minutes=1)),
    ]


def test_counts() -> None:
    summary = summarize(sessions(), NOW)
    assert (summary.active_plans, summary.paused_plans, summary.completed_today) == (3, 1, 1)
    assert (summary.completed_plans, summary.failed_plans, len(summary.plans)) == (2, 1, 7)
    data = summary.to_dict()
    assert {k: data[k] for k in ("active_plans", "paused_plans", "completed_today")} == {
        "active_plans": 3,
        "paused_plans": 1,
        "completed_today": 1,
    }
    assert data["plans"][0] == {
        "id": "fresh",
        "objective": "Just created",
        "status": "pending",
        "steps_done": 0,
        "steps_total": 0,
        "updated_at": "2026-02-03T17:59:00Z",
    }


def test_rows_are_newest_first_whatever_the_input_order() -> None:
    rows = sessions()
    expected = summarize(rows, NOW).to_json()
    random.Random(7).shuffle(rows)
    assert summarize(rows, NOW).to_json() == expected
    ids = [r.id for r in summarize(rows, NOW).plans]
    assert ids[:3] == ["fresh", "newsletter", "long-run"]


def test_completed_today_uses_the_time_zone_of_now() -> None:
    finished = Summary(
        "late", "x", "completed", 1, 1, NOW, datetime(2026, 2, 3, 23, 30, tzinfo=UTC)
    )
    utc_now = datetime(2026, 2, 3, 23, 45, tzinfo=UTC)
    tokyo_now = utc_now.astimezone(timezone(timedelta(hours=9)))  # already Feb 4 there
    assert summarize([finished], utc_now).completed_today == 1
    assert summarize([finished], tokyo_now).completed_today == 1
    next_morning = datetime(2026, 2, 4, 9, 0, tzinfo=timezone(timedelta(hours=9)))
    assert summarize([finished], next_morning + timedelta(days=1)).completed_today == 0
    naive = Summary("n", "x", "completed", 1, 1, datetime(2026, 2, 3), datetime(2026, 2, 3, 12))
    assert summarize([naive], datetime(2026, 2, 3, 20)).completed_today == 1


def test_missing_status_is_derived_from_progress() -> None:
    rows = [
        Summary("a", "x", None, 0, 3, NOW, NOW),
        Summary("b", "x", None, 1, 3, NOW, NOW),
        Summary("c", "x", "  ", 3, 3, NOW, NOW),
    ]
    statuses = {r.id: r.status for r in summarize(rows, NOW).plans}
    assert statuses == {"a": "pending", "b": "running", "c": "completed"}


def test_empty() -> None:
    summary = summarize([], NOW)
    assert summary.to_dict()["plans"] == [] and summary.active_plans == 0
    assert "_No plans yet._" in render_dashboard_md(summary)


def test_golden_dashboard_md() -> None:
    summary = summarize(sessions(), NOW)
    links = {"report": "Done/report.md", "newsletter": "newsletter.md"}
    assert_golden("Dashboard.md", render_dashboard_md(summary, link=links.get))


def test_golden_dashboard_json() -> None:
    text = summarize(sessions(), NOW).to_json()
    assert_golden("dashboard.json", text)
    assert json.loads(text)["total_plans"] == 7


def test_byte_identical_output() -> None:
    a = render_dashboard_md(summarize(sessions(), NOW)).encode()
    assert a == render_dashboard_md(summarize(sessions(), NOW)).encode()
    assert "<quarterly>" not in a.decode() and "File taxes \\| 2025" in a.decode()
