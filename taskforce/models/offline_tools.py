"""The offline model's work with tools: which demo tool fits a step, and the report.

Pure functions over strings, no I/O. In order: a step that says to read a named file goes
to `read_file`, one about the files to `list_files`, one naming a file (``agenda.md``) to
`write_file`, one holding arithmetic (``8 * 45 + 120``, or in words: "Add 17 and 25",
"Multiply the result by 3", where "the result" is the latest step's value) to `calculator`,
one that says to note something to `add_note` (a note of "the result" holds it), one that
says to write or draft something to `write_file`.
The offline model writes no prose, so a file it writes gathers the run's results so far
and says so. A step none of them fits gets None: the model does not pretend to do it.
The tool names are those of :mod:`taskforce.tools.demo` (a test keeps them equal).
:func:`report` is the final answer: what the tools did, not the plan again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from taskforce.plan.step import StepStatus
from taskforce.plan.text import plural
from taskforce.planning.split import list_items

CALCULATOR = "calculator"
WRITE_FILE = "write_file"
READ_FILE = "read_file"
LIST_FILES = "list_files"
ADD_NOTE = "add_note"

RESULT_MARK = " → "
"""Between the tool's name and its result in the note of a step done with a tool."""

_FILE = re.compile(
    r"(?<![\w/.-])((?:[A-Za-z0-9_][\w-]*/){0,3}[A-Za-z0-9_][\w-]*"
    r"\.(?:md|txt|csv|json|html|yaml|yml|toml))\b",
    re.IGNORECASE,
)
_FUNCTION = r"(?:sqrt|abs|round|min|max|floor|ceil)"
_EXPRESSION = re.compile(
    rf"(?:{_FUNCTION}\s*\(|[(\d])(?:[\d.\s()+\-*/\u00d7\u00f7^%]|{_FUNCTION}|pi)*"
)
_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}")
_COMPUTE = re.compile(
    r"^(?:compute|calculate|work out|figure out|add up|sum|multiply|divide|estimate)\b", re.I
)
_NOTE = re.compile(r"^(?:note(?: down)?|jot(?: down)?|write down|record|remember|log)\b", re.I)
_WRITE = re.compile(r"^(?:write(?: up)?|draft|compose|summari[sz]e|save|document)\b", re.I)
_MAKE = re.compile(r"^(?:create|prepare|make|put together|produce)\b", re.I)
_READ = re.compile(r"^(?:read|show|open|review|check|print|look at)\b", re.I)
_LIST = re.compile(r"^(?:list|show|check)\b.*\bfiles\b", re.I)
_DOCUMENTS = re.compile(
    r"\b(?:agenda|report|summary|invitation|invite|letter|e-?mail|memo|note|notes|plan|"
    r"checklist|outline|proposal|schedule|itinerary|minutes|readme|post|brief|draft|list)\b",
    re.I,
)
_NUMBER = r"-?\d[\d,]*(?:\.\d+)?"
_EARLIER = r"the (?:result|total|sum|product|answer|difference)|it|that"
_OPERAND = rf"({_NUMBER}(?![\d/:.-])|{_EARLIER})"
_LEAD = r"^(?:(?:then|and|next|finally|now),?\s+)?(?:please\s+)?"
_WORDED = tuple(
    (re.compile(_LEAD + pattern + r"(?![\w.%])", re.IGNORECASE), template)
    for pattern, template in (
        (rf"(?:add(?:\s+up)?|sum(?:\s+up)?)\s+{_OPERAND}\s+(?:and|to|plus)\s+{_OPERAND}",
         "{0} + {1}"),
        (rf"multiply\s+{_OPERAND}\s+(?:by|and|with)\s+{_OPERAND}", "{0} * {1}"),
        (rf"subtract\s+{_OPERAND}\s+from\s+{_OPERAND}", "{1} - {0}"),
        (rf"divide\s+{_OPERAND}\s+(?:by|into)\s+{_OPERAND}", "{0} / {1}"),
        (rf"(?:(?:compute|calculate|work out|take|find)\s+)?{_OPERAND}\s*(?:%|percent)\s+of\s+"
         rf"{_OPERAND}", "{0} * {1} / 100"),
        (rf"(?:(?:compute|calculate|work out|take|find)\s+)?(?:the\s+)?square root of\s+{_OPERAND}",
         "sqrt({0})"),
        (rf"(?:double|twice)\s+{_OPERAND}", "{0} * 2"),
    )
)  # fmt: skip
"""Arithmetic said in words ("Add 17 and 25", "Multiply the result by 3") -> a template."""
_PUT = re.compile(r"\s+(?:to|into|in|on|onto)\s+(?:my|the|a|an|our|your)\b", re.IGNORECASE)
_ARTICLES = re.compile(r"^(?:(?:the|a|an|our|my|your|their|this|that|some|up)\s+)+", re.I)
_STOP = re.compile(r"\b(?:to|for|with|in|into|on|about|and|from|as|at|by|of)\b", re.I)


