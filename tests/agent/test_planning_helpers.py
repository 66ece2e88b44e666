"""The agent's plan reading uses the plan model and taskforce.planning."""

from __future__ import annotations

from taskforce.agent import planning, prompts
from taskforce.plan import Plan, StepStatus


def test_current_step_skips_steps_blocked_by_dependencies() -> None:
    plan = Plan().replaced(["Fetch", {"description": "Clean", "depends_on": [1]}, "Unrelated"])
    plan = plan.with_status([1], StepStatus.FAILED, "down")
    assert planning.current_step(plan) == "3. Unrelated"
    plan = plan.with_status([1], StepStatus.DONE)
    assert planning.current_step(plan) == "2. Clean"


def test_unworked_are_the_steps_the_loop_skipped_not_the_models_own() -> None:
    plan = Plan().replaced(["Save", "Not needed", "Send", "Fetch", "Pay"])
    plan = plan.with_status([1], StepStatus.SKIPPED, prompts.SKIPPED_NOTE)
    plan = plan.with_status([2], StepStatus.SKIPPED, "not needed")
    plan = plan.with_status([3], StepStatus.SKIPPED, prompts.FAILED_NOTE)
    plan = plan.with_status([5], StepStatus.FAILED, "card declined")
    assert planning.unworked(plan) == {1: prompts.SKIPPED_NOTE, 3: prompts.FAILED_NOTE}
    assert planning.unworked(Plan().replaced(["a"])) == {}


def test_noted_gives_the_lines_of_the_steps_with_a_note_only() -> None:
    plan = Plan().replaced(["Fetch", "Sum", "Send"])
    plan = plan.with_status([1, 3], StepStatus.DONE).with_status([2], StepStatus.DONE, "41")
    assert planning.noted(plan) == "- [x] 2. Sum — 41"
    assert planning.noted(Plan().replaced(["a"]).with_status([1], StepStatus.DONE)) == ""


def test_the_closing_recitation_shows_what_the_checklists_before_did_not() -> None:
    closing = prompts.plan_message("- [x] 2. Sum — 41", None, ["sum: 41"])
    assert closing == (
        "[Plan update] All steps are done.\n- [x] 2. Sum — 41\nResults so far: sum: 41\n"
        "Now answer the user in plain text with the results."
    )
    assert prompts.plan_message("", None).splitlines() == [
        "[Plan update] All steps are done.",
        "Now answer the user in plain text with the results.",
    ]


def test_list_items_reads_json_and_lists_but_not_prose() -> None:
    assert planning.list_items('{"steps": ["Look up", "Answer"]}') == ["Look up", "Answer"]
    assert planning.list_items("Plan:\n1. Look up\n2. Answer") == ["Look up", "Answer"]
    assert planning.list_items("Just an answer.") == []


def test_needs_plan_uses_the_complexity_heuristic() -> None:
    assert planning.needs_plan("Fetch the data, then clean it, and finally write a report")
    assert not planning.needs_plan("Hi")


async def test_memory_store_checks_versions_like_the_state_manager() -> None:
    import pytest

    from taskforce.errors import StaleStateError
    from taskforce.store import MemoryStore

    store = MemoryStore()
    assert await store.save_state("s", {"status": "running"}, expected_version=0) == 1
    with pytest.raises(StaleStateError):
        await store.save_state("s", {"status": "x"}, expected_version=0)
    assert await store.save_state("s", {"status": "done"}, expected_version=1) == 2
    stale = {"status": "old", "version": 1}
    with pytest.raises(StaleStateError):
        await store.save_state("s", stale)
    assert (await store.load_state("s")) == {"status": "done", "version": 2}


