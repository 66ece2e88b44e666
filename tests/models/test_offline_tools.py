"""The offline model with the demo tools: which tool fits a step, and real results."""

from __future__ import annotations

from pathlib import Path

import pytest

from taskforce.agent import LeanAgent
from taskforce.models import offline_tools
from taskforce.models.offline import NO_TOOL_NOTE, OfflineModel
from taskforce.models.offline_tools import Earlier, arithmetic, fit
from taskforce.store import MemoryStore
from taskforce.testing import ScriptedModel, call, reply
from taskforce.tools.demo import DEMO_TOOL_NAMES, demo_tools

ALL = set(DEMO_TOOL_NAMES)
MISSION = """Prepare a team offsite for 8 people:
1. Work out the food budget: 8 * 45 + 120
2. Note the venue options: Lakeside Hall or the Old Mill
3. Write the agenda to agenda.md
4. Book the venue"""


def test_the_rules_use_the_demo_tools_names() -> None:
    names = (offline_tools.CALCULATOR, offline_tools.WRITE_FILE, offline_tools.READ_FILE,
             offline_tools.LIST_FILES, offline_tools.ADD_NOTE)  # fmt: skip
    assert set(names) == ALL


@pytest.mark.parametrize(
    ("step", "tool", "args"),
    [
        ("Work out the budget: 8 * 45 + 120", "calculator", {"expression": "8 * 45 + 120"}),
        ("Add up (3 + 4) \u00d7 2 euros", "calculator", {"expression": "(3 + 4) \u00d7 2"}),
        ("Compute 2^10", "calculator", {"expression": "2^10"}),
        ("Estimate sqrt(2) * 100 metres", "calculator", {"expression": "sqrt(2) * 100"}),
        ("Note the options: Lakeside Hall", "add_note", {"text": "Options: Lakeside Hall"}),
        ("Jot down the dates", "add_note", {"text": "Dates"}),
        ("Read agenda.md", "read_file", {"path": "agenda.md"}),
        ("List the files", "list_files", {}),
    ],
)
def test_fit_picks_the_tool_and_its_arguments(step: str, tool: str, args: dict[str, str]) -> None:
    assert fit(step, 1, ALL, "mission", []) == (tool, args)


@pytest.mark.parametrize(
    ("step", "name"),
    [
        ("Write the agenda to agenda.md", "agenda.md"),
        ("Save the numbers in notes/budget.csv", "notes/budget.csv"),
        ("Draft the agenda for the day", "agenda.md"),
        ("Write a short invitation to the team", "short-invitation.md"),
        ("Prepare the report", "report.md"),
        ("Summarise", "step-3.md"),
    ],
)
def test_fit_writes_files_named_by_the_step(step: str, name: str) -> None:
    earlier = [Earlier("Work out the budget: 8 * 45", "8 * 45 = 360")]
    tool, args = fit(step, 3, ALL, "Plan the offsite:\n1. x", earlier) or ("", {})
    assert tool == "write_file" and args["path"] == name
    assert args["content"].startswith("# ") and "Plan the offsite\n" in args["content"]
    assert "- Work out the budget → 8 * 45 = 360" in args["content"]
    assert "offline model" in args["content"]  # it says who wrote it, and how


@pytest.mark.parametrize(
    "mission", ["1. Draft the memo\n2. Send it", "- Draft the memo", "Step 1: x"]
)
def test_a_mission_that_starts_with_its_list_gives_the_file_no_context_line(mission: str) -> None:
    tool, args = fit("Draft the memo", 1, ALL, mission, []) or ("", {})
    assert tool == "write_file"
    assert args["content"].split("\n")[:4] == ["# Memo", "", "Step: Draft the memo", ""]


@pytest.mark.parametrize(
    "step",
    [
        "Book the venue",
        "Prepare the room",  # not a document
        "Meet on 2026-05-14 at 10:30",
        "Plan days 1 - 3 of the trip",
        "Support the team 24/7",
        "Call +49 30 1234567",
        "Use version 2.0 of the tool",
    ],
)
def test_fit_leaves_steps_no_tool_fits(step: str) -> None:
    assert fit(step, 1, ALL, "mission", []) is None


def test_fit_only_offers_registered_tools() -> None:
    assert fit("Work out 2 * 3 + 1", 1, {"write_file"}, "m", []) is None
    assert fit("Write the agenda to agenda.md", 1, {"calculator"}, "m", []) is None


def test_arithmetic_finds_the_expression() -> None:
    assert arithmetic("Budget: 8 * 45 + 120 for food.") == "8 * 45 + 120"
    assert arithmetic("Calculate 3/4") == "3/4"
    assert arithmetic("Cut it 3/4 short") is None
    assert arithmetic("nothing here") is None


