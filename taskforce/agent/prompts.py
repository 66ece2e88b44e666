"""Every piece of text the loop shows the model in a run's conversation, in one place.

The short request of its own that asks a stuck run's answer is :mod:`~taskforce.agent.stuck`'s;
the answers to calls held for a human are :mod:`~taskforce.agent.approvals`', and the ids a
failed call may have meant are named by :mod:`~taskforce.agent.aliases`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from taskforce.tools import planner_prompts as planner

_INTRO = "You are a careful assistant that completes missions by calling tools.\n\nHow to work:\n"
_PLANNING = planner.USAGE
_WORKING = """\
- Call a tool and WAIT for its result before using it. Never invent or guess a tool's result.
- A tool result is not the end of the mission: if the mission needs more, call the next \
tool right away.
- Do not repeat a call you already made with the same arguments; use its earlier result.
- When every step is done, answer the user with the final result in plain text and no tool \
calls."""

DEFAULT_SYSTEM_PROMPT = _INTRO + _PLANNING + _WORKING
"""The system prompt of an agent that plans (the default)."""

NO_PLANNING_SYSTEM_PROMPT = _INTRO + _WORKING
"""The system prompt of ``LeanAgent(planning=False)``: the same rules without the planner."""

PLAN_HEADER = "[Plan update]"
"""Opens every plan recitation message (how compaction recognises them)."""

REMINDER_HEADER = "[Reminder]"


def is_loop_note(text: str) -> bool:
    """Whether a user message is the loop's own (a recitation or a reminder), not the user's."""
    return text.startswith((PLAN_HEADER, REMINDER_HEADER))


SKIPPED_NOTE = "no tool ran for it"
"""The note on a step the loop skipped: marked done twice with no tool run for it."""

FAILED_NOTE = "its tool calls failed"
"""The note on a step the loop skipped: marked done twice after only failed calls for it."""


def plan_message(
    markdown: str,
    current: str | None,
    results: Sequence[str] = (),
    needs_tool: bool = True,
    unworked: Mapping[int, str] | None = None,
) -> str:
    """The trailing context message that shows the model the plan and what to do now.

    `current` is the step to work on (``"2. description"``; its line is in `markdown`, so
    only its number is repeated), `results` the earlier tool results the model may need;
    `needs_tool` says whether that step needs a tool. `unworked` maps the steps the loop
    skipped for lack of work to its note on them (:data:`SKIPPED_NOTE`,
    :data:`FAILED_NOTE`): with no step open, the message does not say "all steps are done"
    while they may not be. When it does, `markdown` is what the checklists before did not say.
    """
    known = "\nResults so far: " + "; ".join(results) if results else ""
    if current is None and unworked:
        idle = [n for n, note in unworked.items() if note != FAILED_NOTE]
        failed = [n for n, note in unworked.items() if note == FAILED_NOTE]
        why = [f"no tool ran for {_numbers(idle)}"] if idle else []
        why += [f"the calls for {_numbers(failed)} failed"] if failed else []
        return (
            f"{PLAN_HEADER}\n{markdown}{known}\n"
            f"No step is open, but {' and '.join(why)}. If that work is not done yet, "
            "do it now with its tool; then answer the user in plain text with the results."
        )
    if current is None:
        head = "\n".join(filter(None, (f"{PLAN_HEADER} All steps are done.", markdown)))
        return f"{head}{known}\nNow answer the user in plain text with the results."
    number = current.split(".", 1)[0]
    how = (
        f"Call the tool this step needs (not the planner) and use its result; after that "
        f"result, {planner.mark_step(number)}."
        if needs_tool
        else f"This step needs no tool: {planner.mark_step(number)}."
    )
    return f"{PLAN_HEADER}\n{markdown}{known}\nDo now: step {number}.\n{how}"


def _numbers(numbers: Sequence[int]) -> str:
    """``step 2``, ``steps 1 and 3``, ``steps 1, 2 and 3``."""
    if len(numbers) == 1:
        return f"step {numbers[0]}"
    head = ", ".join(str(n) for n in numbers[:-1])
    return f"steps {head} and {numbers[-1]}"


def _ended(text: str) -> str:
    """`text` as a sentence: its own full stop (or question mark) kept, one added if none."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _current_is(current: str) -> str:
    """``"The current step is 2. Save the note. "`` (a step's own full stop is kept)."""
    return f"The current step is {_ended(current)} "