def test_steps_that_need_no_tool() -> None:
    for text in ("Tell the user the total", "Report the result", "Decide which is cheaper",
                 "Give the final answer", "Compare the two amounts", "Complete the mission",
                 "Finally, finish the task.", "4. Wrap up the request"):  # fmt: skip
        assert not planning.needs_tool(text), text
    for text in ("Get the weather in Oslo", "Email the result to Bob", "Tell Bob by email",
                 "Save a note titled 'x'", "Report the total in a file",
                 "Report the total in budget.txt", "Tell me what is in 'notes.md'",
                 "Complete the purchase", "Finish the mission report in report.md"):  # fmt: skip
        assert planning.needs_tool(text), text
    for text in ("Report the total, e.g. 3.5 km", "Tell Dr. Smith the result"):  # fmt: skip
        assert not planning.needs_tool(text), text  # dotted words that name no file
    assert planning.result_text("calc", {"success": True, "output": 391.0}) == "calc → 391.0"
    assert planning.result_text("w", {"success": True, "output": {"c": 4}}) == 'w → {"c": 4}'
    assert planning.result_text("x", {"success": True, "output": "y" * 300}).endswith("y…")


def test_a_step_that_composes_a_message_a_later_step_sends_needs_no_tool() -> None:
    sends = ["Send the email to Alice", "Send the email to Bob"]
    for text in ("Compose the email", "Draft a message to Bob",
                 "Step 3: Prepare the email message.", "Then write the invitation text",
                 "Create the email with the balances."):  # fmt: skip
        assert not planning.needs_tool(text, sends), text
        assert planning.needs_tool(text), text  # alone, it may be the sending: it needs a tool
        assert planning.needs_tool(text, ["Tell me what was sent"]), text
    assert not planning.needs_tool("Compose a message to Bob", ["Email Bob the message"])
    for text in ("Compose and send the email to Bob", "Draft the email and save it as a note",
                 "Write the email text to draft.txt", "Prepare the report",
                 "Create a task to look up Bob's email address",
                 "Write the text 'buy milk' in a note"):  # fmt: skip
        assert planning.needs_tool(text, sends), text  # it acts, or writes no message


def test_step_needs_tool_reads_the_steps_after_it() -> None:
    plan = Plan().replaced(["Find Alice's address", "Compose the email", "Send the email to Alice"])
    one, compose, send = plan.steps
    assert [planning.step_needs_tool(plan, s) for s in plan.steps] == [True, False, True]
    assert planning.tool_steps(plan) == [one, send]
    last = Plan().replaced(["Send the email to Alice", "Compose the email"])  # none sends it after
    assert planning.step_needs_tool(last, last.steps[1])
    assert not planning.answered(plan)
    done = plan.with_status([1, 3], StepStatus.DONE)
    assert planning.answered(done) == (2,)  # composing is done by the answer itself
    assert compose.description == "Compose the email"


def test_about_the_plan_knows_ticking_and_revising_but_not_work() -> None:
    for task in (
        "Mark done",
        "Mark the new task as DONE",
        "Mark 'TeamNotes.txt' as SKIPPED in the current plan",
        "Then tick step 3 off as completed",
        "Read the plan",
        "Update the plan to add a new task",
        "Review my checklist",
        "Mark the move as IN_PROGRESS",  # the planner's own status, as the planner writes it
        "Read the updated plan",
        "Review the revised checklist",
    ):
        assert planning.about_the_plan(task), task
    for task in (
        "Make a plan for the trip",
        "Write the plan to plan.txt",
        "Mark the meeting in my calendar",
        "Write draft.txt replacing 'TODO' with 'done'",
        "Check the weather in Oslo",
        "Read inventory.txt",
        "Email the plan to Bob",
        "Mark the ticket as in progress",  # a helpdesk's own status: work for its tool
        "Read the updated inventory",
    ):
        assert not planning.about_the_plan(task), task


def test_work_only_drops_tasks_about_the_plan_like_copies() -> None:
    from taskforce.plan import StepSpec
    from taskforce.plan.requests import NewPlan

    request = NewPlan(
        (StepSpec("Read inventory.txt"), StepSpec("Write order.txt"), StepSpec("Mark done"))
    )
    kept = planning.work_only(request, lambda _: False)
    assert [t.description for t in kept.tasks] == ["Read inventory.txt", "Write order.txt"]
    only = NewPlan((StepSpec("Read the plan"), StepSpec("Mark done")))
    assert planning.work_only(only, lambda _: False) is only  # never an empty plan