async def test_the_demo_mission_does_real_work(tmp_path: Path) -> None:
    folder = tmp_path / "ws"
    agent = LeanAgent(OfflineModel(), tools=demo_tools(folder))
    result = await agent.execute(MISSION)
    assert result.status.value == "completed"
    tasks = agent.planner.get_state()["tasks"]
    assert [t["status"] for t in tasks] == ["DONE", "DONE", "DONE", "SKIPPED"]
    # the notes are the tools' real results
    assert tasks[0]["note"] == "calculator → 8 * 45 + 120 = 480"
    assert tasks[1]["note"].startswith('add_note → noted "Venue options: Lakeside Hall')
    agenda = (folder / "agenda.md").read_text()
    assert tasks[2]["note"] == f"write_file → wrote agenda.md ({len(agenda.encode())} bytes)"
    assert tasks[3]["note"] == NO_TOOL_NOTE
    assert "- Work out the food budget → 8 * 45 + 120 = 480" in agenda
    assert (folder / "notes.md").read_text() == "- Venue options: Lakeside Hall or the Old Mill\n"
    # the answer reports the results, not the plan again
    answer = result.final_message
    assert answer.startswith("Finished the plan: 3 of 4 steps done, 1 skipped.")
    assert "- step 1, calculator: 8 * 45 + 120 = 480" in answer
    assert "- step 3, write_file: wrote agenda.md" in answer
    assert "Skipped (no tool fits): 4. Book the venue." in answer
    assert "Work out the food budget" not in answer
    assert result.steps == 9  # plan; per tool step: start + run, then done; skip; answer


async def test_a_chain_said_in_words_uses_each_result(tmp_path: Path) -> None:
    agent = LeanAgent(OfflineModel(), tools=demo_tools(tmp_path / "ws"))
    result = await agent.execute("Add 17 and 25, then multiply the result by 3, then note it")
    notes = [t["note"] for t in agent.planner.get_state()["tasks"]]
    assert notes == [
        "calculator → 17 + 25 = 42",
        "calculator → 42 * 3 = 126",
        'add_note → noted "42 * 3 = 126" in notes.md (1 note)',
    ]
    assert result.status.value == "completed" and "42 * 3 = 126" in result.final_message
    assert (tmp_path / "ws" / "notes.md").read_text() == "- 42 * 3 = 126\n"


async def test_a_tool_error_fails_the_step_with_the_reason(tmp_path: Path) -> None:
    agent = LeanAgent(OfflineModel(), tools=demo_tools(tmp_path / "ws"))
    result = await agent.execute("1. Work out 1 / 0 + 1\n2. Work out 2 * 3 + 1")
    tasks = agent.planner.get_state()["tasks"]
    assert [t["status"] for t in tasks] == ["FAILED", "DONE"]
    assert tasks[0]["note"] == "calculator: division by zero"
    assert "1 of 2 steps done, 1 failed" in result.final_message
    assert "- step 1, Work out 1 / 0 + 1: calculator: division by zero" in result.final_message


async def test_a_step_that_needs_approval_runs_its_tool_only_after_a_yes(tmp_path: Path) -> None:
    store = MemoryStore()
    tasks = [{"description": "Write the summary to summary.md", "requires_approval": True}]
    script = ScriptedModel([call("planner", action="create_plan", tasks=tasks), reply("-")])
    first = LeanAgent(script, state_manager=store, max_steps=1, plan_first=False)
    await first.execute("Summarise", session_id="gated")
    agent = LeanAgent(OfflineModel(), tools=demo_tools(tmp_path / "ws"), state_manager=store)
    paused = await agent.execute("Summarise", session_id="gated")
    assert paused.status.value == "paused"
    assert paused.pending_approval is not None
    assert (
        paused.pending_approval["preview"] == "start plan step 1. Write the summary to summary.md"
    )
    assert not (tmp_path / "ws" / "summary.md").exists()  # nothing ran before the yes
    done = await agent.resume("gated", approve=True)
    assert done.status.value == "completed"
    assert (tmp_path / "ws" / "summary.md").exists()
    assert "step 1, write_file: wrote summary.md" in done.final_message


SUM = [Earlier("Add 17 and 25", "17 + 25 = 42")]


@pytest.mark.parametrize(
    ("step", "expression"),
    [
        ("Add 17 and 25", "17 + 25"),
        ("Sum up 1,200 and 30.5", "1200 + 30.5"),
        ("Multiply the result by 3", "42 * 3"),
        ("Then multiply it by 3", "42 * 3"),
        ("Subtract 5 from the total", "42 - 5"),
        ("Divide 100 by 8", "100 / 8"),
        ("Calculate 15% of 80", "15 * 80 / 100"),
        ("Work out 15 percent of 2,400", "15 * 2400 / 100"),
        ("Take the square root of 144", "sqrt(144)"),
        ("Double the result", "42 * 2"),
    ],
)
def test_arithmetic_said_in_words(step: str, expression: str) -> None:
    assert arithmetic(step, SUM) == expression
    assert fit(step, 2, ALL, "mission", SUM) == ("calculator", {"expression": expression})


@pytest.mark.parametrize(
    "step",
    [
        "Multiply the result by 3",  # no earlier result: nothing to multiply
        "Add Bob to the list",
        "Add 2026-05-14 and 3",
        "Add 3 and 4 to my notes",  # a note, not a sum
        "Divide the cake by 4",
    ],
)
def test_words_that_are_not_arithmetic(step: str) -> None:
    assert arithmetic(step) is None


@pytest.mark.parametrize(
    ("step", "text"),
    [("Note the result", "Result: 17 + 25 = 42"), ("Note it", "17 + 25 = 42"),
     ("Note the venue", "Venue")],
)  # fmt: skip
def test_a_note_of_the_result_holds_the_result(step: str, text: str) -> None:
    assert fit(step, 2, ALL, "mission", SUM) == ("add_note", {"text": text})
