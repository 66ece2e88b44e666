"""The ledger behind "completion needs evidence": which tool runs back which plan steps.

Unit tests of :class:`~taskforce.agent.backing.Backing` alone; the loop's behaviour with it
is tested through ``LeanAgent`` (``test_evidence_reuse.py``, ``test_parallel_and_guards.py``).
"""

from __future__ import annotations

import json
from typing import Any

from taskforce.agent import prompts
from taskforce.agent.backing import Backing, marks_done
from taskforce.agent.dispatch import Prepared
from taskforce.models.base import ToolCall
from taskforce.plan import Plan, StepStatus
from taskforce.plan.requests import NewPlan, SetStatus
from taskforce.plan.specs import StepSpec

PLAN = Plan().replaced(["Water every dry bed", "Tell me which beds were watered"])


def tool(name: str, **args: Any) -> Prepared:
    return Prepared(ToolCall("c", name, json.dumps(args)), args)


def done(*steps: int, note: str | None = None) -> Prepared:
    item = tool("planner", action="mark_done", step_index=list(steps))
    item.request = SetStatus(steps, StepStatus.DONE, note)
    return item


def ran(backing: Backing, item: Prepared, failed: bool = False) -> None:
    """What the guard does for a call that runs: counted when screened, then its result."""
    backing.count(item, planner=False)
    backing.ran(item.call.name, failed)


def test_a_step_needing_a_tool_is_refused_until_a_tool_ran_then_accepted() -> None:
    backing = Backing(["water_bed", "list_beds"])
    assert backing.unearned(done(1), PLAN) == [1]
    ran(backing, tool("water_bed", bed_id="GH-14"))
    assert backing.worked and backing.unbacked == 1
    assert backing.unearned(done(1), PLAN) == []
    backing.count(done(1), planner=True)  # the tick spends the work
    assert not backing.worked and backing.unbacked == 0


def test_a_failed_call_is_no_work_and_its_tool_keeps_the_step_open() -> None:
    backing = Backing(["water_bed", "list_beds"])
    ran(backing, tool("water_bed", bed_id="bed1"), failed=True)
    assert not backing.worked and backing.unbacked == 0
    ran(backing, tool("list_beds"))  # a lookup after the failures does not water a bed
    assert backing.worked
    assert backing.unearned(done(1), PLAN) == [1]
    ran(backing, tool("water_bed", bed_id="GH-14"))  # its own tool succeeded since
    assert backing.unearned(done(1), PLAN) == []


def test_a_step_that_emails_is_kept_open_while_sending_fails() -> None:
    """Commission (session 38): "Email the result to Bob and Carol", every send failed."""
    plan = Plan().replaced(["Email the result to both Bob and Carol"])
    backing = Backing(["send_email", "find_contact"])
    ran(backing, tool("send_email", to="Carol White"), failed=True)
    ran(backing, tool("find_contact", query="Carol White"))  # a lookup sends nothing
    assert backing.unearned(done(1), plan) == [1]
    ran(backing, tool("send_email", to="carol@example.com"))
    assert backing.unearned(done(1), plan) == []


def test_a_second_unearned_done_skips_the_step_with_the_right_note() -> None:
    backing = Backing(["water_bed"])
    first = done(1)
    backing.refuse(first, PLAN, [1])
    assert first.preset is not None and first.preset["error_type"] == "no_work_done"
    assert "water_bed" in first.preset["error"]
    second = done(1)
    backing.refuse(second, PLAN, [1])
    assert second.preset is None
    assert second.request == SetStatus((1,), StepStatus.SKIPPED, prompts.SKIPPED_NOTE)


def test_a_skip_after_failures_says_the_calls_failed() -> None:
    backing = Backing(["water_bed"])
    ran(backing, tool("water_bed", bed_id="bed1"), failed=True)
    backing.refuse(done(1), PLAN, [1])
    again = done(1)
    backing.refuse(again, PLAN, [1])
    assert again.request == SetStatus((1,), StepStatus.SKIPPED, prompts.FAILED_NOTE)


def test_work_after_a_refusal_lets_the_next_refusal_be_a_refusal_again() -> None:
    backing = Backing(["water_bed"])
    backing.refuse(done(1), PLAN, [1])
    ran(backing, tool("water_bed", bed_id="GH-14"))
    item = done(1)
    backing.refuse(item, PLAN, [1])
    assert item.preset is not None and marks_done(item)  # refused, not skipped


