from __future__ import annotations

import pytest

from taskforce.checklist import NO_PLAN, clean_text, escape_inline, render_checklist
from taskforce.plan import Step, StepStatus


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("- [ ] 1. Do it", "Do it"),
        ("* [x] Done thing", "Done thing"),
        ("Step 3: write tests", "write tests"),
        ("2) second", "second"),
        ("## Heading", "Heading"),
        ("> quoted", "quoted"),
        ("1.5 litres of milk", "1.5 litres of milk"),
        ("Normal text - with dash", "Normal text - with dash"),
        ("multi\r\nline\ttext", "multi line text"),
        ("nul\x00and\u202ebidi\u2028sep", "nul and bidi sep"),
        ("   ", ""),
        ("1.", ""),
        ("emoji 🚀 ünïcödé 日本語", "emoji 🚀 ünïcödé 日本語"),
    ],
)
def test_clean_text(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


def test_escape_inline_html() -> None:
    assert escape_inline("<b>x</b>") == "&lt;b&gt;x&lt;/b&gt;"


def test_render_empty_and_numbering() -> None:
    assert render_checklist([]) == NO_PLAN == "No active plan."
    steps = [
        Step(id="s1", description="A", status=StepStatus.DONE),
        Step(id="s2", description="B", note="waiting on <review>"),
    ]
    assert render_checklist(steps) == "- [x] 1. A\n- [ ] 2. B — waiting on &lt;review&gt;"


def test_render_state_matches_plan_render_with_blockers_and_approval() -> None:
    from taskforce.checklist import render_state
    from taskforce.plan import Plan

    plan = Plan()
    plan.replace(
        [
            "A",
            {"description": "B <b>", "depends_on": [1], "requires_approval": True},
            {"description": "C", "depends_on": [1, 2]},
        ]
    )
    plan.set_status([1], StepStatus.FAILED, "boom")
    assert render_state(plan.to_state()) == plan.render()
    assert "(blocked by 1)" in plan.render()
    assert render_state(None) == NO_PLAN
    assert render_state({"tasks": ["junk", {"description": "x", "status": 3}]}) == "- [ ] 1. x"
