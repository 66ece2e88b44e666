from __future__ import annotations

import pytest

from taskforce.plan import NO_PLAN, ChecklistItem, Plan, StepStatus, parse_checklist
from taskforce.plan.text import escape_inline


def test_escape_inline_html() -> None:
    assert escape_inline("<b>x</b>") == "&lt;b&gt;x&lt;/b&gt;"


def test_render_empty_and_numbering() -> None:
    assert Plan().render() == NO_PLAN == "No active plan."
    plan = Plan().replaced(["A", "B"]).with_status([1], StepStatus.DONE)
    plan = plan.with_status([2], StepStatus.PENDING, "waiting on <review>")
    assert plan.render() == "- [x] 1. A\n- [ ] 2. B — waiting on &lt;review&gt;"


def test_checklist_lines_are_what_render_joins() -> None:
    plan = Plan().replaced(
        ["A", {"description": "B <b>", "depends_on": [1], "requires_approval": True}, "C"]
    )
    plan = plan.with_status([1], StepStatus.FAILED, "boom").with_status([3], StepStatus.SKIPPED)
    lines = plan.checklist()
    assert [(line.number, line.status) for line in lines] == [
        (1, StepStatus.FAILED),
        (2, StepStatus.PENDING),
        (3, StepStatus.SKIPPED),
    ]
    assert lines[1].text == "B &lt;b&gt; (needs approval) (blocked by 1)"
    assert "\n".join(line.markdown() for line in lines) == plan.render()
    assert plan.render().splitlines()[2] == "- [x] 3. ~~C~~ (skipped)"


def test_parse_reads_back_every_status_note_approval_and_blocker() -> None:
    plan = Plan().replaced(
        ["A", "B", {"description": "C", "depends_on": [2], "requires_approval": True}, "D", "E"]
    )
    plan = plan.with_status([1], StepStatus.DONE, "ok")
    plan = plan.with_status([2], StepStatus.IN_PROGRESS, "half")
    plan = plan.with_status([4], StepStatus.FAILED, "boom")
    plan = plan.with_status([5], StepStatus.SKIPPED)
    assert parse_checklist(plan.render()) == [
        ChecklistItem(1, "A", StepStatus.DONE, "ok"),
        ChecklistItem(2, "B", StepStatus.IN_PROGRESS, "half"),
        ChecklistItem(3, "C", StepStatus.PENDING, None, (2,), requires_approval=True),
        ChecklistItem(4, "D", StepStatus.FAILED, "boom"),
        ChecklistItem(5, "E", StepStatus.SKIPPED),
    ]


def test_parse_ignores_prose_and_fenced_blocks_and_bounds_lines() -> None:
    text = "Intro\n```\n- [ ] not a step\n```\n* [x] real one\n1. [ ] numbered"
    items = parse_checklist(text)
    assert [(i.text, i.status) for i in items] == [
        ("real one", StepStatus.DONE),
        ("numbered", StepStatus.PENDING),
    ]
    with pytest.raises(ValueError, match="task item 1 is longer than 20 characters"):
        parse_checklist("- [ ] " + "x" * 30, max_line=20)
