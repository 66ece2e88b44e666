"""The loop's texts: how a recitation shows the checklist."""

from __future__ import annotations

from taskforce.agent import prompts
from taskforce.plan import Plan


def _recited(tasks: list[dict[str, object]]) -> str:
    plan = Plan.from_state({"tasks": tasks})
    return prompts.recited(plan.checklist(), [bool(s.note) for s in plan.steps])


def test_finished_steps_are_named_by_number_and_open_ones_keep_their_lines() -> None:
    text = _recited(
        [
            {"description": "Read sales.csv", "status": "DONE"},
            {"description": "Convert it", "status": "SKIPPED"},
            {"description": "Write report.txt", "status": "PENDING"},
            {"description": "Email Alice", "status": "IN_PROGRESS"},
        ]
    )
    assert text.splitlines() == [
        "Done: steps 1.",
        "Skipped: steps 2.",
        "- [ ] 3. Write report.txt",
        "- [ ] 4. Email Alice (in progress)",
    ]


def test_a_finished_step_with_a_note_keeps_its_line() -> None:
    text = _recited(
        [
            {"description": "Weather in Oslo", "status": "DONE", "note": "4°C, rain"},
            {"description": "Compute", "status": "DONE"},
            {"description": "Note", "status": "PENDING"},
        ]
    )
    assert "- [x] 1. Weather in Oslo — 4°C, rain" in text
    assert "Done: steps 2." in text and "Compute" not in text


def test_an_open_plan_shows_every_line_and_no_summary() -> None:
    text = _recited([{"description": "A"}, {"description": "B"}])
    assert text == "- [ ] 1. A\n- [ ] 2. B"
