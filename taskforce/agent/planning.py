"""Plan-first decisions and how the loop words the plan for the model.

Pure functions: whether a mission needs a plan (a complexity heuristic), turning a list in
free text into plan tasks, and the open and current steps of a :class:`Plan` as text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from taskforce.agent.prompts import FAILED_NOTE, SKIPPED_NOTE
from taskforce.plan import Plan, Step, StepSpec, StepStatus
from taskforce.plan.requests import NewPlan
from taskforce.plan.text import clean_text
from taskforce.planning import parse_plan_reply, should_plan
from taskforce.planning.complexity import unquoted
from taskforce.planning.questions import asks_about_plan
from taskforce.planning.split import split_mission as split

__all__ = [
    "about_the_plan",
    "answered",
    "asks_about_plan",
    "current_step",
    "done_before",
    "fitting_tools",
    "joined_branches",
    "list_items",
    "needs_plan",
    "needs_tool",
    "open_steps",
    "plan_for",
    "result_text",
    "split_mission",
    "step_needs_tool",
    "tool_steps",
    "unworked",
    "work_only",
]

MAX_AUTO_TASKS = 12
_TASK_CHARS = 200


def list_items(text: str) -> list[str]:
    """The steps of a plan written in `text` (a JSON plan or a numbered/bulleted list).

    Uses the tolerant parser of :mod:`taskforce.planning`; empty when `text` holds fewer
    than two steps, so a plain answer is never mistaken for a plan.
    """
    parsed = parse_plan_reply(text, min_steps=2, max_steps=MAX_AUTO_TASKS)
    return _clean(parsed.tasks()) if parsed.source != "single" else []


def split_mission(mission: str) -> list[str]:
    """Tasks read off the mission itself, when it names two or more actions.

    The one splitter (:func:`taskforce.planning.split.split_mission`): its list items,
    else its sentences and clauses.
    """
    return split(mission, max_steps=MAX_AUTO_TASKS, max_len=_TASK_CHARS, actions_only=True)


def needs_plan(mission: str) -> bool:
    """Whether `mission` needs a plan.

    The heuristic is :func:`taskforce.planning.should_plan`: length, action verbs,
    multi-action keywords and structure.
    """
    return should_plan(mission)


def plan_for(reply: str | None, mission: str) -> NewPlan | None:
    """The plan for a turn that had to plan and did not (None when there are no parts).

    Its tasks are the list in the model's reply, or else the mission's own parts.
    """
    tasks = list_items(reply or "") or split_mission(mission)
    return NewPlan(tuple(StepSpec(task) for task in tasks)) if tasks else None


def _clean(items: list[str]) -> list[str]:
    tasks = [clean_text(i)[:_TASK_CHARS] for i in items]
    return [t for t in tasks if t][:MAX_AUTO_TASKS]


_ABOUT_THE_PLAN = re.compile(
    r"^(?:(?:then|finally|and)\s+)?(?:"
    r"(?:mark|tick|check\s+off)\b.*\b(?:done|complete[d]?|finished|skipped|(?-i:IN_PROGRESS))\b"
    r"|(?:read|review|check|show|view|update|revise)\s+(?:the|my|this|your)\s+"
    r"(?:(?:current|new|updated|revised)\s+)?(?:plan|checklist|to-?do\s+list)\b)",
    re.I,
)


def about_the_plan(task: str) -> bool:
    """Whether a task is about the checklist itself, not about the work.

    "Mark done", "Mark the new task as done", "Mark the move as IN_PROGRESS" (the planner's
    own status, written its way), "Read the updated plan", "Update the plan to add a
    step": ticking and revising are what the planner does between steps, so such a task
    could never be done by a tool (a small model writes them into its plans). "Make a
    plan for the trip" is work, and kept; so is "Mark the ticket as in progress", which a
    helpdesk's tool may do.
    """
    return bool(_ABOUT_THE_PLAN.match(task.strip()))


def work_only(request: NewPlan, copied: Callable[[str], bool]) -> NewPlan:
    """`request` without its tasks that are no step of the work.

    Those are `copied` text (the loop's own instructions) and tasks about the plan itself
    (:func:`about_the_plan`). Unchanged when none is, when nothing would be left, or when
    a task refers to others by number (``depends_on``, ``parent``): dropping one would
    shift what they point at.
    """
    kept = tuple(
        t for t in request.tasks if not (copied(t.description) or about_the_plan(t.description))
    )
    numbered = any(t.depends_on or t.parent is not None for t in request.tasks)
    if not kept or numbered or len(kept) == len(request.tasks):
        return request
    return NewPlan(kept)


def done_before(plan: Plan, number: int) -> tuple[int, ...]:
    """Numbers of the open steps before step `number`: done, if step `number` is next.

    Empty unless `number` is a step after the current one (then nothing is implied).
    """
    step = plan.next_step()
    if step is None or not plan.number_of(step) < number <= len(plan.steps):
        return ()
    return tuple(plan.number_of(s) for s in plan.open_steps() if plan.number_of(s) < number)


_IF = re.compile(r"^(?:(?:then|and|but)\b[\s,]*)?(?:if|when|in\s+case)\b", re.I)
_IF_AFTER = re.compile(r"\S\s+(?:if|when|in\s+case)\s+\S", re.I)
"""A branch whose condition comes after its action: "Book a vaccination if it is due"."""
_WHETHER = re.compile(
    r"\b(?:check|see|determine|verify|confirm|find\s+out|ask|know|decide|test|look|tell)\b"
    r"[^,;]*?\bif\b",
    re.I,
)
"""An "if" that means "whether" ("Check if the paper is in stock"): a lookup, no branch."""
_ELSE = re.compile(
    r"^(?:(?:then|and|but)\b[\s,]*)?"
    r"(?:otherwise|else|if\s+not\b|if\s[^,;]*?(?:\b(?:not|no)\b|n't\b))",
    re.I,
)
_JOINED_CHARS = 500


def joined_branches(request: NewPlan) -> NewPlan:
    """`request` with each condition's two branches in one step: "If X, A; otherwise B".

    Given "If it rains, book the gym" and "If it does not rain, book the park run" as two
    steps, a small model did both: the loop asks for each step's tool in turn. As one
    step it does the branch that applies. The condition may also follow the action ("Book
    a vaccination if the shot is over a year old", then "Otherwise, book a checkup": a
    model booked both, seven times), but not as a question ("Check if ..."). Unchanged
    when no step follows a branch with its other branch ("Otherwise ...", "If not ...",
    "If it is not ..."), or when a task refers to others by number (``depends_on``,
    ``parent``).
    """
    tasks = request.tasks
    if any(t.depends_on or t.parent is not None for t in tasks):
        return request
    joined: list[StepSpec] = []
    for task in tasks:
        last = joined[-1] if joined else None
        if (
            last is not None
            and _branch(last.description)
            and not _ELSE.match(last.description)
            and _ELSE.match(task.description)
            and not (last.requires_approval or task.requires_approval)
        ):
            text = f"{last.description.rstrip(' .;')}; {task.description[:1].lower()}"
            text += task.description[1:]
            if len(text) <= _JOINED_CHARS:
                joined[-1] = StepSpec(text)
                continue
        joined.append(task)
    return request if len(joined) == len(tasks) else NewPlan(tuple(joined))


def _branch(text: str) -> bool:
    """Whether `text` does something on a condition (the condition first or after it)."""
    return bool(_IF.match(text)) or (
        _IF_AFTER.search(text) is not None and _WHETHER.search(text) is None
    )


def open_steps(plan: Plan) -> list[str]:
    """Open steps of `plan` as ``"s2: description"``, in plan order."""
    return [f"{s.id}: {s.description}" for s in plan.open_steps()]


def noted(plan: Plan) -> str:
    """The checklist lines of `plan`'s steps that carry a note (a result, a reason)."""
    lines = zip(plan.steps, plan.checklist(), strict=True)
    return "\n".join(line.markdown() for step, line in lines if step.note)


def current_step(plan: Plan) -> str | None:
    """``"2. description"`` of the step to work on.

    The step in progress, else the first runnable one: a step waiting for unfinished
    dependencies is skipped.
    """
    step = plan.next_step()
    return f"{plan.number_of(step)}. {step.description}" if step is not None else None


_NO_TOOL_VERB = re.compile(
    r"^(?:step\s*\d+\s*[:.)-]\s*)?(?:then\s+|finally\s+|and\s+)?"
    r"(?:report|answer|tell|say|reply|respond|give|present|provide|state|summari[sz]e|explain|"
    r"decide|determine|choose|conclude|compare|confirm|return|show|think|reason|finish)\b",
    re.I,
)
_THE_MISSION = re.compile(
    r"^(?:(?:step\s*)?\d+\s*[:.)-]\s*)?(?:(?:then|finally|and),?\s+)?"
    r"(?:complete|finish|end|wrap\s+up|conclude)\s+(?:the\s+|this\s+|your\s+|my\s+)?"
    r"(?:mission|task|request|errand|job|work)s?\s*[.!]?$",
    re.I,
)
"""A step that is only the mission's end, with nothing of its own to do."""
_TOOL_OBJECT = re.compile(
    r"\b(?:e-?mail|note|file|calendar|event|message|save|send|write|store|record|book|"
    r"schedule|upload|post|look\s*up|fetch|search|convert|calculat|comput|weather)",
    re.I,
)
_FILE_NAME = re.compile(
    r"\b[\w-]+\.(?:txt|md|csv|tsv|json|log|ya?ml|xml|html?|ini|cfg|toml|pdf|docx?|xlsx?|py)\b",
    re.I,
)
"""A file's name by its extension ("order.txt"), not any dotted word ("e.g", "3.5")."""
_LEAD = r"^(?:step\s*\d+\s*[:.)-]\s*)?(?:(?:then|first|finally|and),?\s+)?"
_COMPOSE = re.compile(
    _LEAD + r"(?:compose|draft|prepare|write|create|formulate|craft|word)\s+"
    r"(?:(?:the|a|an|this|that|my|your|his|her|their)\s+)?(?:[\w'-]+\s+){0,2}?"
    r"(?:e-?mail|message|invitation|letter|reply|text)s?\b",
    re.I,
)
"""A step that writes a message: its verb, then what it writes ("Compose a short email")."""
_ACTS = re.compile(
    r"\b(?:send|sent|save|store|post|upload|forward|deliver|schedule|book|note|file|"
    r"calendar|event|to-?do|document)",
    re.I,
)
"""Words of a step that acts on the world, or writes into it, besides composing a message."""
_SENDS = re.compile(
    _LEAD + r"(?:send|e-?mail|mail|message|forward|deliver)\b|\bsend\b",
    re.I,
)
"""A step that sends a message ("Send the email to Bob", "Email Alice the total")."""


def needs_tool(description: str, later: Iterable[str] = ()) -> bool:
    """Whether a plan step needs a tool call to be done.

    Steps that only report, decide or compare what is already known ("Tell the user the
    total", "Decide which is cheaper") need none, nor a step that only ends the mission
    ("Complete the mission"); anything that names an action on the world (an email, a
    note, a file or a file's name, a lookup, a conversion) does. `later` are the texts of
    the steps after this one in its plan: a step that only composes a message ("Compose
    the email") needs no tool when one of them sends it ("Send the email to Alice"); the
    writing is the model's own, the sending is the later step's work.
    """
    text = description.strip()
    if _THE_MISSION.match(text):  # "Complete the mission": the work is the other steps
        return False
    if _composes(text) and any(_SENDS.search(step.strip()) for step in later):
        return False
    return (
        not _NO_TOOL_VERB.match(text)
        or bool(_TOOL_OBJECT.search(text))
        or bool(_FILE_NAME.search(text))
    )


def step_needs_tool(plan: Plan, step: Step) -> bool:
    """:func:`needs_tool` for `step` of `plan`, read with the steps that follow it."""
    steps = plan.steps
    after = range(plan.number_of(step), len(steps))  # read only for a step that composes
    return needs_tool(step.description, (steps[i].description for i in after))


def _composes(text: str) -> bool:
    """Whether step `text` only writes a message ("Draft a message to Bob"), acting on nothing."""
    return bool(_COMPOSE.match(text)) and not _ACTS.search(text) and not _FILE_NAME.search(text)


_WORD = re.compile(r"[a-z]+")


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def fitting_tools(step: str, names: Iterable[str]) -> list[str]:
    """The tools among `names` every word of whose name the `step`'s text has.

    ``save_note`` fits "Save the warmer city in a note titled 'trip'" (plurals aside);
    quoted text is a value, not the step's wording (the subject 'Shopping list' does not
    make ``list_notes`` fit). A file's name, quoted or not, counts as the word "file":
    ``write_file`` fits "Write 'order 20 apples' to order.txt". A step that sends a
    message has the word "send" too: ``send_email`` fits "Email Bob the total".
    """
    text = unquoted(step).lower()
    words = {_stem(w) for w in _WORD.findall(text)}
    if _FILE_NAME.search(step):  # "Write the total to 'order.txt'" is about a file
        words.add("file")
    if _SENDS.search(step.strip()):
        words.add("send")
    return [
        name
        for name in names
        if (parts := [_stem(p) for p in _WORD.findall(name.lower())])
        and all(p in words for p in parts)
    ]


def tool_steps(plan: Plan) -> list[Step]:
    """The open steps of `plan` that need a tool (what an answer cannot do by itself)."""
    return [s for s in plan.open_steps() if step_needs_tool(plan, s)]


def answered(plan: Plan) -> tuple[int, ...]:
    """Plan numbers of the open steps a final answer does by itself, or none.

    All of them when every open step needs no tool ("Tell me the result") and none waits
    for a human's approval; none while any step still needs a tool (the answer cannot do
    that step, so it does not finish the plan either).
    """
    steps = plan.open_steps()
    if any(step_needs_tool(plan, s) or s.requires_approval for s in steps):
        return ()
    return tuple(plan.number_of(s) for s in steps)


_RESULT_CHARS = 100


def result_text(name: str, result: Mapping[str, Any]) -> str:
    """A tool's successful result in a few words, for the recitation: ``"calc → 391.0"``."""
    value = result.get("output", {k: v for k, v in result.items() if k != "success"})
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return f"{name} → {text[:_RESULT_CHARS]}{'…' if len(text) > _RESULT_CHARS else ''}"


def unworked(plan: Plan) -> dict[int, str]:
    """The steps the loop skipped for lack of work, by number, with its note on each.

    The loop skips a step the model marks done twice with no tool run for it since it
    started (:data:`~taskforce.agent.prompts.SKIPPED_NOTE`), or only failed calls
    (:data:`~taskforce.agent.prompts.FAILED_NOTE`); the model may have done that work
    earlier, in another step's call, or not at all.
    """
    loop_notes = (SKIPPED_NOTE, FAILED_NOTE)
    return {
        plan.number_of(step): step.note
        for step in plan.steps
        if step.status is StepStatus.SKIPPED and step.note in loop_notes
    }