NO_TOOL_NOTE = "no tool fits this step; the offline model cannot do it itself"
"""The note of a step the offline model skips because none of its tools fits."""


@dataclass(frozen=True, slots=True)
class PlanStep:
    """A plan step as the offline model reads it from the conversation's checklist."""

    number: int
    text: str
    status: StepStatus
    note: str
    needs_approval: bool = False


@dataclass(frozen=True, slots=True)
class Earlier:
    """A step done earlier in the plan with a tool, and the tool's result."""

    text: str
    result: str


def earlier_results(steps: Sequence[PlanStep]) -> list[Earlier]:
    """The done steps of a plan that have a tool's result in their note."""
    return [
        Earlier(s.text, s.note.split(RESULT_MARK, 1)[1])
        for s in steps
        if s.status is StepStatus.DONE and RESULT_MARK in s.note
    ]


def result_note(tool: str, result: Any) -> str:
    """The note of a step done with `tool`: ``calculator → 8 * 45 + 120 = 480``."""
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    return f"{tool}{RESULT_MARK}{' '.join(text.split())[:150]}"


def report(steps: Sequence[PlanStep]) -> str:
    """The final answer: what the tools did, then what was skipped or failed.

    It reports results rather than repeating the plan, which is shown beside it.
    """
    done, skipped, failed = (
        [s for s in steps if s.status is k]
        for k in (StepStatus.DONE, StepStatus.SKIPPED, StepStatus.FAILED)
    )
    counts = [f"{len(done)} of {plural(len(steps), 'step')} done"]
    counts += [f"{len(skipped)} skipped"] if skipped else []
    counts += [f"{len(failed)} failed"] if failed else []
    lines = ["Finished the plan: " + ", ".join(counts) + "."]
    results = [s for s in done if RESULT_MARK in s.note]
    if results:
        lines += ["", "What the tools did:"]
        for s in results:
            tool, result = s.note.split(RESULT_MARK, 1)
            lines.append(f"- step {s.number}, {tool}: {result}")
    if failed:
        lines += ["", "Failed:", *(f"- step {s.number}, {s.text}: {s.note}" for s in failed)]
    if skipped:
        shown = "; ".join(f"{s.number}. {s.text}" for s in skipped)
        why = "no tool fits" if all(s.note == NO_TOOL_NOTE for s in skipped) else "see the plan"
        lines += ["", f"Skipped ({why}): {shown}."]
    if any(s.note == NO_TOOL_NOTE for s in skipped):
        lines += ["", "An LLM (--model) can do such steps, or a tool you add that fits them."]
    return "\n".join(lines)


def left(steps: Sequence[PlanStep]) -> str:
    """The answer to a question about the plan ("What is left?"): its open steps, if any."""
    if not steps:
        return "There is no plan yet: tell me what to do and I will plan it."
    open_steps = [s for s in steps if s.status in (StepStatus.IN_PROGRESS, StepStatus.PENDING)]
    if not open_steps:
        return "Nothing is left. " + report(steps)
    finished = len(steps) - len(open_steps)
    lines = [f"Left: {plural(len(open_steps), 'step')} of {len(steps)} ({finished} finished):"]
    for s in open_steps:
        state = " (in progress)" if s.status is StepStatus.IN_PROGRESS else ""
        lines.append(f"- {s.number}. {s.text}{state}")
    return "\n".join(lines)


def fit(
    step: str, number: int, tools: Collection[str], mission: str, earlier: Sequence[Earlier]
) -> tuple[str, dict[str, Any]] | None:
    """The demo tool (among `tools`) that fits `step`, with its arguments; None if none does.

    `number` is the step's number (for a file name of last resort), `mission` the
    request the plan came from, `earlier` the results of the steps done before it.
    """
    text = " ".join(step.split())
    named = _FILE.search(text)
    if named and READ_FILE in tools and _READ.search(text):
        return READ_FILE, {"path": named.group(1)}
    if LIST_FILES in tools and _LIST.search(text):
        return LIST_FILES, {}
    writes = WRITE_FILE in tools and (
        named is not None
        or _WRITE.search(text) is not None
        or (_MAKE.search(text) is not None and _DOCUMENTS.search(text) is not None)
    )
    if writes and named is not None:
        return WRITE_FILE, _file_args(text, named.group(1), mission, earlier)
    if CALCULATOR in tools and (expression := arithmetic(text, earlier)) is not None:
        return CALCULATOR, {"expression": expression}
    if ADD_NOTE in tools and (match := _NOTE.search(text)):
        said = text[match.end() :].strip(" :,-.")
        note = _ARTICLES.sub("", said)
        note = (note[:1].upper() + note[1:]) or text
        if earlier and re.fullmatch(_EARLIER, said, re.IGNORECASE):  # "Note the result"
            pronoun = said.casefold() in ("it", "that")
            note = earlier[-1].result if pronoun else f"{note}: {earlier[-1].result}"
        return ADD_NOTE, {"text": note}
    if writes:
        return WRITE_FILE, _file_args(text, _file_name(text, number), mission, earlier)
    return None