def echoed(current: str | None, planning: bool) -> str:
    """Sent (instead of keeping the reply) when the model echoed the loop's messages."""
    if current is not None and planning:
        number = current.split(".", 1)[0]
        act = (
            f"{_current_is(current)}If the tool it needs already ran, "
            f"{planner.mark_step(number)}; otherwise call that tool now."
        )
    else:
        act = "Call the tool you need next, or give the final answer in plain text."
    return (
        f"{REMINDER_HEADER} Do not repeat the plan or reminders: your reply must be a tool "
        f"call or the final answer. {act}"
    )


def plan_first(mission_has_list: bool) -> str:
    """The firm instruction for the first turn of a mission that needs a plan."""
    hint = " Use the items of the mission's list as tasks." if mission_has_list else ""
    return (
        f"{REMINDER_HEADER} This mission has several parts. Before anything else, "
        f"{planner.CREATE_NOW}{hint}"
    )


def finish_reminder(open_steps: Sequence[str], worked: str | None = None) -> str:
    """Sent when the model answers while plan steps are still open: what is missing.

    `worked` is the number of the current step when a tool already ran for it: the model
    is shown how to mark it rather than told to do it again.
    """
    listed = "\n".join(f"- {s}" for s in open_steps)
    first = f"Do {open_steps[0].split(':', 1)[0]} now with the tool it needs, then the others."
    if worked is not None:
        first = (
            f"A tool already ran for step {worked}: if it did that step, "
            f"{planner.mark_step(worked)}; then do the others."
        )
    return (
        f"{REMINDER_HEADER} Not finished yet: these plan steps are still open:\n{listed}\n"
        f"{first} If a step turned out to be unnecessary, {planner.SKIP}; then give the final "
        "answer."
    )


def undone_reminder(undone: Sequence[str]) -> str:
    """Sent when the model answers after the loop skipped steps whose tools never succeeded."""
    listed = "\n".join(f"- {s}" for s in undone)
    return (
        f"{REMINDER_HEADER} Not finished yet: these steps were skipped because no tool ran for "
        f"them, and their tools have not succeeded since:\n{listed}\nDo that work now with "
        "its tool. If it turned out not to be needed, say so in your final answer."
    )


EMPTY_REPLY = (
    f"{REMINDER_HEADER} Your reply was empty. Continue with the current step using a tool, "
    "or give the final answer as text."
)

CREATE_PLAN_FIRST = f"Not run: {planner.CREATE_FIRST}, then call this tool in the next turn."

TOO_MANY_CALLS = (
    "Not run: too many tool calls in one turn (limit {limit}). Call it again in the next "
    "turn if it is still needed."
)

REPEATED_CALL = (
    "Not run again: you already called {name} with exactly these arguments; its earlier "
    "result is in `previous_result`. Use it and move on to the next step instead of repeating."
)

DUPLICATE_IN_TURN = (
    "Not run twice: the same call appears earlier in this turn (id {first}); its result is "
    "in `previous_result`."
)

INTERRUPTED = (
    "The run was interrupted before this call finished; its result is unknown. Call it again "
    "if it is still needed."
)


