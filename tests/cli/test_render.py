"""Rendering agent events: the live view (on a forced terminal) and plain lines."""

from __future__ import annotations

import io

from rich.console import Console

from taskforce.agent.events import AgentEvent, EventKind
from taskforce.cli._checklist import checklist_text
from taskforce.cli._render import EventPrinter, LiveView, describe_call
from taskforce.plan import Plan, StepStatus

PLAN = "- [x] 1. Research — found 3\n- [ ] 2. Write (in progress)\n- [ ] 3. Ship (failed: boom)\n" \
       "- [x] 4. ~~Polish~~ (skipped)\n- [ ] 5. Party &lt;3"  # fmt: skip


def _events() -> list[AgentEvent]:
    return [
        AgentEvent(EventKind.LLM_CALL, {"step": 1, "usage": {"prompt_tokens": 3}}),
        AgentEvent(
            EventKind.TOOL_CALL,
            {
                "name": "planner",
                "arguments": {"action": "mark_done", "step_index": [2], "status": "IN_PROGRESS"},
            },
        ),
        AgentEvent(
            EventKind.TOOL_RESULT,
            {"name": "planner", "success": True, "result": {"success": True, "message": "Step 2."}},
        ),
        AgentEvent(EventKind.PLAN_UPDATED, {"markdown": PLAN, "version": 3}),
        AgentEvent(EventKind.TOOL_CALL, {"name": "search", "arguments": {"q": "x" * 500}}),
        AgentEvent(
            EventKind.TOOL_RESULT,
            {
                "name": "search",
                "success": False,
                "result": {"success": False, "error": "no network"},
            },
        ),
        AgentEvent(EventKind.ERROR, {"message": "context overflow", "recovered": True}),
    ]


def test_checklist_text_marks_each_status() -> None:
    text = checklist_text(PLAN).plain.splitlines()
    assert text == [
        "✔ 1. Research — found 3",
        "▶ 2. Write (in progress)",
        "✗ 3. Ship (failed: boom)",
        "⊘ 4. Polish (skipped)",
        "○ 5. Party <3",
    ]
    assert checklist_text("No active plan.").plain == "No active plan."


def test_checklist_text_of_a_plan_colours_its_steps_as_the_text_does() -> None:
    """From the steps themselves or from their checklist (the one parser): the same lines."""
    plan = Plan.of(["Research", "Write", "Ship", "Polish", "Party <3"])
    plan = plan.with_status([1], StepStatus.DONE, "found 3").with_status([4], StepStatus.SKIPPED)
    plan = plan.with_status([3], StepStatus.FAILED, "boom").with_status([2], StepStatus.IN_PROGRESS)
    assert checklist_text(plan).plain.splitlines() == checklist_text(PLAN).plain.splitlines()
    assert checklist_text(Plan()).plain == "No active plan."
    nested = Plan().replaced(["Build", {"description": "Pages", "parent": 1}])
    expected = ["○ 1. Build (0/1 done)", "  ○ 2. Pages"]
    assert checklist_text(nested).plain.splitlines() == expected
    assert checklist_text(nested.render()).plain.splitlines() == expected
    marks = [span.style for span in checklist_text(plan).spans]
    assert "green" in marks and "red" in marks and "bold yellow" in marks


def test_describe_call_is_short_and_single_line() -> None:
    line = describe_call({"name": "planner", "arguments": '{"action": "read_plan"}'})
    assert line == "planner read_plan"
    long = describe_call({"name": "t", "arguments": {"a": "x\n" * 400}})
    assert "\n" not in long and len(long) <= 110 and long.endswith("…")
    assert describe_call({"name": "t", "arguments": "not json"}) == "t not json"


def test_plain_printer_lines() -> None:
    out = io.StringIO()
    printer = EventPrinter(Console(file=out, width=200, soft_wrap=True))
    for event in _events():
        printer(event)
    printer(AgentEvent(EventKind.ERROR, {"message": "fatal", "recovered": False}))
    lines = out.getvalue().splitlines()
    assert "→ planner mark_done step_index=[2] status='IN_PROGRESS'" in lines
    assert "← Step 2." in lines and "✗ no network" in lines
    assert "plan:" in lines and "- [ ] 2. Write (in progress)" in lines
    assert "! context overflow" in lines and not any("fatal" in line for line in lines)
    assert printer.last_plan == PLAN
    assert "\x1b[" not in out.getvalue()  # no colour codes in plain mode


def test_live_view_shows_plan_calls_and_spinner() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with LiveView(console, "taskforce · session s1 · model offline") as view:
        for event in _events()[:4]:
            view(event)
        frame = Console(file=io.StringIO(), width=100, force_terminal=False)
        frame.print(view._render())
        text = frame.file.getvalue()  # type: ignore[attr-defined]
    assert "taskforce · session s1" in text
    assert "▶ 2. Write (in progress)" in text
    assert "thinking (call 2)" in text  # after a tool result the model is asked next
    assert view.tool_calls == 1 and view.last_plan == PLAN
    assert "\x1b[" in out.getvalue()  # it really drew on the (forced) terminal
    # the calls are not part of the redrawn region: they were printed above it, for good
    assert "→ planner" not in text and "→ planner mark_done" in out.getvalue()


def test_plain_printer_shows_the_plan_when_its_steps_change() -> None:
    out = io.StringIO()
    printer = EventPrinter(Console(file=out, width=200, soft_wrap=True), every_plan=False)
    made = "- [ ] 1. A\n- [ ] 2. B"
    for plan in (made, "- [ ] 1. A (in progress)\n- [ ] 2. B", "- [x] 1. A\n- [ ] 2. B"):
        printer(AgentEvent(EventKind.PLAN_UPDATED, {"markdown": plan}))
    assert out.getvalue().count("plan:") == 1 and printer.last_plan == made  # status only
    printer(AgentEvent(EventKind.PLAN_UPDATED, {"markdown": "- [x] 1. A\n- [ ] 2. C"}))
    assert out.getvalue().count("plan:") == 2  # a step reworded: shown again