def arithmetic(text: str, earlier: Sequence[Earlier] = ()) -> str | None:
    """The arithmetic expression in `text` (``8 * 45 + 120``), if it has one.

    A bare ``3/4`` or a date is not taken for arithmetic unless the step says to compute.
    A step that says it in words ("Add 17 and 25", "Multiply the result by 3", "15% of
    80") is written as an expression; "the result" (or "it", "the total") is the value the
    latest earlier step computed, and without one the step is not arithmetic.
    """
    worded = _worded(text, earlier)
    if worded is not None:
        return worded
    computing = _COMPUTE.search(text) is not None
    for match in _EXPRESSION.finditer(text):
        candidate = match.group().strip().rstrip("+-*/\u00d7\u00f7^%. ").strip()
        if not re.search(r"\d", candidate) or _DATE.search(candidate):
            continue
        if candidate.count("(") != candidate.count(")"):
            candidate = candidate.strip("()").strip()
            if candidate.count("(") != candidate.count(")"):
                continue
        operators = len(re.findall(r"\*\*|[+*/\u00d7\u00f7^%]|(?<=[\d)\s])-(?=[\s\d(])", candidate))
        spaced = (
            re.search(r"\s(?:[+*/\u00d7\u00f7^%]|\*\*)\s", candidate) is not None
        )  # not "1 - 3"
        function = re.match(_FUNCTION, candidate) is not None
        if operators and (computing or spaced or operators >= 2 or function):
            return candidate
    return None


def _worded(text: str, earlier: Sequence[Earlier]) -> str | None:
    for pattern, template in _WORDED:
        match = pattern.search(text)
        if match is None:
            continue
        if _PUT.match(text, match.end()):  # "Add 3 and 4 to my notes": not a sum
            return None
        values = [_operand(group, earlier) for group in match.groups()]
        if any(v is None for v in values):
            return None
        return template.format(*values)
    return None


def _operand(word: str, earlier: Sequence[Earlier]) -> str | None:
    """A number as written (without thousands commas), or the latest computed value."""
    if word[-1].isdigit():
        return word.replace(",", "")
    for done in reversed(earlier):
        value = re.fullmatch(rf".*=\s*({_NUMBER})", done.result.strip())
        if value is not None:
            return value.group(1).replace(",", "")
    return None


def _file_name(text: str, number: int) -> str:
    """`agenda.md` for "Draft the agenda for the day"; `step-N.md` when nothing fits."""
    rest = re.sub(r"^\S+(?:\s+(?:up|down|together))?(?:\s+|$)", "", text, count=1)
    rest = _ARTICLES.sub("", rest)
    words = re.findall(r"[A-Za-z0-9]+", _STOP.split(rest, maxsplit=1)[0])[:4]
    slug = "-".join(w.lower() for w in words)
    return f"{slug}.md" if slug else f"step-{number}.md"


def _file_args(text: str, name: str, mission: str, earlier: Sequence[Earlier]) -> dict[str, Any]:
    stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    lines = [f"# {stem.replace('-', ' ').replace('_', ' ').capitalize()}", ""]
    context = next((line.strip() for line in mission.splitlines() if line.strip()), "")
    context = "" if list_items(context) else context.rstrip(":").strip()  # not an item
    if context and context.casefold() != text.casefold():
        lines += [context[:300], ""]
    lines += [f"Step: {text}", ""]
    if earlier:
        lines += ["## What the run found so far", ""]
        lines += [f"- {e.text.split(':', 1)[0]}{RESULT_MARK}{e.result}" for e in earlier]
        lines.append("")
    lines.append(
        "_Put together by taskforce's offline model from the run's results; it writes no "
        "prose of its own (an LLM, with --model, would)._"
    )
    return {"path": name, "content": "\n".join(lines) + "\n"}