def stalled(current: str | None, planning: bool = True, fits: Sequence[str] = ()) -> str:
    """Sent when the model keeps repeating calls whose results it already has.

    `fits`: tools not called yet whose names fit the current step (``save_note`` for "Save
    a note titled 'trip'"): named as the call to make instead of the mark.
    """
    step, action = (_current_is(current) if current else ""), ""
    if current and fits:
        action = f"Call {' or '.join(fits[:2])} for it now: it fits this step and has not run yet. "
    elif current and planning:
        action = f"If its tool already ran, {planner.mark_step(current.split('.', 1)[0])}. "
    use = "Otherwise use" if action else "Use"  # "Otherwise" only after an action to take
    return (
        f"{REMINDER_HEADER} You are repeating calls whose results you already have. {step}"
        f"{action}{use} those results: call a different tool or arguments, or give the final "
        "answer."
    )


def nothing_done(
    steps: Sequence[str],
    failed: bool = False,
    tools: Iterable[str] = (),
    failing: Iterable[str] = (),
) -> str:
    """Why marking steps done was refused: no tool ran (or none succeeded) since they started.

    `tools`: the tools whose names the steps' words fit (``add_event`` for "add an event").
    `failing`: those that failed since and have not succeeded after (a lookup does not do it).
    """
    if named := " and ".join(failing):
        return (
            f"Not marked: {named} failed for {'; '.join(steps)} and has not succeeded since (a "
            f"lookup does not do the step). Call {named} again with the values your lookups "
            f"gave, then mark it done; if the step cannot be done, {planner.SKIP}."
        )
    if failed:
        return (
            f"Not marked: no tool call succeeded for {'; '.join(steps)} (a call that failed "
            f"did not do it). Fix the call as its error says and run it again; if the step "
            f"cannot be done, {planner.SKIP}."
        )
    named = ", ".join(tools)
    return (
        f"Not marked: no tool ran for {'; '.join(steps)}. Do it first with the tool it "
        f"needs{f' ({named})' if named else ''}, then mark it done."
    )


def _left_out(used: Sequence[str], missing: Sequence[str], tools: Sequence[str]) -> str:
    """``"Rome, and no call used Rome yet (weather for Oslo)"``: the names left out, and how."""
    names, other = " and ".join(missing), " and ".join(used)
    how = f" ({', '.join(tools)} for {other})" if tools else ""
    return f"{names}, and no call used {names} yet{how}"


def left_out(
    number: int, step: str, used: Sequence[str], missing: Sequence[str], tools: Sequence[str]
) -> str:
    """Why a "done" was held back once: step `number` lists names a call used only some of.

    `tools`: the tools of the calls that used the other names.
    """
    names = " and ".join(missing)
    return (
        f"Not marked yet: step {number} ({step}) also names {_left_out(used, missing, tools)}. "
        f"Do it for {names} too; after its result, {planner.mark_step(str(number))} "
        f"(if {names} needs no call, mark it done now)."
    )


def request_left_out(
    used: Sequence[str], missing: Sequence[str], tools: Sequence[str], open_steps: Sequence[str]
) -> str:
    """Why an answer was held back once: the request lists names a call used only some of.

    `open_steps` (the plan's, if any) are listed to finish with the new result: the step that
    used the first name may be done wrong.
    """
    listed = "".join(f"\n- {s}" for s in open_steps)
    rest = f", and finish these open steps with its result:{listed}\nThen" if listed else ", then"
    return (
        f"{REMINDER_HEADER} Not finished yet: the request also names "
        f"{_left_out(used, missing, tools)}. Do it for {' and '.join(missing)} too{rest} give "
        "the final answer."
    )


REUSED = (
    "Not run again: this exact call already ran earlier in this run, and this is its result. "
    "It counts as the current step's work."
)

MALFORMED_REPLY = (
    f"{REMINDER_HEADER} Your last reply could not be read: a tool call's arguments were not valid "
    "JSON (a missing quote or bracket). Reply again, with the arguments as one valid JSON "
    "object."
)
"""Sent once when the provider could not parse the model's reply (the reply is lost)."""

CUT_OFF_ANSWER = (
    f"{REMINDER_HEADER} Your reply was cut off at its output limit before it ended. Give the "
    "final answer again, shorter: only what the user asked for."
)
"""Sent back for an answer that reached the output limit (one of the finish reminders)."""