def test_joined_branches_puts_a_condition_and_its_other_branch_in_one_step() -> None:
    from taskforce.plan.requests import NewPlan
    from taskforce.plan.specs import StepSpec

    def plan(*texts: str) -> NewPlan:
        return NewPlan(tuple(StepSpec(t) for t in texts))

    rain = plan(
        "Check the weather in London",
        "If it is raining, add 'Indoor gym' to my calendar.",
        "If it is not raining, add 'Park run' instead",
        "Email Bob",
    )
    assert [t.description for t in planning.joined_branches(rain).tasks] == [
        "Check the weather in London",
        "If it is raining, add 'Indoor gym' to my calendar; if it is not raining, add 'Park "
        "run' instead",
        "Email Bob",
    ]
    others = (
        "Otherwise email him",
        "Else save 'within budget'",
        "If not, send a note",
        "If there are no apples, order some",
        "If it isn't cold, pack light",
    )
    for other in others:
        assert len(planning.joined_branches(plan("If it is cold, pack a coat", other)).tasks) == 1
    unrelated = plan("If it rains, take an umbrella", "If it is cold, take a coat")
    assert planning.joined_branches(unrelated) is unrelated  # two conditions, both may hold
    numbered = NewPlan((StepSpec("If it rains, A"), StepSpec("Otherwise B", depends_on=(1,))))
    assert planning.joined_branches(numbered) is numbered
    after = plan(  # the condition after the action (a plan the 1.5B model wrote)
        "Look up Bella's vaccination record",
        "Book a vaccination at the first free slot on 2025-06-12 if the condition is met",
        "Otherwise, book a checkup at that slot",
    )
    assert [t.description for t in planning.joined_branches(after).tasks][1:] == [
        "Book a vaccination at the first free slot on 2025-06-12 if the condition is met; "
        "otherwise, book a checkup at that slot"
    ]
    for question in ("Check if there are 4 packs in stock", "See if the shop is open today"):
        asked = plan(question, "Otherwise email Dave")  # a lookup and an action: two steps
        assert planning.joined_branches(asked) is asked
    verbless = plan("Gift wrap", "Otherwise send it plain")  # no condition: two steps
    assert planning.joined_branches(verbless) is verbless


def test_fitting_tools_need_every_word_of_the_name_outside_quotes() -> None:
    names = ["save_note", "read_note", "list_notes", "send_email", "write_file"]
    assert planning.fitting_tools("3. Save the warmer city in a note titled 'trip'.", names) == [
        "save_note"
    ]
    assert planning.fitting_tools("Save two notes", names) == ["save_note"]  # plurals aside
    assert planning.fitting_tools("List my notes", names) == ["list_notes"]
    assert planning.fitting_tools("Email Bob with the subject 'Shopping list'", names) == [
        "send_email"
    ]  # not list_notes: the subject is quoted
    assert planning.fitting_tools('Read the note "write file"', names) == ["read_note"]
    assert planning.fitting_tools("Save Frank's number in a note titled 'frank'", names) == [
        "save_note"
    ]  # an apostrophe in a word opens no quote
    assert planning.fitting_tools("Tell me the total", names) == []
    assert planning.fitting_tools("Save the note", ["", "__"]) == []  # no words: no fit


def test_a_step_that_sends_a_message_fits_the_sending_tools() -> None:
    names = ["send_email", "send_message", "find_contact", "save_note"]
    email = "Email the result to both Bob and Carol with the subject 'Commission'"
    assert planning.fitting_tools(email, names) == ["send_email"]  # the noun as the verb
    assert planning.fitting_tools("Then message Dave the new time", names) == ["send_message"]
    assert planning.fitting_tools("Forward the email to Alice", names) == ["send_email"]
    assert planning.fitting_tools("Look up Bob's email address", names) == []  # sends nothing
    assert planning.fitting_tools("Contact Bob", names) == []  # find_contact: "find" is missing


def test_a_file_name_fits_the_file_tools_quoted_or_not() -> None:
    names = ["read_file", "write_file", "save_note"]
    assert planning.fitting_tools("Write 'order 20 apples' to order.txt", names) == ["write_file"]
    assert planning.fitting_tools("Write the total to 'budget.csv'", names) == ["write_file"]
    assert planning.fitting_tools("Read inventory.txt", names) == ["read_file"]
    assert planning.fitting_tools("Write 3.5 km in a note", names) == []  # "3.5" is no file