def test_a_done_with_the_models_own_note_is_taken_as_its_account() -> None:
    assert Backing().unearned(done(1, note="watered GH-14 by hand"), PLAN) == []


TWO = Plan().replaced(["List the beds", "Water bed GH-14"])


def test_a_repeat_of_a_run_made_early_backs_the_later_step() -> None:
    backing = Backing(["water_bed", "list_beds"])
    ran(backing, tool("list_beds"))
    ran(backing, tool("water_bed", bed_id="GH-14"))  # step 2's work, done early
    assert backing.unearned(done(1), TWO) == []
    backing.count(done(1), planner=True)
    after = TWO.with_status([1], StepStatus.DONE)
    repeat = tool("water_bed", bed_id="GH-14")  # answered with the earlier result
    backing.reuse(repeat, {"success": True, "output": "watered"}, after)
    assert repeat.reused and repeat.preset == {
        "success": True,
        "output": "watered",
        "note": prompts.REUSED,
    }
    assert backing.worked and backing.unearned(done(2), after) == []


def test_a_repeat_of_the_run_that_backs_a_step_is_no_evidence() -> None:
    backing = Backing(["water_bed", "list_beds"])
    ran(backing, tool("list_beds"))
    assert backing.unearned(done(1), TWO) == []  # the one run backs step 1
    backing.count(done(1), planner=True)
    after = TWO.with_status([1], StepStatus.DONE)
    repeat = tool("list_beds")
    backing.reuse(repeat, {"success": True, "output": ["GH-14"]}, after)
    assert not repeat.reused and repeat.preset is None
    assert backing.unearned(done(2), after) == [2]


def test_a_repeat_of_a_failure_is_never_work() -> None:
    backing = Backing(["water_bed"])
    repeat = tool("water_bed", bed_id="bed1")
    backing.reuse(repeat, {"success": False, "error": "no bed"}, TWO)
    assert not repeat.reused and not backing.worked


def test_a_new_plan_starts_the_ledger_again() -> None:
    backing = Backing(["water_bed"])
    ran(backing, tool("water_bed", bed_id="GH-14"))
    new = tool("planner", action="create_plan", tasks=["a"])
    new.request = NewPlan((StepSpec("a"),))
    backing.count(new, planner=True)
    assert not backing.worked and backing.unbacked == 0


def test_marks_done_is_only_a_done() -> None:
    assert marks_done(done(1))
    skipped = done(1)
    skipped.request = SetStatus((1,), StepStatus.SKIPPED)
    assert not marks_done(skipped) and not marks_done(tool("water_bed"))


def test_a_repeat_of_the_current_steps_own_run_adds_no_work() -> None:
    backing = Backing(["water_bed", "list_beds"])
    ran(backing, tool("list_beds"))  # step 1's run, not ticked yet
    repeat = tool("list_beds")
    backing.reuse(repeat, {"success": True, "output": ["GH-14"]}, TWO)
    assert not repeat.reused  # one run: it backs one step, not two
    assert backing.unearned(done(1, 2), TWO) == [2]


def result(name: str, success: bool, call_id: str) -> list[dict[str, Any]]:
    """A call of `name` and its result, as the conversation stores them."""
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
    content = json.dumps({"success": success, "output": "ok"} if success else {"success": False})
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": content},
    ]


def test_a_skipped_step_whose_own_tools_never_succeeded_is_undone() -> None:
    backing = Backing(["save_note", "list_notes"])
    plan = Plan().replaced(["Save three notes", "Count the notes"])
    skipped = plan.with_status([1], StepStatus.SKIPPED, prompts.SKIPPED_NOTE)
    assert backing.undone(skipped, []) == ["step 1: Save three notes (save_note)"]
    history = result("list_notes", True, "a") + result("save_note", False, "b")
    assert backing.undone(skipped, history) == ["step 1: Save three notes (save_note)"]
    history += result("save_note", True, "c")  # done in another call (or an earlier run)
    assert backing.undone(skipped, history) == []
    tried = plan.with_status([1], StepStatus.SKIPPED, prompts.FAILED_NOTE)  # its calls failed
    assert backing.undone(tried, []) == []
    by_model = plan.with_status([1], StepStatus.SKIPPED, "not needed")  # the model's own skip
    assert backing.undone(by_model, []) == []
    vague = Plan().replaced(["Check if fewer than 10 apples"])  # names no tool: not judged
    vague = vague.with_status([1], StepStatus.SKIPPED, prompts.SKIPPED_NOTE)
    assert Backing(["read_file", "write_file"]).undone(vague, []) == []