CUT_OFF_REPLY = (
    f"{REMINDER_HEADER} Your last reply could not be read: a tool call ended before its "
    "arguments did (the reply was too long and was cut off). Reply again with a shorter call."
)
"""Sent instead of :data:`MALFORMED_REPLY` when the provider's parser ran out of input."""

_ENDED_EARLY = ("end of input", "unexpected end", "unterminated", "eof while parsing")


def malformed_reply(error: str) -> str:
    """The note for a reply the provider could not parse (`error`: its message)."""
    cut = any(sign in error.lower() for sign in _ENDED_EARLY)
    return CUT_OFF_REPLY if cut else MALFORMED_REPLY


def cut_off_call(length: int, planner: bool) -> str:
    """The error of a call whose arguments were cut off at the model's output limit."""
    shorter = (
        "a plan needs only a few short steps, one per part of the mission"
        if planner
        else "send less in one call"
    )
    return (
        f"Not run: your reply reached its output limit after {length:,} characters of this "
        f"call's arguments, so they were cut off. Call it again, shorter: {shorter}."
    )


_UNTRIED_SHOWN = 8
_UNSUPPORTED = "in neither the mission nor any tool result so far"


def repeated_failure(error: str, hint: str = "") -> str:
    """The answer to a call that already failed, made again unchanged.

    `hint`: where the right argument may be (:func:`~taskforce.agent.aliases.other_id`,
    :func:`~taskforce.agent.aliases.known_ids` or :func:`look_up`).
    """
    msg = (
        f"Not run again: this exact call already failed with: {_ended(error)} Calling it again "
        "unchanged fails the same way; change the arguments."
    )
    return f"{msg} {hint}".rstrip()


def refused_again(error: str) -> str:
    """The answer to a planner call refused for the same reason as an earlier one."""
    return (
        f"Refused again, as before: {_ended(error)} Changing other arguments does not help: "
        "do the current step with its tool instead of calling the planner this way."
    )


def look_up(untried: Sequence[str]) -> str:
    """Where a guessed argument may be looked up: the lookups not used yet ("" for none)."""
    if not untried:
        return ""
    names = ", ".join(untried[:_UNTRIED_SHOWN])
    return f"If an argument was a guess, look it up first with a tool not used yet: {names}."


def unsupported(values: str, untried: Sequence[str] = (), again: bool = False) -> str:
    """The answer to a call whose `values` (quoted) no message or tool result gave the model.

    `untried`: the lookups not called yet (the first few are named); `again`: asked before,
    and the results since do not have the values either.
    """
    where = f" with a tool not used yet: {', '.join(untried[:_UNTRIED_SHOWN])}" if untried else ""
    said = "still in no tool result, the new ones included" if again else _UNSUPPORTED
    return (
        f"Not run: {values} is {said}. If it is a guess, look it up first{where}. If you "
        "worked it out from the results above, make the same call again and it will run."
    )


ONE_STEP_DONE = (
    "If that was all the mission asked for, give the final answer now in plain text; call "
    "another tool only for a part of the mission not done yet."
)
"""Noted on a successful action in a mission judged one step (no plan): small models go on
acting after the asked-for action (closing and reassigning a ticket they were asked to raise)."""


ANSWER_NOW = (
    f"{REMINDER_HEADER} You keep repeating calls. Do not call any tool now: give your final "
    "answer in plain text, using the tool results above."
)

ANSWER_REQUIRED = (
    "Not run: every plan step is done and a final answer in plain text was asked for, not "
    "more calls."
)
"""The answer to a call made when told to answer, with the run's plan finished (the run ends)."""

ANSWERED = "done by the final answer"
"""The note on steps the final answer itself did (they need no tool)."""

RESUMED = (
    f"{REMINDER_HEADER} The run was interrupted and has resumed. Continue the mission from "
    "the current plan step; do not redo finished steps."
)

OMITTED = "[Earlier messages were removed to fit the context window.]"
